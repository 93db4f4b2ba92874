package worker

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// lease is this worker's hold on the job in hand. The server gives a job
// to another worker when it has heard no heartbeat for AckWait; a worker
// that was frozen (SIGSTOP, a stalled VM) for that long has lost the job
// even though nothing told it so, and anything it still publishes would
// land after, or race with, the new holder's events. The gap is measured
// on the monotonic clock, which runs on while the process is stopped.
type lease struct {
	ackWait time.Duration
	mu      sync.Mutex
	last    time.Time
	gone    bool
	gap     time.Duration
	left    bool // the job left the jobs stream (jobLeftStream)
}

func newLease(ackWait time.Duration) *lease { return &lease{ackWait: ackWait, last: time.Now()} }

// beat records a heartbeat about to be sent; false once the lease is lost.
func (l *lease) beat() bool {
	if l.lost() {
		return false
	}
	l.mu.Lock()
	l.last = time.Now()
	l.mu.Unlock()
	return true
}

// lost reports whether AckWait passed since the last heartbeat.
func (l *lease) lost() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.gone {
		if gap := time.Since(l.last); gap > l.ackWait {
			l.gone, l.gap = true, gap
		}
	}
	return l.gone
}

// drop ends the lease because the job is gone from the server.
func (l *lease) drop() {
	l.mu.Lock()
	l.gone, l.left = true, true
	l.mu.Unlock()
}

// jobLeftStream reports, and records in l, that the job in hand is no
// longer in the jobs stream (a work queue: a job leaves it when acked or
// terminated, by anyone, or deleted): the worker of a later attempt
// judged it while this one was cut off from the server for longer than
// AckWait (its heartbeats buffered, never sent), or an operator removed
// it. Only the server's "no such message" counts; any other error (an
// election, a timeout) leaves the lease alone.
func (w *Worker) jobLeftStream(msg jetstream.Msg, l *lease) bool {
	md, err := msg.Metadata()
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(w.cfg.heartbeat()/2, 5*time.Second)) // the next heartbeat on time
	defer cancel()
	s, err := w.js.Stream(ctx, protocol.JobsStream)
	if err != nil {
		return false
	}
	if _, err := s.GetMsg(ctx, md.Sequence.Stream); !errors.Is(err, jetstream.ErrMsgNotFound) {
		return false
	}
	l.drop()
	return true
}

// abandon drops a job whose lease was lost: no result, no ack, no nak.
// The redelivery (to another worker, or to this one) judges it, and the
// result's Nats-Msg-Id keeps a second final out should one slip through.
func (w *Worker) abandon(log zerolog.Logger, l *lease) {
	if l.left {
		log.Warn().Msg("job lease lost: the job left the jobs stream (judged by a later attempt, terminated or deleted); attempt abandoned, its run killed, its result discarded")
		return
	}
	log.Warn().Dur("silent_for", l.gap).Dur("ack_wait", w.cfg.AckWait).
		Msg("job lease lost: no heartbeat for longer than AckWait (process frozen?); attempt abandoned, its run killed, its result discarded, the redelivery judges it")
}

// Store retry backoff: first retry soon, then no faster than every 5 s.
const (
	storeRetryFirst = 500 * time.Millisecond
	storeRetryMax   = 5 * time.Second
	storeTryTimeout = 2 * time.Minute
)

// problemFromStore gets a pushed problem, waiting out an unavailable
// store. The job stays this worker's meanwhile (the heartbeats go on), so
// the outage costs no delivery: a nak per try would count toward
// MaxDeliver, which JetStream cannot un-count, and a ten-second outage
// would end jobs SE. It gives up only when ctx ends (SIGTERM's grace
// period over, or the lease lost).
func (w *Worker) problemFromStore(ctx context.Context, job *protocol.Job) (*problem.Problem, error) {
	log := w.cfg.Logger.With().Str("submission_id", job.SubmissionID).Str("problem", job.Problem).Logger()
	var since time.Time
	delay := storeRetryFirst
	for tries := 1; ; tries++ {
		// A bound per try: a read from a stream that lost its quorum
		// midway would otherwise wait as long as the job does.
		tctx, cancel := context.WithTimeout(ctx, storeTryTimeout)
		p, err := w.cache.Get(tctx, w.js, job.Problem, job.ProblemDigest)
		cancel()
		var su *StoreUnavailableError
		if !errors.As(err, &su) {
			if !since.IsZero() && err == nil {
				log.Info().Dur("waited", time.Since(since)).Int("tries", tries).Msg("problem store back; judging")
			}
			return p, err
		}
		if since.IsZero() {
			since = time.Now()
			log.Warn().Err(err).Msg("problem store unavailable: holding the job (heartbeats keep it) and retrying with backoff")
		} else {
			log.Debug().Err(err).Int("tries", tries).Msg("problem store still unavailable")
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, storeRetryMax)
	}
}

// fetchPause keeps a worker that cannot judge (its problem cache disk is
// full) from taking job after job only to give each back: a worker that
// fails fast would otherwise win most fetches and burn every job's
// deliveries. The pause grows while failures repeat and ends with the
// first job judged. Only the fetch loop and the job it runs touch it.
type fetchPause struct {
	next time.Duration
	due  bool
}

const (
	pauseFirst = 2 * time.Second
	pauseMax   = 10 * time.Second
)

func (p *fetchPause) failed() {
	p.next = min(max(2*p.next, pauseFirst), pauseMax)
	p.due = true
}

func (p *fetchPause) ok() { p.next, p.due = 0, false }

// wait is how long to pause before the next fetch (once per failure).
func (p *fetchPause) wait() time.Duration {
	if !p.due {
		return 0
	}
	p.due = false
	return p.next
}
