package cgroup_test

import (
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox/cgroup"
)

// BenchmarkKeptVsNew compares, interleaved (the machine is shared and its
// speed swings), what a run's cgroup costs around the run: a fresh group
// (New, Stats, Delete) against a kept one (Reset, Stats, the Procs check
// before it is given back). No process runs: only the cgroup calls.
// kept/new is the ratio of the two.
func BenchmarkKeptVsNew(b *testing.B) {
	needRoot(b)
	m, err := cgroup.Open(cgroup.Options{})
	if err != nil {
		b.Skipf("no cgroups: %v", err)
	}
	spec := cgroup.Spec{MemoryBytes: 256 << 20, Pids: 64}
	k, err := m.Keep("bench-kept", spec)
	if err != nil {
		b.Skipf("kept groups unavailable: %v", err)
	}
	defer k.Delete()
	var fresh, kept time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		g, err := m.New("bench-new", spec)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Stats(); err != nil {
			b.Fatal(err)
		}
		if err := g.Delete(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := k.Reset(spec); err != nil {
			b.Fatal(err)
		}
		if _, err := k.Stats(); err != nil {
			b.Fatal(err)
		}
		if _, err := k.Procs(); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		fresh, kept = fresh+t1.Sub(t0), kept+t2.Sub(t1)
	}
	b.ReportMetric(float64(fresh.Microseconds())/float64(b.N), "new-us/op")
	b.ReportMetric(float64(kept.Microseconds())/float64(b.N), "kept-us/op")
	b.ReportMetric(float64(kept)/float64(fresh), "kept/new")
}
