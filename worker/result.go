package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/nats-io/nats.go/jetstream"
)

// unknownLanguage is the metrics label of a job whose language is not in
// the catalog: a label per raw string would let any job add a time
// series to every scrape.
const unknownLanguage = "unknown"

// noLanguage is the metrics label of a submission of output files alone
// (a CMS OutputOnly task's), which has no language.
const noLanguage = "none"

// catalog is the worker's language catalog: its judger's.
func (w *Worker) catalog() *langs.Catalog { return w.judge.Langs() }

// languageID is the catalog id a job's language (id or alias) resolves
// to, "" when it resolves to none.
func (w *Worker) languageID(name string) string {
	l, err := w.catalog().Lookup(name)
	if err != nil {
		return ""
	}
	return l.ID
}

// languageLabel is the bounded metrics label of a job's language.
func (w *Worker) languageLabel(name string) string {
	if name == "" {
		return noLanguage
	}
	if id := w.languageID(name); id != "" {
		return id
	}
	return unknownLanguage
}

// errorResult is the final result of a job that ends before its problem
// is loaded (docs/protocol.md, "Result"): the verdict and reason, and
// what is known without the package: the problem the job names, the
// language's catalog id, the attempt and this worker. max_score and
// limits come from a package, so they are 0 here.
func (w *Worker) errorResult(job *protocol.Job, v verdict.Verdict, msg string, attempt int) *verdict.Result {
	res := &verdict.Result{V: protocol.Version, SubmissionID: job.SubmissionID, Verdict: v, Error: msg,
		Tests: []verdict.TestResult{}, Groups: []verdict.GroupResult{},
		Worker: w.cfg.Name, Attempt: attempt, FeedbackPolicy: w.earlyFeedback(job)}
	if protocol.ValidID(job.Problem) {
		res.Problem = job.Problem
	}
	res.Language = w.languageID(job.Language)
	if v == verdict.CE {
		res.Compile.Log = msg
	}
	return res
}

// earlyFeedback is the feedback policy of a result that ends a job
// before its problem is loaded: the job's when it is valid, else the
// worker's default. Such a result has no tests; it gets a policy all the
// same, because the bridge hides the error of a result without one (a
// worker before policies could quote a secret test there).
func (w *Worker) earlyFeedback(job *protocol.Job) problem.FeedbackPolicy {
	jp, err := problem.ParseFeedbackPolicy(string(job.FeedbackPolicy))
	if err != nil {
		jp = ""
	}
	return EffectiveFeedback(jp, "", w.cfg.Feedback)
}

// jobProblem is the problem a job names, as a result would name it: its
// id, or "inline" for an inline problem; "" for neither.
func jobProblem(job *protocol.Job) string {
	switch {
	case protocol.ValidID(job.Problem):
		return job.Problem
	case job.InlineProblem != nil:
		return "inline"
	}
	return ""
}

// finish publishes the final result and the final event and waits for
// both to be stored. Both carry a Nats-Msg-Id per submission, so a
// redelivered job can never store a second final result.
func (w *Worker) finish(ctx context.Context, id string, attempt int, res *verdict.Result, seq int) error {
	res.V = 1
	if res.Tests == nil {
		res.Tests = []verdict.TestResult{}
	}
	if res.Groups == nil {
		res.Groups = []verdict.GroupResult{}
	}
	body, err := json.Marshal(res)
	if err != nil {
		return err
	}
	final, _ := json.Marshal(protocol.Event{V: protocol.Version, SubmissionID: id, Attempt: attempt, Seq: seq, Time: time.Now().UTC(), Type: protocol.EventFinal, Worker: w.cfg.Name, Result: res,
		FeedbackPolicy: res.FeedbackPolicy})
	// Both in flight at once, then both acknowledged: one round trip.
	rf, err := w.js.PublishAsync(w.subj.Results(id), body, jetstream.WithMsgID(protocol.ResultMsgID(id)))
	if err != nil {
		return fmt.Errorf("publish result: %w", err)
	}
	ff, err := w.js.PublishAsync(w.subj.Events(id), final, jetstream.WithMsgID(protocol.FinalMsgID(id)))
	if err != nil {
		return fmt.Errorf("publish final event: %w", err)
	}
	timeout := time.After(10 * time.Second)
	for _, f := range []struct {
		what string
		fut  jetstream.PubAckFuture
	}{{"result", rf}, {"final event", ff}} {
		select {
		case <-f.fut.Ok():
		case err := <-f.fut.Err():
			return fmt.Errorf("publish %s: %w", f.what, err)
		case <-timeout:
			return fmt.Errorf("publish %s: no acknowledgement within 10s", f.what)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
