package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/nats-io/nats.go/jetstream"
)

func init() {
	register("submit", "enqueue a submission; --follow streams its events and exits with the verdict", runSubmit)
}

func runSubmit(args []string) int {
	fs := newFlags("submit", helpText{
		synopsis: "--problem ID [--lang L] [--entry NAME] [--queue Q] [--id ID] [--follow] [--force] FILE...",
		about: "Enqueues a submission for the workers on DOCKET_NATS_URL and prints its id. It first checks that the\n" +
			"problem is in the store and the language is known (--force skips both), and refuses an --id that\n" +
			"already has a result (rejudge under a new id). --follow streams the events and exits with the verdict.\n" +
			"Exit: 0 enqueued (with --follow: AC), 1 another verdict, 2 usage or a refused submission, 3 NATS or host error.",
		example: "docket submit --problem aplusb --follow problems/aplusb/submissions/accepted/main.cpp",
	})
	prob := fs.String("problem", "", "problem id in the store (required)")
	lang := fs.String("lang", "", "language id (default: from the first file's extension)")
	queue := fs.String("queue", "", "queue (default DOCKET_QUEUE)")
	id := fs.String("id", "", "submission id (default: a random one)")
	follow := fs.Bool("follow", false, "stream the submission's events; exit 0 on AC, 1 otherwise")
	tl := durationLimit(fs, "time-limit", 0, "override the problem's time limit, a `duration` with a unit: 2s, 1500ms")
	entry := fs.String("entry", "", "entry point: the main source file, or for Java and Kotlin the main class")
	timeout := durationLimit(fs, "timeout", 10*time.Minute, "--follow: give up after this long (a `duration`)")
	force := fs.Bool("force", false, "enqueue even if the problem is not in the store or the language is unknown here")
	retry := fs.Duration("retry", 0, "retry a failed publish for this long (default DOCKET_SUBMIT_RETRY, 30s; 0: publish once)")
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	if *prob == "" || fs.NArg() == 0 {
		fmt.Fprintln(stderr, "docket submit: --problem and at least one FILE are required")
		return exitUsage
	}
	qe, err := loadQueueEnv()
	if err != nil {
		fmt.Fprintln(stderr, "docket submit:", err)
		return exitUsage
	}
	if *queue == "" {
		*queue = qe.Queue
	}
	sub, err := verdict.ReadSubmission(langs.Builtin(), *lang, fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "docket submit:", err)
		return exitUsage
	}
	if *id == "" {
		b := make([]byte, 6)
		rand.Read(b)
		*id = "s-" + hex.EncodeToString(b)
	}
	if !protocol.ValidID(*id) {
		fmt.Fprintln(stderr, "docket submit: --id must be 1-128 characters of [A-Za-z0-9_-]")
		return exitUsage
	}
	if !protocol.ValidQueue(*queue) {
		fmt.Fprintf(stderr, "docket submit: queue %q is not a queue name: 1-64 characters of [A-Za-z0-9_-]\n", *queue)
		return exitUsage
	}
	if !*force && sub.Language != "" { // "": output files alone, no program
		if err := checkLanguage(sub.Language); err != nil {
			fmt.Fprintln(stderr, "docket submit:", err)
			return exitUsage
		}
	}
	body := submissionJob(sub, *id, *prob, *entry, *tl)
	if err := checkJobSize(sub.Files, body, qe.MaxSource, 0); err != nil {
		fmt.Fprintln(stderr, "docket submit:", err)
		return exitUsage
	}
	nc, err := qe.connect("docket-submit")
	if err != nil {
		fmt.Fprintln(stderr, "docket submit:", err)
		return exitSystem
	}
	defer nc.Close()
	if err := checkJobSize(nil, body, 0, nc.MaxPayload()); err != nil {
		fmt.Fprintln(stderr, "docket submit:", err)
		return exitUsage
	}
	js, _ := jsFor(nc)
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	subj := protocol.Subjects{Prefix: qe.SubjectPrefix}
	if !flagSet(fs, "retry") {
		*retry = qe.SubmitRetry
	}
	if code, ok := preflight(ctx, js, subj, *prob, *id, *force); !ok {
		return code
	}
	if err := publishJob(ctx, js, subj.Job(*queue, *id), body, *id, *retry, stderr); err != nil {
		fmt.Fprintln(stderr, "docket submit: publish:", err)
		return exitSystem
	}
	fmt.Fprintln(stdout, *id)
	if !*follow {
		return exitOK
	}
	return followResult(ctx, js, subj, *id, *queue, *timeout)
}

// followResult streams a published submission's events and exits with
// its verdict: 0 AC, 1 another, 3 when none came within timeout.
func followResult(ctx context.Context, js jetstream.JetStream, subj protocol.Subjects, id, queue string, timeout time.Duration) int {
	res, err := followEvents(ctx, js, subj, id, stderr, waitNotice{js: js, subj: subj, queue: queue, out: stderr, after: 10 * time.Second})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%s not judged within --timeout %s; it stays queued (follow it again with GET /v1/submissions/%s)", id, timeout, id)
		}
		fmt.Fprintln(stderr, "docket submit:", err)
		return exitSystem
	}
	printSummary(res, 0)
	if res.Verdict == verdict.AC {
		return exitOK
	}
	return exitFailed
}

// submissionJob is the job of a submission read from files, as JSON.
func submissionJob(sub verdict.Submission, id, prob, entry string, timeLimit time.Duration) []byte {
	job := protocol.Job{V: protocol.Version, SubmissionID: id, Problem: prob, Language: sub.Language, Files: map[string]string{}, EntryPoint: entry}
	for n, b := range sub.Files {
		job.Files[n] = string(b)
	}
	if timeLimit > 0 {
		job.Limits = &protocol.JobLimits{TimeMs: int(timeLimit.Milliseconds())}
	}
	body, _ := json.Marshal(job)
	return body
}

// followEvents prints a submission's events until its final one, and
// while none has come, that it waits (notice).
func followEvents(ctx context.Context, js jetstream.JetStream, subj protocol.Subjects, id string, out io.Writer, notice waitNotice) (*verdict.Result, error) {
	s, err := js.Stream(ctx, protocol.EventsStream)
	if err != nil {
		return nil, err
	}
	oc, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subj.Events(id)}, DeliverPolicy: jetstream.DeliverAllPolicy, InactiveThreshold: 30 * time.Second,
	})
	if err != nil {
		return nil, err
	}
	it, err := oc.Messages()
	if err != nil {
		return nil, err
	}
	defer it.Stop()
	disp := &liveDisplay{out: out}
	started := make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(started) })
	go notice.watch(ctx, started)
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("waiting for %s: %w", id, err)
		}
		once.Do(func() { close(started) })
		var ev protocol.Event
		if json.Unmarshal(m.Data(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case protocol.EventStarted:
			fmt.Fprintf(out, "started on %s (attempt %d)", ev.Worker, ev.Attempt)
			if ev.Problem != "" {
				fmt.Fprintf(out, ": %s in %s", ev.Problem, ev.Language)
			}
			fmt.Fprintln(out)
		case protocol.EventCompile:
			if ev.Compile != nil {
				disp.Compiled(*ev.Compile)
			}
		case protocol.EventTest:
			if ev.Test != nil {
				disp.Test(ev.Index, ev.Total, *ev.Test)
			}
		case protocol.EventFinal:
			if ev.Result == nil {
				return nil, fmt.Errorf("final event without a result")
			}
			return ev.Result, nil
		}
	}
}
