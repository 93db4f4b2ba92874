// Package rlimit describes the resource limits of a sandboxed run. The
// parent computes them; the sandbox helper applies them to itself in C
// (sandbox/nsinit/rlimit.c) just before execve, so the target inherits
// them.
//
// It must not import any other package of docket's.
package rlimit

import (
	"time"

	"golang.org/x/sys/unix"
)

// Limit is one resource limit. Soft always equals hard for RLIMIT_CPU: a
// target that is PID 1 of its namespace ignores SIGXCPU, so only the hard
// limit's SIGKILL stops it.
type Limit struct {
	Resource int    `json:"r"`
	Cur      uint64 `json:"c"`
	Max      uint64 `json:"m"`
}

// Set describes the limits of one run; zero values mean "no limit" except
// where noted.
type Set struct {
	CPU          time.Duration // hard stop: rounded up to the next second, plus one
	AddressSpace int64
	Stack        int64
	FileSize     int64 // largest file the target may write
	OpenFiles    int   // 0: 64
	// Processes bounds RLIMIT_NPROC; only used when no pids cgroup exists
	// (the limit counts every process of the uid, so it is a fallback).
	Processes int
}

// SigPending is RLIMIT_SIGPENDING of every run: the signals with data
// (realtime signals, POSIX timers) the run's uid may have queued at once.
// Standard signals are never refused by it (one of each is pending at
// most, and the kernel delivers it past the limit), and queued signals
// are charged to the run's memory cgroup; the bound only stops a queue
// flood, far above what any judged program queues.
const SigPending = 1024

// Limits converts s to the list the helper applies: every resource the
// kernel has, each with an explicit value, so nothing of the worker's own
// limits reaches a run (a worker started under ulimit -v or systemd's
// LimitAS= would otherwise pass its address-space limit on to every run,
// and a JavaScript submission times out under it). Soft equals hard.
//
//   - CPU, FSIZE, STACK, AS, NOFILE, NPROC: from s; "no limit" is
//     RLIM_INFINITY, not the worker's value.
//   - CORE, MEMLOCK, MSGQUEUE: 0 (no core dumps in the box, no locked
//     memory, no POSIX message queues: a run needs none of them).
//   - NICE, RTPRIO: 0, the unprivileged default: a run can neither raise
//     its priority nor take a realtime policy that starves the host.
//   - RTTIME: the CPU limit in microseconds, so a run that inherited a
//     realtime policy (a worker started under chrt) still stops.
//   - SIGPENDING: SigPending.
//   - DATA: infinity; memory is the cgroup's limit (and AS, when set).
//   - RSS, LOCKS: infinity; Linux enforces neither.
func (s Set) Limits() []Limit {
	lim := func(r int, v uint64) Limit { return Limit{Resource: r, Cur: v, Max: v} }
	orInf := func(v int64) uint64 {
		if v > 0 {
			return uint64(v)
		}
		return unix.RLIM_INFINITY
	}
	open := s.OpenFiles
	if open <= 0 {
		open = 64
	}
	cpu, rttime := uint64(unix.RLIM_INFINITY), uint64(unix.RLIM_INFINITY)
	if s.CPU > 0 {
		cpu = uint64((s.CPU+time.Second-1)/time.Second) + 1
		rttime = cpu * uint64(time.Second/time.Microsecond)
	}
	return []Limit{
		lim(unix.RLIMIT_CPU, cpu),
		lim(unix.RLIMIT_FSIZE, orInf(s.FileSize)),
		lim(unix.RLIMIT_DATA, unix.RLIM_INFINITY),
		lim(unix.RLIMIT_STACK, orInf(s.Stack)),
		lim(unix.RLIMIT_CORE, 0),
		lim(unix.RLIMIT_RSS, unix.RLIM_INFINITY),
		lim(unix.RLIMIT_NPROC, orInf(int64(s.Processes))),
		lim(unix.RLIMIT_NOFILE, uint64(open)),
		lim(unix.RLIMIT_MEMLOCK, 0),
		lim(unix.RLIMIT_AS, orInf(s.AddressSpace)),
		lim(unix.RLIMIT_LOCKS, unix.RLIM_INFINITY),
		lim(unix.RLIMIT_SIGPENDING, SigPending),
		lim(unix.RLIMIT_MSGQUEUE, 0),
		lim(unix.RLIMIT_NICE, 0),
		lim(unix.RLIMIT_RTPRIO, 0),
		lim(unix.RLIMIT_RTTIME, rttime),
	}
}

// Fit returns limits as the helper can apply them. The helper sets them
// before it drops root, but raising a hard limit above the worker's own
// still needs CAP_SYS_RESOURCE in the initial user namespace. A root
// worker that has it gets every value as asked. Any other worker (not
// root: the helper is root only in a user namespace; or root without the
// capability, as in a container with Docker's default capabilities) gets
// each value capped at its own hard limit, which it can always set: for
// such a worker, lifting its own hard limits is the operator's part.
func Fit(limits []Limit, root bool) []Limit { return OwnCeiling(root).Fit(limits) }

// Ceiling is what Fit caps limits at: nothing (nil) for a worker that may
// raise hard limits, else its own hard limit for each resource it could
// read. A worker's hard limits only ever go down, and docket never lowers
// its own: a Ceiling taken once, as the Sandbox opens, saves a run the
// capget and sixteen getrlimit calls. Should an operator lower one on
// the running worker (prlimit), the helper's setrlimit above it fails
// and the run ends as a system error that names the limit.
type Ceiling map[int]uint64

// OwnCeiling is this process's Ceiling now.
func OwnCeiling(root bool) Ceiling {
	if root && haveCapSysResource() {
		return nil
	}
	c := Ceiling{}
	for _, l := range (Set{}).Limits() { // every resource a run is given
		var own unix.Rlimit
		if unix.Getrlimit(l.Resource, &own) == nil {
			c[l.Resource] = own.Max
		}
	}
	return c
}

// Fit caps limits at the ceiling (a nil Ceiling caps nothing).
func (c Ceiling) Fit(limits []Limit) []Limit {
	if c == nil {
		return limits
	}
	return capAt(limits, func(r int) (uint64, bool) {
		m, ok := c[r]
		return m, ok
	})
}

// capAt lowers each limit to hardMax(resource) where that is known.
func capAt(limits []Limit, hardMax func(int) (uint64, bool)) []Limit {
	out := make([]Limit, len(limits))
	for i, l := range limits {
		if m, ok := hardMax(l.Resource); ok {
			l.Cur, l.Max = min(l.Cur, m), min(l.Max, m)
		}
		out[i] = l
	}
	return out
}

// haveCapSysResource reports whether this process has CAP_SYS_RESOURCE
// in its effective set.
func haveCapSysResource() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) != nil {
		return false
	}
	return data[unix.CAP_SYS_RESOURCE/32].Effective&(1<<(unix.CAP_SYS_RESOURCE%32)) != 0
}
