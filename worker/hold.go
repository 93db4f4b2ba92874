package worker

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// held is the worker's hold on the job it judges: ctx ends when the job
// is abandoned (the lease lost, SIGTERM's grace period over); release
// ends the hold once the job is settled.
type held struct {
	ctx     context.Context
	lease   *lease
	release func()
}

// hold keeps the job in msg this worker's while it is judged. Heartbeats
// keep it ours; a lost lease (no heartbeat for AckWait, the process was
// frozen) or the job gone from the stream ends the judging. On SIGTERM
// (stop) the job in hand gets the grace period, then is abandoned: the
// judging context is not stop's, so stopping alone cuts nothing short.
func (w *Worker) hold(stop context.Context, msg jetstream.Msg) *held {
	jctx, cancel := context.WithCancel(context.Background())
	ls := newLease(3 * w.cfg.heartbeat()) // the shortest deadline the server may apply
	done := make(chan struct{})
	go w.heartbeats(msg, ls, cancel, done)
	go w.graceAfter(stop, jctx, cancel)
	return &held{ctx: jctx, lease: ls, release: func() { close(done); cancel() }}
}

// heartbeats sends InProgress every heartbeat interval until done, and
// cancels the judging when the lease is lost or the job left the stream.
func (w *Worker) heartbeats(msg jetstream.Msg, ls *lease, cancel context.CancelFunc, done <-chan struct{}) {
	t := time.NewTicker(w.cfg.heartbeat())
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if !ls.beat() {
				cancel()
				return
			}
			msg.InProgress()
			if w.jobLeftStream(msg, ls) {
				cancel()
				return
			}
		}
	}
}

// graceAfter cancels the judging a grace period after stop ends, unless
// the judging ended first.
func (w *Worker) graceAfter(stop, jctx context.Context, cancel context.CancelFunc) {
	select {
	case <-stop.Done():
		select {
		case <-time.After(w.cfg.Grace):
			cancel()
		case <-jctx.Done():
		}
	case <-jctx.Done():
	}
}
