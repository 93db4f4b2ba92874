package rlimit

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const inf = unix.RLIM_INFINITY

// rlimNLimits is the kernel's RLIM_NLIMITS: resources 0..15.
const rlimNLimits = 16

func byResource(t *testing.T, limits []Limit) map[int]Limit {
	t.Helper()
	out := map[int]Limit{}
	for _, l := range limits {
		if _, dup := out[l.Resource]; dup {
			t.Errorf("%s set twice", name(l.Resource))
		}
		if l.Cur != l.Max {
			t.Errorf("%s: soft %d, hard %d", name(l.Resource), l.Cur, l.Max)
		}
		out[l.Resource] = l
	}
	return out
}

// Every resource gets a value, nothing is left to the worker's limits.
func TestLimitsEveryResource(t *testing.T) {
	got := byResource(t, Set{}.Limits())
	for r := 0; r < rlimNLimits; r++ {
		if _, ok := got[r]; !ok {
			t.Errorf("%s not set", name(r))
		}
		if strings.HasPrefix(name(r), "rlimit(") {
			t.Errorf("resource %d has no name", r)
		}
	}
	if len(got) != rlimNLimits {
		t.Errorf("%d limits, want %d", len(got), rlimNLimits)
	}
}

func TestLimitsValues(t *testing.T) {
	for _, c := range []struct {
		name string
		set  Set
		want map[int]uint64
	}{
		{"zero: no limit is infinity, never the worker's", Set{}, map[int]uint64{
			unix.RLIMIT_CPU: inf, unix.RLIMIT_FSIZE: inf, unix.RLIMIT_DATA: inf, unix.RLIMIT_STACK: inf,
			unix.RLIMIT_CORE: 0, unix.RLIMIT_RSS: inf, unix.RLIMIT_NPROC: inf, unix.RLIMIT_NOFILE: 64,
			unix.RLIMIT_MEMLOCK: 0, unix.RLIMIT_AS: inf, unix.RLIMIT_LOCKS: inf, unix.RLIMIT_SIGPENDING: SigPending,
			unix.RLIMIT_MSGQUEUE: 0, unix.RLIMIT_NICE: 0, unix.RLIMIT_RTPRIO: 0, unix.RLIMIT_RTTIME: inf,
		}},
		{"set", Set{CPU: 1500 * time.Millisecond, AddressSpace: 1 << 30, Stack: 8 << 20, FileSize: 1 << 20, OpenFiles: 10, Processes: 5},
			map[int]uint64{
				unix.RLIMIT_CPU: 3, unix.RLIMIT_RTTIME: 3000000, unix.RLIMIT_AS: 1 << 30, unix.RLIMIT_STACK: 8 << 20,
				unix.RLIMIT_FSIZE: 1 << 20, unix.RLIMIT_NOFILE: 10, unix.RLIMIT_NPROC: 5, unix.RLIMIT_DATA: inf,
			}},
	} {
		got := byResource(t, c.set.Limits())
		for r, want := range c.want {
			if got[r].Max != want {
				t.Errorf("%s: %s = %d, want %d", c.name, name(r), got[r].Max, want)
			}
		}
	}
}

// Where the worker may not raise a hard limit, each value is capped at
// its hard limit; unknown hard limits leave the value as asked.
func TestCapAt(t *testing.T) {
	in := []Limit{
		{Resource: unix.RLIMIT_AS, Cur: inf, Max: inf},
		{Resource: unix.RLIMIT_NOFILE, Cur: 64, Max: 64},
		{Resource: unix.RLIMIT_CORE, Cur: 0, Max: 0},
		{Resource: unix.RLIMIT_NPROC, Cur: inf, Max: inf},
	}
	hard := map[int]uint64{unix.RLIMIT_AS: 4 << 30, unix.RLIMIT_NOFILE: 1 << 20, unix.RLIMIT_CORE: 1 << 20}
	got := capAt(in, func(r int) (uint64, bool) { v, ok := hard[r]; return v, ok })
	want := []uint64{4 << 30, 64, 0, inf}
	for i, l := range got {
		if l.Cur != want[i] || l.Max != want[i] {
			t.Errorf("%s: %d/%d, want %d", name(l.Resource), l.Cur, l.Max, want[i])
		}
	}
	if in[0].Max != inf {
		t.Error("capAt changed its input")
	}
}

// Fit for a worker that is not root never asks for more than its own
// hard limits, which setrlimit would refuse.
func TestFitUnprivileged(t *testing.T) {
	for _, l := range Fit(Set{}.Limits(), false) {
		var own unix.Rlimit
		if err := unix.Getrlimit(l.Resource, &own); err != nil {
			t.Fatal(err)
		}
		if l.Max > own.Max {
			t.Errorf("%s: %d above this process's hard limit %d", name(l.Resource), l.Max, own.Max)
		}
	}
}

// name is a limit's name for the tests' messages.
func name(r int) string {
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
	case unix.RLIMIT_DATA:
		return "RLIMIT_DATA"
	case unix.RLIMIT_RSS:
		return "RLIMIT_RSS"
	case unix.RLIMIT_LOCKS:
		return "RLIMIT_LOCKS"
	case unix.RLIMIT_SIGPENDING:
		return "RLIMIT_SIGPENDING"
	case unix.RLIMIT_NICE:
		return "RLIMIT_NICE"
	case unix.RLIMIT_RTPRIO:
		return "RLIMIT_RTPRIO"
	case unix.RLIMIT_RTTIME:
		return "RLIMIT_RTTIME"
	}
	return fmt.Sprintf("rlimit(%d)", r)
}

// A Ceiling holds this process's hard limit for every resource a run is
// given, and caps at it what it has; a nil one caps nothing.
func TestCeiling(t *testing.T) {
	c := OwnCeiling(false)
	for _, l := range (Set{}).Limits() {
		var own unix.Rlimit
		if err := unix.Getrlimit(l.Resource, &own); err != nil {
			t.Fatal(err)
		}
		if got, ok := c[l.Resource]; !ok || got != own.Max {
			t.Errorf("%s: ceiling %d (%v), hard limit %d", name(l.Resource), got, ok, own.Max)
		}
	}
	asked := []Limit{{unix.RLIMIT_NOFILE, 64, 64}, {unix.RLIMIT_STACK, 8 << 20, 1 << 30}}
	got := Ceiling{unix.RLIMIT_NOFILE: 10}.Fit(asked)
	if got[0] != (Limit{unix.RLIMIT_NOFILE, 10, 10}) || got[1] != asked[1] {
		t.Errorf("capped at 10 open files: %+v", got)
	}
	if got := Ceiling(nil).Fit(asked); len(got) != 2 || got[0] != asked[0] || got[1] != asked[1] {
		t.Errorf("a nil ceiling changed %+v into %+v", asked, got)
	}
}
