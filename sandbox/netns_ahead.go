package sandbox

import "sync"

// netAhead is a network namespace made in the background as the Sandbox
// opens, for the first slot run that needs one (netns.go): making one
// costs about 1 ms, which a one-off command such as `docket exec` would
// otherwise wait for between its setup and its helper's start. Made
// alongside New's probes and the run's own preparation (its space, its
// cgroup), on the second core, it is ready or nearly so when the run
// asks. Only one is made: later slots make their own when first needed,
// as before. New drops it when the probe finds that runs make their own
// (Sandbox.slotNetNS).
type netAhead struct {
	mu sync.Mutex
	ch chan *netNS // the namespace once made (nil if it failed); nil once taken
}

// start makes the namespace in the background.
func (a *netAhead) start() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ch != nil {
		return
	}
	ch := make(chan *netNS, 1)
	a.ch = ch
	go func() {
		n, err := newNetNS()
		if err != nil {
			n = nil // the run that asks makes its own, and reports why not
		}
		ch <- n
	}()
}

// detach takes the namespace's channel from a, which offers it no more:
// nil if none was started or it was taken already.
func (a *netAhead) detach() chan *netNS {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch := a.ch
	a.ch = nil
	return ch
}

// take gives the namespace, waiting for it if it is being made: nil if
// none was started, it failed or it was taken already.
func (a *netAhead) take() *netNS {
	if ch := a.detach(); ch != nil {
		return <-ch
	}
	return nil
}

// close drops the namespace if no run took it, once it is made.
func (a *netAhead) close() {
	if ch := a.detach(); ch != nil {
		go func() {
			if n := <-ch; n != nil {
				n.close()
			}
		}()
	}
}
