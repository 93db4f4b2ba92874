package sandbox

import (
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox/cgroup"
)

// armWatchdogs starts what ends a run at a limit: the wall clock, the
// CPU time (the rlimit is only a backstop), the writable space and the
// context. Wait stops them (endWatchdogs); the teardown waits for them
// (watchers) before the cgroup and the space go.
func (c *Cmd) armWatchdogs() {
	s := c.state
	s.timer = time.AfterFunc(s.lim.WallTime, func() { c.kill(TLE, SourceWall) })
	s.refillAt = time.AfterFunc(refillDuring, s.refill)
	if s.group != nil && c.caps().cgroups.Usable(cgroup.CPU) {
		s.pollers = append(s.pollers, c.watchCPU(s.group))
	}
	if s.space != nil {
		s.pollers = append(s.pollers, c.watchDisk(s.space))
	}
	c.watchContext()
}

// stopWatchdogs ends them once the run is over: after it, nothing but
// Wait uses the run's state.
func (c *Cmd) stopWatchdogs() {
	c.endWatchdogs()
	c.state.watchers.Wait()
}

// endWatchdogs tells them the run is over. The pollers end on their own
// soon after; whatever they still decide, Wait decides again from the
// cgroup and the space (classify). Waiting for them is a wakeup of each:
// a run that ends with its target leaves it to its teardown, which does
// it before the cgroup and the space go.
func (c *Cmd) endWatchdogs() {
	s := c.state
	for _, p := range s.pollers {
		p.stop()
	}
	if s.stopContext != nil {
		s.stopContext()
	}
	s.timer.Stop()
	s.refillAt.Stop()
}

// refillDuring is how long a run goes on before the zygote forks the
// spare that replaces the one it took; a shorter run has it done as it
// ends (refillSpares).
const refillDuring = 10 * time.Millisecond

// refillSpares has the zygote fork the spare helper that replaces the
// one this run took, once the run is over, not as it starts: the fork
// and the new helper's setup (a copy of the template's mount table, its
// /proc) would compete with the target for the CPU and the kernel's
// locks. Two spares wait per template, so the next run takes the other.
func (c *Cmd) refillSpares() { c.state.refill() }

// diskPoll is how often a run's writable space is measured. A full space
// only refuses further writes; the poll ends the run soon after, as OLE.
const diskPoll = 20 * time.Millisecond

// watchDisk ends the run as OLE "disk" once it has passed its disk limit.
func (c *Cmd) watchDisk(sp *space) *poller {
	return startPoller(&c.state.watchers, diskPoll, func() (time.Duration, bool) {
		if over, err := sp.passed(); err == nil && over {
			c.kill(OLE, SourceDisk)
			return 0, false
		}
		return diskPoll, true
	})
}

// kill ends the whole tree and records why, once: the first limit hit is
// the one reported.
func (c *Cmd) kill(status Status, source string) {
	s := c.state
	s.killMu.Lock()
	if s.killed == "" {
		s.killed, s.killSrc, s.killedAt = status, source, time.Now()
	}
	s.killMu.Unlock()
	c.ended()
	c.killTree()
}

// ended runs the end hook, once.
func (c *Cmd) ended() {
	if c.onEnd != nil {
		c.state.endOnce.Do(c.onEnd)
	}
}

func (c *Cmd) killTree() {
	s := c.state
	if s.process == nil {
		return
	}
	// The helper is PID 1 of the run's namespace: its death kills every
	// process in it. Without a pid namespace, the process group and the
	// cgroup.
	s.process.Signal(syscall.SIGKILL)
	if s.pgid {
		syscall.Kill(-s.process.Pid, syscall.SIGKILL)
	}
}

// watchCPU polls the cgroup's CPU time, waiting as long as the remaining
// budget allows at full speed on every CPU, so a run is stopped within a
// few milliseconds of its limit with few reads; the first read comes when
// even a run that used every CPU from its start could have used the
// whole budget (nothing is read at the start, when nothing has been
// used). It gets the group as an argument: Wait's cleanup sets the run's
// group to nil, and a read of a removed group only fails.
func (c *Cmd) watchCPU(group cgroup.Group) *poller {
	limit := c.state.lim.CPUTime
	ncpu := time.Duration(ncpus())
	return startPoller(&c.state.watchers, cpuPoll(limit, ncpu), func() (time.Duration, bool) {
		used, err := group.CPUUsage()
		if err == nil && used > limit {
			c.kill(TLE, SourceCPU)
			return 0, false
		}
		return cpuPoll(limit-used, ncpu), true
	})
}

// cpuPoll is how long ncpu CPUs take to use left of CPU time, within
// 2 ms and 100 ms.
func cpuPoll(left, ncpu time.Duration) time.Duration {
	return min(max(left/ncpu, 2*time.Millisecond), 100*time.Millisecond)
}
