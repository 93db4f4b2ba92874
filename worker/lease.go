package worker

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/docketjudge/docket/protocol"
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
