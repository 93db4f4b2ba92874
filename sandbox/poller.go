package sandbox

import (
	"sync"
	"time"
)

// A poller calls its check from a timer, again after the interval check
// returns, until check says stop or the poller is stopped. No goroutine
// waits between checks: a run shorter than the first interval (most of a
// judge's runs) costs a timer, not a goroutine woken on another CPU while
// the target starts. It counts in wg from start until its last check has
// returned, or until stop cancels a check not yet begun, so that waiting
// on wg after stop means no check is running or will run.
type poller struct {
	mu      sync.Mutex
	t       *time.Timer
	stopped bool
	wg      *sync.WaitGroup
	check   func() (next time.Duration, again bool)
}

// startPoller has check called first after first.
func startPoller(wg *sync.WaitGroup, first time.Duration, check func() (time.Duration, bool)) *poller {
	p := &poller{wg: wg, check: check}
	wg.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t = time.AfterFunc(first, p.fire)
	return p
}

func (p *poller) fire() {
	next, again := p.check()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !again || p.stopped {
		p.wg.Done()
		return
	}
	p.t.Reset(next)
}

// stop ends the polling: a check that has begun finishes, and none
// follows.
func (p *poller) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	if p.t.Stop() {
		p.wg.Done() // a check was pending, not running: it never will
	}
}
