package cgroup

import (
	"errors"
	"os"
	"testing"
)

// Before Linux 6.12 memory.peak is read-only: its open for writing fails
// or, for root, the write of a reset. Keep must then say the group cannot
// be reused. Any read-only cgroup file shows the refusal on any kernel.
func TestOpenPeakReadOnly(t *testing.T) {
	var file string
	for _, f := range []string{"/sys/fs/cgroup/cgroup.controllers", "/sys/fs/cgroup/unified/cgroup.controllers", "/sys/fs/cgroup/memory/memory.usage_in_bytes"} {
		if _, err := os.Stat(f); err == nil {
			file = f
			break
		}
	}
	if file == "" {
		t.Skip("no read-only cgroup file on this host")
	}
	fd, err := openPeak(file)
	if !errors.Is(err, ErrNotReusable) {
		t.Fatalf("openPeak(%s) = %d, %v; want ErrNotReusable", file, fd, err)
	}
	if _, err := openPeak(file + "-missing"); err == nil || errors.Is(err, ErrNotReusable) {
		t.Errorf("a missing file: %v, want an error other than ErrNotReusable", err)
	}
}

// A v2 group not made by Keep cannot be reset: its memory.peak is not
// held open, and a reset through another descriptor would not count.
func TestResetNotKept(t *testing.T) {
	g := &v2Group{m: &v2Manager{}, dir: t.TempDir(), hasMem: true, peak: -1}
	if err := g.Reset(Spec{}); !errors.Is(err, ErrNotReusable) {
		t.Fatalf("Reset of a group made by New: %v, want ErrNotReusable", err)
	}
}

func TestParseUint(t *testing.T) {
	for in, want := range map[string]uint64{"0\n": 0, "max\n": 0, "123456789\n": 123456789} {
		if got, err := parseUint([]byte(in)); err != nil || got != want {
			t.Errorf("parseUint(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseUint([]byte("x")); err == nil {
		t.Error("parseUint(x) accepted")
	}
}
