package worker

import (
	"context"
	"errors"
	"time"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
)

// Judger is what a worker does with a job it holds once the job's problem
// is loaded: Judging judges it in a sandbox slot, NotJudging (the
// capacity test) judges nothing. Everything around it is the worker's:
// fetching, decoding, the problem lookup, heartbeats, the started and
// final events, the result, the ack.
type Judger interface {
	// Judge returns the task's result, its FeedbackPolicy set. ctx ends
	// when the job is abandoned (SIGTERM's grace period over, the lease
	// lost): the run in progress is then killed and Judge returns an
	// error. A PoisonError ends the job with its verdict; any other error
	// (with ctx alive) gives the job back for another worker.
	Judge(ctx context.Context, t Task) (*verdict.Result, error)
	// Langs is the catalog a job's language resolves against: the
	// language ids in events and results, the metrics labels.
	Langs() *langs.Catalog
}

// Task is a job in a Judger's hands: decoded, its problem loaded.
type Task struct {
	Job     *protocol.Job
	Problem *problem.Problem
	// Feedback is the submission's effective policy (the job's, the
	// package's, the worker's default: EffectiveFeedback); the events
	// already carry it.
	Feedback problem.FeedbackPolicy
	// EarlyFeedback is the policy of a result that stands for no judging,
	// as of one that ends a job before its problem is loaded: the job's,
	// else the worker's default (docs/protocol.md, "Result").
	EarlyFeedback problem.FeedbackPolicy
	// Events receives the judging's progress (compile, tests, groups).
	Events verdict.Observer
}

// Judging is the Judger of a judging worker: j, its sandbox slot's judge.
func Judging(j *verdict.Judge) Judger {
	if j == nil {
		return nil // New refuses it: no slot, no judging
	}
	return judging{j}
}

type judging struct{ j *verdict.Judge }

func (g judging) Judge(ctx context.Context, t Task) (*verdict.Result, error) {
	job := t.Job
	files := make(map[string][]byte, len(job.Files))
	for n, b := range job.Files {
		files[n] = []byte(b)
	}
	opt := verdict.Options{Observer: t.Events}
	if l := job.Limits; l != nil {
		opt.TimeLimit = time.Duration(l.TimeMs) * time.Millisecond
		opt.MemoryMB, opt.OutputMB = l.MemoryMB, l.OutputMB
	}
	sub := verdict.Submission{ID: job.SubmissionID, Language: job.Language, Files: files, EntryPoint: job.EntryPoint}
	res, err := g.j.JudgeOrAbandon(ctx, t.Problem, sub, opt)
	if err != nil {
		return nil, err
	}
	res.FeedbackPolicy = t.Feedback
	return res, nil
}

// Langs is the judge's catalog, the built-in one if it has none.
func (g judging) Langs() *langs.Catalog {
	if g.j.Langs != nil {
		return g.j.Langs
	}
	return langs.Builtin()
}

// judgeJob loads the job's problem and hands the job to the worker's
// Judger, its progress going to ev.
func (w *Worker) judgeJob(ctx context.Context, job *protocol.Job, ev *events) (*verdict.Result, error) {
	p, err := w.problemFor(ctx, job)
	if err != nil {
		return nil, err
	}
	ev.policy = EffectiveFeedback(job.FeedbackPolicy, p.Feedback, w.cfg.Feedback)
	return w.judge.Judge(ctx, Task{Job: job, Problem: p, Feedback: ev.policy, EarlyFeedback: w.earlyFeedback(job), Events: ev})
}

// problemFor is the job's problem: its inline problem written out, or its
// package from the store (waiting out an unavailable store). A problem
// that can never load is a PoisonError.
func (w *Worker) problemFor(ctx context.Context, job *protocol.Job) (*problem.Problem, error) {
	if job.InlineProblem != nil {
		p, err := w.inline.get(w.cfg.InlineDir, job.InlineProblem)
		if err != nil {
			return nil, poison(verdict.SE, "inline_problem: %v", err)
		}
		w.warned.log(w.cfg.Logger, p)
		return p, nil
	}
	p, err := w.problemFromStore(ctx, job)
	if err == nil {
		w.warned.log(w.cfg.Logger, p)
	}
	if errors.Is(err, ErrNoProblem) {
		return nil, poison(verdict.SE, "%v", err)
	}
	var le *problem.LoadError
	if errors.As(err, &le) {
		return nil, poison(verdict.SE, "broken problem package: %v", err)
	}
	return p, err
}
