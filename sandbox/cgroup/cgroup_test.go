package cgroup_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox/cgroup"
)

func TestMain(m *testing.M) { testguard.Main(m) }

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("creating cgroups needs root here (uid %d)", os.Geteuid())
	}
}

// runIn starts a trusted test program (not hostile) blocked on stdin,
// moves it into g, then lets it run to the end. It returns the CPU time
// the kernel counted for the process itself (rusage), what the group
// must account for it.
func runIn(t *testing.T, g cgroup.Group, bin string, args ...string) time.Duration {
	t.Helper()
	cmd := exec.Command(bin, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// sh reads one line before exec'ing the program: it is in the group
	// before the program starts.
	cmd.Path = "/bin/sh"
	cmd.Args = append([]string{"sh", "-c", `read x; exec "$0" "$@"`, bin}, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.AddProc(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	in.Write([]byte("go\n"))
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// checkCPU: the group's CPU time is what its processes used (their own
// rusage, which includes the kernel's time to fault in touched memory,
// 0.1-0.2 s for 64 MiB on some virtual machines), within the accounting
// grain of both clocks and the shell's share before its exec.
func checkCPU(t *testing.T, got, used time.Duration) {
	t.Helper()
	if used < 200*time.Millisecond {
		t.Fatalf("the test programs used %v of CPU, want at least the 200ms busy loop", used)
	}
	// The processes' own count also holds sh's start before runIn moved
	// it into the group: a few ms here, tens under an emulated CPU.
	start := scaled(20 * time.Millisecond)
	if got < used*9/10-start || got > used*11/10+50*time.Millisecond {
		t.Errorf("group CPU %v, want the %v its processes used (±10%%, -%v for sh's start, +50ms)", got, used, start)
	}
}

// scaled stretches a duration by DOCKET_TEST_TIME_SCALE (a whole number,
// default 1), as the sandbox's tests do for make test-cgroup2's emulated
// guest.
func scaled(d time.Duration) time.Duration {
	n, err := strconv.Atoi(os.Getenv("DOCKET_TEST_TIME_SCALE"))
	if err != nil || n < 1 {
		return d
	}
	return d * time.Duration(n)
}

func TestV1Group(t *testing.T) {
	needRoot(t)
	m, err := cgroup.Open(cgroup.Options{Version: cgroup.V1})
	if errors.Is(err, cgroup.ErrUnavailable) {
		t.Skipf("no cgroup v1 hierarchy on this host: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{cgroup.Memory, cgroup.Pids, cgroup.CPU} {
		if !m.Controllers().Usable(c) {
			t.Fatalf("v1 controller %s unusable: %s", c, m.Controllers()[c])
		}
	}
	g, err := m.New("test-v1", cgroup.Spec{MemoryBytes: 128 << 20, Pids: 8})
	if err != nil {
		t.Fatal(err)
	}
	busy := testprog.C(t, "../testdata/progs/busy.c")
	touch := testprog.C(t, "../testdata/progs/touch64.c")
	used := runIn(t, g, busy, "200")
	used += runIn(t, g, touch)
	st, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	checkCPU(t, st.CPU, used)
	if st.MemoryPeak < 64<<20 || st.MemoryPeak > 80<<20 {
		t.Errorf("memory peak %d KiB, want 64-80 MiB", st.MemoryPeak>>10)
	}
	if st.OOMKills != 0 {
		t.Errorf("OOM kills %d", st.OOMKills)
	}
	if pids, _ := g.Procs(); len(pids) != 0 {
		t.Errorf("processes left: %v", pids)
	}
	if err := g.Delete(); err != nil {
		t.Fatal(err)
	}
}

// openV2 opens the v2 hierarchy (skipping without one) and reports
// whether its memory and pids controllers are usable; with
// DOCKET_TEST_REQUIRE_CGROUP2 (make test-cgroup2: a pure v2 host) they
// must be.
func openV2(t *testing.T) (cgroup.Manager, bool) {
	t.Helper()
	m, err := cgroup.Open(cgroup.Options{Version: cgroup.V2})
	if errors.Is(err, cgroup.ErrUnavailable) {
		t.Skipf("no cgroup v2 hierarchy on this host: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	avail := m.Controllers()
	full := avail.Usable(cgroup.Memory) && avail.Usable(cgroup.Pids)
	if !full && os.Getenv("DOCKET_TEST_REQUIRE_CGROUP2") != "" {
		t.Fatalf("DOCKET_TEST_REQUIRE_CGROUP2 is set but v2 memory/pids are unavailable: %v", map[string]string(avail))
	}
	return m, full
}

// On a host whose cgroup v2 hierarchy has the controllers, the full v2
// path runs; on a hybrid host (v1 controllers) the unified hierarchy has
// none, and the manager must say so while CPU accounting still works.
func TestV2Group(t *testing.T) {
	needRoot(t)
	m, full := openV2(t)
	avail := m.Controllers()
	if !full {
		for _, c := range []string{cgroup.Memory, cgroup.Pids} {
			if avail.Usable(c) {
				continue
			}
			if !strings.Contains(avail[c], "not enabled") && !strings.Contains(avail[c], "cannot enable") {
				t.Errorf("v2 %s unavailable without a reason: %q", c, avail[c])
			}
			t.Logf("v2 %s unavailable here: %s", c, avail[c])
		}
	}
	if !avail.Usable(cgroup.CPU) {
		t.Fatalf("v2 CPU accounting unavailable: %s", avail[cgroup.CPU])
	}
	spec := cgroup.Spec{}
	if full {
		spec = cgroup.Spec{MemoryBytes: 128 << 20, Pids: 8}
	}
	g, err := m.New("test-v2", spec)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Delete()
	used := runIn(t, g, testprog.C(t, "../testdata/progs/busy.c"), "200")
	if full {
		used += runIn(t, g, testprog.C(t, "../testdata/progs/touch64.c"))
	}
	st, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	checkCPU(t, st.CPU, used)
	if full && (st.MemoryPeak < 64<<20 || st.MemoryPeak > 80<<20) {
		t.Errorf("v2 memory peak %d KiB, want 64-80 MiB", st.MemoryPeak>>10)
	}
	if !full {
		t.Logf("v2 memory and pids limits not exercised: this host's v2 hierarchy (%s) has no memory/pids controllers", m.Parent())
	}
	if err := g.Delete(); err != nil {
		t.Fatal(err)
	}
	parent := strings.TrimPrefix(m.Parent(), "v2 ")
	if _, err := os.Stat(parent); err != nil {
		t.Errorf("the parent %s: %v", parent, err)
	}
	if _, err := os.Stat(filepath.Join(parent, "test-v2")); err == nil {
		t.Error("group directory left behind")
	}
}

// A second Manager in the same process (a worker's second Sandbox) gets
// the same parent and controllers as the first, which moved the process
// into its supervisor leaf on a host where docket's own cgroup held it:
// the second once derived its parent from the leaf, below it, where the
// leaf's processes forbid enabling any controller (seen on pure v2 only).
func TestV2SecondManager(t *testing.T) {
	needRoot(t)
	var parents []string
	for i := 0; i < 2; i++ {
		m, full := openV2(t)
		if !full && i == 0 {
			t.Skipf("this host's v2 hierarchy has no memory/pids controllers (pure v2: make test-cgroup2): %v", map[string]string(m.Controllers()))
		}
		if !full {
			t.Fatalf("manager 2: v2 memory/pids unavailable: %v", map[string]string(m.Controllers()))
		}
		parents = append(parents, m.Parent())
	}
	if parents[0] != parents[1] {
		t.Errorf("the second manager's parent %s differs from the first's %s", parents[1], parents[0])
	}
}

func TestInvalidNames(t *testing.T) {
	needRoot(t)
	m, err := cgroup.Open(cgroup.Options{})
	if err != nil {
		t.Skipf("no cgroups: %v", err)
	}
	for _, n := range []string{"", "a/b", "..", "."} {
		if _, err := m.New(n, cgroup.Spec{}); err == nil {
			t.Errorf("name %q accepted", n)
		}
	}
}
