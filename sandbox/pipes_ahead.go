package sandbox

import (
	"os"
	"sync"
)

// A run's pipes (the request and status pipes to its helper, its stdout
// and stderr) are made for the slot's next run in the background, after
// a run, as its space is (space_ahead.go): about 10 us each on Start's
// path otherwise (pipe2, the poller's registration of docket's end). A
// pipe made ahead has never been used: it is the one the run would have
// made. Runs that start while none is ready (the other side of a pair, a
// run right after another) make theirs.

// pipePair is a pipe as the run uses it: child is the helper's or the
// target's end, parent docket's.
type pipePair struct{ child, parent *os.File }

// pipeSet is one run's pipes, made ahead; each is taken at most once.
type pipeSet struct {
	req, status pipePair
	out         []pipePair // for stdout and stderr, in the order asked
}

// pipesAhead holds the slot's next run's pipes.
type pipesAhead struct {
	mu     sync.Mutex
	set    *pipeSet
	closed bool
}

// take hands the next run the pipes made for it, or nil.
func (pa *pipesAhead) take() *pipeSet {
	pa.mu.Lock()
	defer pa.mu.Unlock()
	set := pa.set
	pa.set = nil
	return set
}

// make makes the next run's pipes, unless they are there already.
func (pa *pipesAhead) make() {
	pa.mu.Lock()
	ready := pa.set != nil || pa.closed
	pa.mu.Unlock()
	if ready {
		return
	}
	set, err := newPipeSet()
	if err != nil {
		return // the next run makes its own, and reports the error
	}
	pa.mu.Lock()
	defer pa.mu.Unlock()
	if pa.set != nil || pa.closed {
		set.close()
		return
	}
	pa.set = set
}

// close drops the pipes made ahead (Slot.Release, after the teardowns,
// which make them); none is made afterwards.
func (pa *pipesAhead) close() {
	pa.mu.Lock()
	defer pa.mu.Unlock()
	pa.closed = true
	if pa.set != nil {
		pa.set.close()
		pa.set = nil
	}
}

func newPipeSet() (*pipeSet, error) {
	set := &pipeSet{}
	var err error
	if set.req.child, set.req.parent, err = pipeToChild(); err != nil {
		return nil, err
	}
	if set.status.parent, set.status.child, err = statusPipe(); err != nil {
		set.close()
		return nil, err
	}
	for range 2 {
		var p pipePair
		if p.parent, p.child, err = pipeFromChild(); err != nil {
			set.close()
			return nil, err
		}
		set.out = append(set.out, p)
	}
	return set, nil
}

// close closes whatever the set still holds.
func (set *pipeSet) close() {
	for _, p := range append([]pipePair{set.req, set.status}, set.out...) {
		if p.child != nil {
			p.child.Close()
			p.parent.Close()
		}
	}
	set.req, set.status, set.out = pipePair{}, pipePair{}, nil
}

// outPipe is a pipe for an output of the run: one made ahead if the set
// still has one, else a new one.
func (set *pipeSet) outPipe() (parent, child *os.File, err error) {
	if set != nil && len(set.out) > 0 {
		p := set.out[0]
		set.out = set.out[1:]
		return p.parent, p.child, nil
	}
	return pipeFromChild()
}
