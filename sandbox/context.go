package sandbox

import (
	"context"
	"errors"
	"fmt"
)

// ErrCanceled is the error of a run whose context ended before it did:
// the run was killed at once, whole tree, and its Result (Status SE,
// Source SourceCanceled) measures nothing the caller should judge. The
// error also wraps the context's cause (context.Canceled,
// context.DeadlineExceeded or the cancel cause), for errors.Is.
var ErrCanceled = errors.New("sandbox: run cancelled")

// SourceCanceled is the Source of a run its context ended.
const SourceCanceled = "cancelled"

// CommandContext is Command with a context, as exec.CommandContext: when
// ctx is done before the run ends, the whole sandboxed tree is killed at
// once (no grace: the target is not trusted to clean up), and Wait
// returns an error matching ErrCanceled and ctx's cause.
func (sl *Slot) CommandContext(ctx context.Context, name string, args ...string) *Cmd {
	if ctx == nil {
		panic("sandbox: CommandContext with a nil Context")
	}
	c := sl.Command(name, args...)
	c.ctx = ctx
	return c
}

// canceledErr is the error of a run that never started because its
// context had already ended, or that its context ended.
func (c *Cmd) canceledErr() error {
	return fmt.Errorf("%w: %w", ErrCanceled, context.Cause(c.ctx))
}

// startCanceled reports a context already done at Start: nothing is
// launched, as in os/exec.
func (c *Cmd) startCanceled() error {
	if c.ctx == nil || c.ctx.Err() == nil {
		return nil
	}
	return c.canceledErr()
}

// watchContext kills the run when its context ends first: a function
// the context calls then (context.AfterFunc), no goroutine meanwhile. It
// counts among the watchers, which the teardown waits for, from now until
// endWatchdogs stops it or, if the context ended first, until the kill
// has been made.
func (c *Cmd) watchContext() {
	if c.ctx == nil || c.ctx.Done() == nil {
		return
	}
	s := c.state
	s.watchers.Add(1)
	stop := context.AfterFunc(c.ctx, func() {
		defer s.watchers.Done()
		c.kill(SE, SourceCanceled)
	})
	s.stopContext = func() {
		if stop() {
			s.watchers.Done() // the kill was not begun and never will be
		}
	}
}

// waitErr is Wait's error for a run its context killed: set only when
// that kill was the first (a run already over its time limit keeps its
// TLE).
func (c *Cmd) waitErr(res *Result) error {
	s := c.state
	s.killMu.Lock()
	canceled := s.killSrc == SourceCanceled
	s.killMu.Unlock()
	if !canceled {
		return nil
	}
	err := c.canceledErr()
	res.Status, res.Source, res.Error = SE, SourceCanceled, err.Error()
	return err
}
