package sandbox

import (
	"sync"
	"time"
)

// A run whose target was its only process is over, for its caller, when
// PID 1 reports the target's wait status: the output pipes are closed,
// the cgroup holds no task any more (the helper never joins it) and its
// figures are final. Wait returns its Result then. The rest, reaping the
// helper (its exit tears down the run's namespaces), removing the cgroup
// and releasing the space, is the run's teardown: it goes on in the
// background, off the caller's path, and the slot keeps count. At most
// maxTeardowns run at once per slot; past that, Wait tears down itself.
// Release and Settle wait for them all.

// maxTeardowns bounds a slot's background teardowns.
const maxTeardowns = 4

type teardowns struct {
	wg  sync.WaitGroup
	sem chan struct{} // one token per teardown under way
}

func newTeardowns() teardowns { return teardowns{sem: make(chan struct{}, maxTeardowns)} }

// Settle waits until every run of the slot has been torn down: helpers
// reaped, cgroups removed, spaces released.
func (sl *Slot) Settle() { sl.teardowns.wg.Wait() }

// start runs fn in the background if the slot has room, else reports
// false: the caller runs it.
func (t *teardowns) start(fn func()) bool {
	select {
	case t.sem <- struct{}{}:
	default:
		return false
	}
	t.also(func() {
		defer func() { <-t.sem }()
		fn()
	})
	return true
}

// also runs fn in the background, counted with the teardowns (Settle waits
// for it) but never refused: for a short task each run has one of.
func (t *teardowns) also(fn func()) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		fn()
	}()
}

// endsWithTarget: the run's end is the target's, reported by PID 1 (a pid
// namespace, PID 1's records), and nothing else of the run can outlive it
// (a single process: seccomp refuses fork, its threads end with it) or
// spend what the cgroup measures.
func (c *Cmd) endsWithTarget() bool {
	s := c.state
	return s.records != nil && s.group != nil && !s.pgid && s.single
}

// waitTarget waits for the target's status, or for the end of PID 1's
// records without one (killed with its namespace, or PID 1 failed): then
// only reaping the helper tells how the run ended. It reports which.
func (c *Cmd) waitTarget() bool {
	s := c.state
	select {
	case <-s.gotStatus:
		return true
	case <-s.records:
		return s.hasWS
	}
}

// makeAhead has the slot make a space like this run's for its next run
// (space_ahead.go), and its pipes (pipes_ahead.go).
func (c *Cmd) makeAhead() {
	if c.Slot.sb.cfg.OneRun {
		return
	}
	if key := c.state.spaceKey; key != nil {
		c.Slot.ahead.make(*key)
	}
	c.Slot.pipes.make()
}

// makeAheadDuringRun has the slot make its next run's space and pipes
// while this run goes on, where nothing the run does can change the
// space's source: a space made from BoxFrom, with no host box to copy
// back. Begun only after the run, the make's goroutine started 70-300 µs
// later in a judge's one-at-a-time tests, and the next test, 140-260 µs
// after, made its own space on its path in about a test of four. The
// make after the run then finds the space ready and does nothing.
func (c *Cmd) makeAheadDuringRun() {
	if key := c.state.spaceKey; key != nil && key.host == "" && !c.Slot.sb.cfg.OneRun {
		c.Slot.teardowns.also(c.makeAhead)
	}
}

// netSettled has the slot check its network namespace for the next run
// now that this run is over with all its processes: its helper, PID 1 of
// its pid namespace, has been reaped, or (endsWithTarget) the target, its
// only process, has been, and PID 1 makes no socket (netns.go).
func (c *Cmd) netSettled() {
	if s := c.state; s.net != nil && !s.pgid {
		c.Slot.netSettled(s.net, s.netEntry)
	}
}

// waitEarly is Wait for a run that endsWithTarget and whose status came:
// the Result from the status and the cgroup, the teardown in the
// background.
func (c *Cmd) waitEarly() (*Result, error) {
	s := c.state
	// First of all, in the background: the slot's next run may come
	// soon, and a check of the network namespace left to it costs it
	// about 30 us. The run's only process has been reaped (by PID 1,
	// which reported its status).
	c.Slot.teardowns.also(c.netSettled)
	c.ended()
	wall := s.targetEnd.Sub(s.start)
	if trace := c.trace(); trace != nil {
		trace("target: release to exit status", wall)
		s.lastMark = time.Now()
	}
	c.endWatchdogs()
	res := &Result{WallTime: wall, Started: s.start, Ended: s.start.Add(wall)}
	c.collectOutput(res)
	st, stErr := s.group.Stats()
	c.mark("output and measurement")
	c.measure(res, s.targetWS, nil, st, stErr)
	s.classify(res, st, s.diskPassed())
	s.settleRun(res, stErr)
	// What the slot's next run needs before this one's teardown, in the
	// background only (never on this caller's path): its space, once a
	// host box has had what the run changed copied back, and its pipes.
	c.Slot.teardowns.start(c.makeAhead)
	teardown := func() {
		s.watchers.Wait() // they read the cgroup and the space
		s.process.Wait()
		if err := s.cleanup(); err != nil {
			s.debugRec.Error = "teardown: " + err.Error()
		}
		c.Slot.sb.debug.write(s.debugRec)
	}
	s.debugRec.Status, s.debugRec.Source, s.debugRec.Error = string(res.Status), res.Source, res.Error
	if !c.Slot.teardowns.start(teardown) {
		teardown()
	}
	c.mark("cleanup: cgroup, box")
	c.refillSpares()
	return res, c.waitErr(res)
}
