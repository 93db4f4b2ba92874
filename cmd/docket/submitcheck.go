package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go/jetstream"
)

// errRefused: docket submit will not enqueue this submission (exit 2);
// other errors of the checks are the host's (exit 3).
var errRefused = errors.New("refused")

// checkLanguage refuses a language id the built-in catalog does not know.
// A worker's languages file (DOCKET_LANGS_FILE) may add languages: --force
// enqueues those.
func checkLanguage(lang string) error {
	if _, err := langs.Builtin().Lookup(lang); err != nil {
		return fmt.Errorf("%w: %v; --force enqueues it anyway (a language of the workers' own languages file)", errRefused, err)
	}
	return nil
}

// checkProblem refuses a problem that is not in the store, where the
// worker would look it up and answer SE.
func checkProblem(ctx context.Context, js jetstream.JetStream, prob string) error {
	obs, err := js.ObjectStore(ctx, protocol.ProblemBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return fmt.Errorf("%w: problem %q: the store has no problems yet (docket problem push DIR); --force enqueues it anyway", errRefused, prob)
	}
	if err != nil {
		return fmt.Errorf("problem store: %w", err)
	}
	if _, err := obs.GetInfo(ctx, prob); errors.Is(err, jetstream.ErrObjectNotFound) {
		return fmt.Errorf("%w: problem %q is not in the store (docket problem list shows what is); --force enqueues it anyway", errRefused, prob)
	} else if err != nil {
		return fmt.Errorf("problem store: %w", err)
	}
	return nil
}

// checkNoResult refuses an id that already has a result: the job would
// not be judged again (the same Nats-Msg-Id, the same result subject), and
// --follow would print the old result as if it were new.
func checkNoResult(ctx context.Context, js jetstream.JetStream, subj protocol.Subjects, id string) error {
	s, err := js.Stream(ctx, protocol.ResultsStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results stream: %w", err)
	}
	m, err := s.GetLastMsgForSubject(ctx, subj.Results(id))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results stream: %w", err)
	}
	var r protocol.Result
	json.Unmarshal(m.Data, &r)
	return fmt.Errorf("%w: submission %s was already judged (verdict %s, %s); nothing was enqueued. To rejudge, submit again under a new --id",
		errRefused, id, r.Verdict, m.Time.UTC().Format(time.RFC3339))
}

// queueState describes the queue a followed job waits on: how many jobs
// are pending there and whether a worker is pulling.
// Without a consumer (no worker ever served the queue) pending counts the
// queue's jobs in the stream, and err is the consumer's absence.
func queueState(ctx context.Context, js jetstream.JetStream, subj protocol.Subjects, queue string) (pending uint64, waiting int, err error) {
	c, err := js.Consumer(ctx, protocol.JobsStream, protocol.ConsumerName(queue))
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		return storedJobs(ctx, js, subj, queue), 0, err
	}
	if err != nil {
		return 0, 0, err
	}
	info, err := c.Info(ctx)
	if err != nil {
		return 0, 0, err
	}
	return info.NumPending, info.NumWaiting, nil
}

// storedJobs counts the jobs stored for queue.
func storedJobs(ctx context.Context, js jetstream.JetStream, subj protocol.Subjects, queue string) uint64 {
	s, err := js.Stream(ctx, protocol.JobsStream)
	if err != nil {
		return 0
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(subj.QueueJobs(queue)+".>"))
	if err != nil {
		return 0
	}
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}

// waitNotice prints, while a followed job has not started, that it waits
// and, after a while, why it may: no worker pulls from its queue.
type waitNotice struct {
	js    jetstream.JetStream
	subj  protocol.Subjects
	queue string
	out   io.Writer
	after time.Duration // silence before saying why
}

func (w waitNotice) queued(ctx context.Context) {
	pending, _, err := queueState(ctx, w.js, w.subj, w.queue)
	if err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		fmt.Fprintf(w.out, "queued on %s: waiting for a worker\n", w.queue)
		return
	}
	fmt.Fprintf(w.out, "queued on %s: waiting for a worker (%d pending on the queue)\n", w.queue, pending)
}

func (w waitNotice) stillWaiting(ctx context.Context, since time.Duration) {
	pending, waiting, err := queueState(ctx, w.js, w.subj, w.queue)
	switch {
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		fmt.Fprintf(w.out, "still queued after %s: %d pending and no worker has ever served queue %s (start one with DOCKET_QUEUE=%s, or submit with --queue)\n", since.Round(time.Second), pending, w.queue, w.queue)
	case err != nil:
		fmt.Fprintf(w.out, "still queued after %s (queue state: %v)\n", since.Round(time.Second), err)
	case waiting == 0:
		fmt.Fprintf(w.out, "still queued after %s: %d pending on %s and no worker is waiting for a job there (none running on that queue, or all busy)\n", since.Round(time.Second), pending, w.queue)
	default:
		fmt.Fprintf(w.out, "still queued after %s: %d pending on %s, %d worker requests waiting\n", since.Round(time.Second), pending, w.queue, waiting)
	}
}

// watch says that the job is queued, then every after until started is
// closed, why it may still wait.
func (w waitNotice) watch(ctx context.Context, started <-chan struct{}) {
	begin := time.Now()
	w.queued(ctx)
	t := time.NewTicker(w.after)
	defer t.Stop()
	for {
		select {
		case <-started:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			select {
			case <-started: // the event and the tick came together
				return
			default:
			}
			w.stillWaiting(ctx, time.Since(begin))
		}
	}
}

const preflightTimeout = 5 * time.Second

// preflight runs the checks that need the server. A refusal is exit 2; a
// check that cannot be made (the server busy electing a leader) is only
// reported, and the publish, which retries, goes ahead.
func preflight(ctx context.Context, js jetstream.JetStream, subj protocol.Subjects, prob, id string, force bool) (int, bool) {
	// Bounded: during a leader election each lookup could wait out the
	// client's request timeout, and the publish has its own retries.
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	checks := []func() error{func() error { return checkNoResult(ctx, js, subj, id) }}
	if !force {
		checks = append(checks, func() error { return checkProblem(ctx, js, prob) })
	}
	for _, c := range checks {
		err := c()
		if errors.Is(err, errRefused) {
			fmt.Fprintln(stderr, "docket submit:", err)
			return exitUsage, false
		}
		if err != nil {
			fmt.Fprintf(stderr, "docket submit: could not check before publishing (%v); publishing anyway\n", err)
		}
	}
	return exitOK, true
}
