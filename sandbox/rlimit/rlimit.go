// Package rlimit describes and applies the resource limits of a sandboxed
// run. The parent computes them; the sandbox helper applies them to itself
// just before execve, so the target inherits them.
//
// Apply only runs in the pure-Go helper of builds without cgo; the normal,
// cgo build applies the limits in C (sandbox/nsinit/rlimit.c, with the same
// messages, so Name and it must change together).
package rlimit

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Limit is one resource limit. Soft always equals hard for RLIMIT_CPU: a
// target that is PID 1 of its namespace ignores SIGXCPU, so only the hard
// limit's SIGKILL stops it (shared/notes/dependencies.md §7.1).
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

// Limits converts s to the list the helper applies. Core dumps, locked
// memory and POSIX message queues are always 0.
func (s Set) Limits() []Limit {
	lim := func(r int, v uint64) Limit { return Limit{Resource: r, Cur: v, Max: v} }
	open := s.OpenFiles
	if open <= 0 {
		open = 64
	}
	out := []Limit{
		lim(unix.RLIMIT_CORE, 0),
		lim(unix.RLIMIT_MEMLOCK, 0),
		lim(unix.RLIMIT_MSGQUEUE, 0),
		lim(unix.RLIMIT_NOFILE, uint64(open)),
	}
	if s.CPU > 0 {
		secs := uint64((s.CPU + time.Second - 1) / time.Second)
		out = append(out, lim(unix.RLIMIT_CPU, secs+1))
	}
	if s.AddressSpace > 0 {
		out = append(out, lim(unix.RLIMIT_AS, uint64(s.AddressSpace)))
	}
	if s.Stack > 0 {
		out = append(out, lim(unix.RLIMIT_STACK, uint64(s.Stack)))
	} else {
		out = append(out, lim(unix.RLIMIT_STACK, unix.RLIM_INFINITY))
	}
	if s.FileSize > 0 {
		out = append(out, lim(unix.RLIMIT_FSIZE, uint64(s.FileSize)))
	}
	if s.Processes > 0 {
		out = append(out, lim(unix.RLIMIT_NPROC, uint64(s.Processes)))
	}
	return out
}

// Apply sets each limit on the calling process. It goes through
// unix.Setrlimit so that the Go runtime does not restore its saved
// RLIMIT_NOFILE at execve.
func Apply(limits []Limit) error {
	for _, l := range limits {
		if err := unix.Setrlimit(l.Resource, &unix.Rlimit{Cur: l.Cur, Max: l.Max}); err != nil {
			return fmt.Errorf("setrlimit %s: %w", Name(l.Resource), err)
		}
	}
	return nil
}

// Name is a limit's name for error messages and reports.
func Name(r int) string {
	switch r {
	case unix.RLIMIT_CPU:
		return "RLIMIT_CPU"
	case unix.RLIMIT_AS:
		return "RLIMIT_AS"
	case unix.RLIMIT_STACK:
		return "RLIMIT_STACK"
	case unix.RLIMIT_FSIZE:
		return "RLIMIT_FSIZE"
	case unix.RLIMIT_NOFILE:
		return "RLIMIT_NOFILE"
	case unix.RLIMIT_CORE:
		return "RLIMIT_CORE"
	case unix.RLIMIT_MEMLOCK:
		return "RLIMIT_MEMLOCK"
	case unix.RLIMIT_MSGQUEUE:
		return "RLIMIT_MSGQUEUE"
	case unix.RLIMIT_NPROC:
		return "RLIMIT_NPROC"
	}
	return fmt.Sprintf("rlimit(%d)", r)
}
