package worker

import (
	"context"
	"time"
)

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

// pauseIfFailing waits out the fetch pause that is due, if any; false
// when ctx ended meanwhile (no more fetching).
func (w *Worker) pauseIfFailing(ctx context.Context) bool {
	d := w.pause.wait()
	if d <= 0 {
		return true
	}
	w.cfg.Logger.Warn().Dur("pause", d).Msg("this worker cannot judge now (see the error above): pausing fetches so other workers take the jobs")
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
