package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox/cgroup"
)

// Wait waits for the tree to end, measures it, classifies it and removes
// every trace of the run. The steps, in order: reap the helper (and learn
// when the target ended), stop the watchdogs, sweep leftovers, collect
// the output, measure, classify, settle the sandbox's own failures (copy
// the box back, clean up), and record the run. A run that ends with its
// target returns as soon as the target's status is in, and is torn down
// in the background (teardown.go).
func (c *Cmd) Wait() (*Result, error) {
	s := c.state
	if s == nil || s.process == nil {
		return nil, errors.New("sandbox: Cmd not started")
	}
	c.readStatusNow()
	if c.endsWithTarget() && c.waitTarget() {
		return c.waitEarly()
	}
	ps, wall, werr := c.reap()
	if ps != nil {
		c.netSettled()
	}
	c.stopWatchdogs()
	res := &Result{WallTime: wall, Started: s.start, Ended: s.start.Add(wall)}
	if ps == nil {
		res.Status, res.Source, res.Error = SE, SourceSandbox, "wait: "+fmt.Sprint(werr)
	}
	// Leftovers (only possible without a pid namespace: the helper's
	// death ends every process in it) are killed before the pipes can
	// close and the cgroup can go.
	if s.pgid {
		s.sweep()
	}
	c.collectOutput(res)
	var st cgroup.Stats
	var stErr error
	if s.group != nil {
		st, stErr = s.group.Stats()
	}
	c.mark("output and measurement")
	if ps != nil {
		ws := ps.Sys().(syscall.WaitStatus)
		if s.hasWS {
			ws = s.targetWS // the target's own status, as PID 1 saw it
		}
		c.measure(res, ws, ps, st, stErr)
		s.classify(res, st, s.diskPassed())
	}
	s.settle(res, stErr)
	c.mark("cleanup: cgroup, box")
	c.refillSpares()
	c.Slot.teardowns.start(c.makeAhead) // in the background, if the slot has room
	err := c.waitErr(res)
	s.debugRec.Status, s.debugRec.Source, s.debugRec.Error = string(res.Status), res.Source, res.Error
	c.Slot.sb.debug.write(s.debugRec)
	return res, err
}

// reap waits for the helper and returns the run's wall time: to the
// target's own end where PID 1 reported it, to the first kill for a run
// killed with its namespace, else to the helper's reaping.
func (c *Cmd) reap() (*os.ProcessState, time.Duration, error) {
	s := c.state
	ps, werr := s.process.Wait()
	reaped := time.Now()
	c.ended()
	wall := reaped.Sub(s.start)
	if s.records != nil {
		<-s.records // init has exited: its end of the pipe is closed
		if s.hasWS {
			wall = s.targetEnd.Sub(s.start)
		}
	}
	if trace := c.trace(); trace != nil && s.hasWS {
		trace("target: release to exit status", s.targetEnd.Sub(s.start))
		trace("teardown: exit status to reaped", reaped.Sub(s.targetEnd))
		s.lastMark = reaped
	}
	s.killMu.Lock()
	if !s.hasWS && !s.killedAt.IsZero() {
		// Killed with its namespace: it ended at the kill, not when the
		// teardown let Wait return (a pair's other side may notice the
		// end before that).
		wall = s.killedAt.Sub(s.start)
	}
	s.killMu.Unlock()
	return ps, wall, werr
}

// collectOutput waits for the copiers and keeps the output the Cmd had
// no writer for.
func (c *Cmd) collectOutput(res *Result) {
	s := c.state
	s.copiers.Wait()
	if s.stdout != nil {
		res.Stdout = s.stdout.buf.Bytes()
	}
	if s.stderr != nil {
		res.Stderr, res.StderrDropped = s.stderr.buf.Bytes(), s.stderr.dropped
	}
}

// measure fills in how the target ended (ws) and what it cost: the
// cgroup's figures, or without one the rusage of the reaped helper, ps.
func (c *Cmd) measure(res *Result, ws syscall.WaitStatus, ps *os.ProcessState, st cgroup.Stats, stErr error) {
	s := c.state
	res.ExitCode = ws.ExitStatus()
	if ws.Signaled() {
		res.Signal = int(ws.Signal())
		res.ExitCode = 0
	}
	if s.group != nil && stErr == nil {
		res.CPUTime, res.UserTime, res.SysTime, res.Memory = st.CPU, st.User, st.System, st.MemoryPeak
		return
	}
	if ps == nil {
		return // the cgroup's figures failed: settleRun makes the run SE
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		// No cgroup: rusage of the direct child only (includes the
		// helper's pre-exec memory; reported as a missing layer).
		res.UserTime = time.Duration(ru.Utime.Nano())
		res.SysTime = time.Duration(ru.Stime.Nano())
		res.CPUTime = res.UserTime + res.SysTime
		res.Memory = ru.Maxrss << 10
	}
}

// settle makes the sandbox's own failures the result, SE: the helper's
// exec failure over anything, then the first of a failed measurement, the
// box's copy back and the cleanup (which always runs).
func (s *runState) settle(res *Result, stErr error) {
	s.settleRun(res, stErr)
	if err := s.cleanup(); err != nil && res.Status != SE {
		res.Status, res.Source, res.Error = SE, SourceSandbox, err.Error()
	}
}

// settleRun is settle without the cleanup: what a run's own failures
// make of its result.
func (s *runState) settleRun(res *Result, stErr error) {
	if msg := s.setupErr; msg != "" {
		res.Status, res.Source, res.Error = SE, SourceSandbox, msg
		res.ExitCode, res.Signal = 0, 0
	}
	if stErr != nil && res.Status != SE {
		res.Status, res.Source, res.Error = SE, SourceSandbox, "cgroup stats: "+stErr.Error()
	}
	if err := s.copyBack(res); err != nil && res.Status != SE {
		res.Status, res.Source, res.Error = SE, SourceSandbox, err.Error()
	}
}

// classify applies the precedence of limits: a kill docket ordered first
// (it happened first), then the kernel's OOM kill, the writable space
// found past its limit after the run (ENOSPC may have made the program
// fail or stop early: the cause is the disk), CPU time over the limit
// (the rlimit backstop, or a run that finished just over it), file size,
// seccomp, other signals, the exit code.
func (s *runState) classify(res *Result, st cgroup.Stats, diskPassed bool) {
	s.killMu.Lock()
	killed, src := s.killed, s.killSrc
	s.killMu.Unlock()
	switch {
	case killed != "":
		res.Status, res.Source = killed, src
	case st.OOMKills > 0:
		res.Status, res.Source = MLE, SourceMemory
	case diskPassed:
		res.Status, res.Source = OLE, SourceDisk
	case res.CPUTime > s.lim.CPUTime:
		res.Status, res.Source = TLE, SourceCPU
	case res.Signal == int(syscall.SIGXFSZ):
		res.Status, res.Source = OLE, SourceFileSize
	case res.Signal == int(syscall.SIGSYS):
		res.Status, res.Source = RE, SourceSeccomp
	case res.Signal == int(syscall.SIGKILL) && s.group != nil && st.MemoryPeak >= s.lim.Memory:
		res.Status, res.Source = MLE, SourceMemory
	case res.Signal != 0:
		res.Status, res.Source = RE, SourceSignal
	case res.ExitCode != 0:
		res.Status, res.Source = RE, SourceExitCode
	default:
		res.Status = OK
	}
}

// diskPassed reports whether the run ended past its disk limit.
func (s *runState) diskPassed() bool {
	if s.space == nil {
		return false
	}
	over, err := s.space.passed()
	return err == nil && over
}

// copyBack brings the box's changes back to Cmd.Box, unless the run
// passed its disk limit: then nothing of what it wrote remains.
func (s *runState) copyBack(res *Result) error {
	if s.space == nil || s.space.host == "" || (res.Status == OLE && res.Source == SourceDisk) {
		return nil
	}
	return s.space.copyBack(s.start)
}

// sweep kills whatever is still in the run's cgroup. Everything there was
// started by this run, so killing it never touches a foreign process.
func (s *runState) sweep() {
	if s.group == nil {
		return
	}
	for i := 0; i < 200; i++ {
		pids, err := s.group.Procs()
		if err != nil || len(pids) == 0 {
			return
		}
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// cleanup gives the slot's kept cgroup back (or removes the run's own)
// and removes the temporary box.
func (s *runState) cleanup() error {
	var errs []string
	for _, cl := range s.closers {
		cl.Close()
	}
	s.closers = nil
	// A kept group with no process left goes back to the slot, after the
	// space: what the run wrote there is charged to the group until then.
	keep := s.keptEmpty()
	if s.group != nil && !keep {
		var err error
		for i := 0; i < 100; i++ {
			if err = s.group.Delete(); err == nil {
				break
			}
			s.sweep()
			time.Sleep(time.Millisecond)
		}
		if err != nil {
			errs = append(errs, "remove cgroup: "+err.Error())
		}
	}
	if s.space != nil {
		s.space.close()
		s.space = nil
	}
	if s.tmpBox != "" {
		if err := os.RemoveAll(s.tmpBox); err != nil {
			errs = append(errs, "remove box: "+err.Error())
		}
		s.tmpBox = ""
	}
	s.releaseKept(keep)
	s.group = nil
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}
