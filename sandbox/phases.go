package sandbox

import "time"

// trace is the Sandbox's phase hook (Config.Trace), nil when none.
func (c *Cmd) trace() func(phase string, d time.Duration) { return c.Slot.sb.cfg.Trace }

// mark ends the step that began at the previous mark of this run and
// reports it to Config.Trace; with no hook it costs one test.
func (c *Cmd) mark(step string) {
	trace := c.trace()
	if trace == nil {
		return
	}
	s := c.state
	now := time.Now()
	if step != "" && !s.lastMark.IsZero() {
		trace(step, now.Sub(s.lastMark))
	}
	s.lastMark = now
}
