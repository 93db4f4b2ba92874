package cgroup_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/kernel"
	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox/cgroup"
)

func TestMain(m *testing.M) { testguard.Main(m) }

func needRoot(t testing.TB) {
	if os.Geteuid() != 0 {
		t.Skipf("creating cgroups needs root here (uid %d)", os.Geteuid())
	}
}

// startIn starts a trusted test program (not hostile) blocked on stdin
// and moves it into g; writing a line to the pipe (release) lets it run.
func startIn(t *testing.T, g cgroup.Group, bin string, args ...string) (*exec.Cmd, func()) {
	t.Helper()
	// sh reads one line before exec'ing the program: it is in the group
	// before the program starts.
	cmd := exec.Command("/bin/sh", append([]string{"-c", `read x; exec "$0" "$@"`, bin}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.AddProc(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	return cmd, func() {
		in.Write([]byte("go\n"))
		in.Close()
	}
}

// runIn runs a trusted test program in g to its end. It returns the CPU
// time the kernel counted for the process itself (rusage), what the group
// must account for it.
func runIn(t *testing.T, g cgroup.Group, bin string, args ...string) time.Duration {
	t.Helper()
	cmd, release := startIn(t, g, bin, args...)
	release()
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

// openV1 opens the v1 hierarchy (skipping without one), whose memory,
// pids and CPU controllers must be usable.
func openV1(t *testing.T) cgroup.Manager {
	t.Helper()
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
	return m
}

func TestV1Group(t *testing.T) {
	needRoot(t)
	m := openV1(t)
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

var keptSpec = cgroup.Spec{MemoryBytes: 128 << 20, Pids: 8}

// keep makes a kept group for a test, removed at its end. On cgroup v2
// with a memory controller, a kernel before 6.12 cannot reset a peak:
// Keep must say so (ErrNotReusable, what the test then checked), and keep
// returns nil.
func keep(t *testing.T, m cgroup.Manager, name string, spec cgroup.Spec) cgroup.Kept {
	t.Helper()
	g, err := m.Keep(name, spec)
	v2mem := m.Version() == cgroup.V2 && m.Controllers().Usable(cgroup.Memory)
	if v2mem && !kernelAtLeast(t, 6, 12) {
		if !errors.Is(err, cgroup.ErrNotReusable) {
			t.Fatalf("Keep on cgroup v2 before Linux 6.12 (no memory.peak reset): %v, want ErrNotReusable", err)
		}
		t.Logf("kept groups are not reusable on this kernel, as Keep says: %v", err)
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Delete() })
	return g
}

func kernelAtLeast(t *testing.T, major, minor int) bool {
	ok, _, err := kernel.AtLeast(major, minor)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func stats(t *testing.T, g cgroup.Group) cgroup.Stats {
	t.Helper()
	st, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func reset(t *testing.T, g cgroup.Kept, spec cgroup.Spec) {
	t.Helper()
	if err := g.Reset(spec); err != nil {
		t.Fatal(err)
	}
}

// bigRun runs 200 ms of CPU and, with memory, touches 64 MiB in g: what
// the next run of a reset group must not see.
func bigRun(t *testing.T, g cgroup.Group, mem bool) {
	t.Helper()
	used := runIn(t, g, testprog.C(t, "../testdata/progs/busy.c"), "200")
	if mem {
		used += runIn(t, g, testprog.C(t, "testdata/touchn.c"), "64")
	}
	st := stats(t, g)
	checkCPU(t, st.CPU, used)
	if mem && st.MemoryPeak < 64<<20 {
		t.Errorf("first run: memory peak %d KiB, want 64 MiB or more", st.MemoryPeak>>10)
	}
}

// checkSmallRun runs a program that touches 1 MiB and burns next to no
// CPU in g, which was reset after a bigger run: its Stats must be this
// run's alone, the peak within ResidualMax of the same run's in a fresh
// group.
func checkSmallRun(t *testing.T, m cgroup.Manager, g cgroup.Group) {
	t.Helper()
	touch := testprog.C(t, "testdata/touchn.c")
	used := runIn(t, g, touch, "1")
	st := stats(t, g)
	if st.CPU > used+scaled(20*time.Millisecond) || st.User+st.System > st.CPU+time.Millisecond {
		t.Errorf("CPU %v (user %v, system %v) after the reset, want this run's %v: the earlier run's counted", st.CPU, st.User, st.System, used)
	}
	if st.OOMKills != 0 {
		t.Errorf("OOM kills %d after the reset: the earlier run's counted", st.OOMKills)
	}
	if !m.Controllers().Usable(cgroup.Memory) {
		return
	}
	fresh, err := m.New("test-fresh", keptSpec)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Delete()
	runIn(t, fresh, touch, "1")
	want := stats(t, fresh).MemoryPeak
	if st.MemoryPeak < 1<<20 || st.MemoryPeak > want+cgroup.ResidualMax {
		t.Errorf("memory peak %d KiB after the reset, want 1 MiB or more and at most %d KiB (a fresh group's %d KiB + ResidualMax)",
			st.MemoryPeak>>10, (want+cgroup.ResidualMax)>>10, want>>10)
	}
	t.Logf("peak %d KiB kept, %d KiB fresh; CPU %v kept, %v the process's", st.MemoryPeak>>10, want>>10, st.CPU, used)
}

// A kept group, reset after a run of 64 MiB and 200 ms of CPU, reports
// only the next run's 1 MiB and few milliseconds.
func TestV1KeptResets(t *testing.T) {
	needRoot(t)
	m := openV1(t)
	g := keep(t, m, "test-kept", keptSpec)
	bigRun(t, g, true)
	reset(t, g, keptSpec)
	checkSmallRun(t, m, g)
}

func TestV2KeptResets(t *testing.T) {
	needRoot(t)
	m, full := openV2(t)
	if !full {
		t.Logf("v2 without memory/pids controllers here: CPU counters only")
	}
	spec := cgroup.Spec{}
	if full {
		spec = keptSpec
	}
	g := keep(t, m, "test-kept", spec)
	if g == nil {
		return // Keep refused, as it must on this kernel
	}
	bigRun(t, g, full)
	reset(t, g, spec)
	checkSmallRun(t, m, g)
}

// After an OOM kill under a 32 MiB limit, Reset raises the limit (64 MiB
// then fits) and the next runs count no OOM kill.
func checkKeptOOM(t *testing.T, m cgroup.Manager) {
	touch := testprog.C(t, "testdata/touchn.c")
	g := keep(t, m, "test-kept-oom", cgroup.Spec{MemoryBytes: 32 << 20, Pids: 8})
	if g == nil {
		return // Keep refused, as it must on this kernel
	}
	cmd, release := startIn(t, g, touch, "64")
	release()
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("64 MiB under a 32 MiB limit: %v, want killed", err)
	}
	if st := stats(t, g); st.OOMKills == 0 {
		t.Fatalf("the OOM kill was not counted: %+v", st)
	}
	reset(t, g, keptSpec)
	runIn(t, g, touch, "64") // fails unless the new limit is in force
	if st := stats(t, g); st.OOMKills != 0 || st.MemoryPeak < 64<<20 {
		t.Errorf("after the reset: %d OOM kills, peak %d KiB; want 0 and 64 MiB or more", st.OOMKills, st.MemoryPeak>>10)
	}
	reset(t, g, keptSpec)
	checkSmallRun(t, m, g)
}

func TestV1KeptAfterOOM(t *testing.T) {
	needRoot(t)
	checkKeptOOM(t, openV1(t))
}

func TestV2KeptAfterOOM(t *testing.T) {
	needRoot(t)
	m, full := openV2(t)
	if !full {
		t.Skipf("this host's v2 hierarchy has no memory controller (pure v2: make test-cgroup2): %s", m.Controllers()[cgroup.Memory])
	}
	checkKeptOOM(t, m)
}

// Reset refuses while a process is in the group, and works once it ended.
func TestKeptRefusesProcesses(t *testing.T) {
	needRoot(t)
	m := openV1(t)
	g := keep(t, m, "test-kept-busy", keptSpec)
	cmd, release := startIn(t, g, "/bin/true")
	err := g.Reset(keptSpec)
	release()
	if werr := cmd.Wait(); werr != nil {
		t.Fatal(werr)
	}
	if !errors.Is(err, cgroup.ErrNotEmpty) {
		t.Fatalf("Reset with a process in the group: %v, want ErrNotEmpty", err)
	}
	reset(t, g, keptSpec)
}

// A run that leaves page cache charged to the group (a file it wrote)
// makes it not reusable: the next run's peak would start there. Keep then
// replaces the leftover with a new group, which counts afresh.
func TestKeptChargedNotReusable(t *testing.T) {
	needRoot(t)
	m := openV1(t)
	g := keep(t, m, "test-kept-charged", keptSpec)
	file := filepath.Join(t.TempDir(), "f")
	runIn(t, g, "/bin/sh", "-c", `head -c 8388608 /dev/zero >"$1"`, "sh", file)
	err := g.Reset(keptSpec)
	if !errors.Is(err, cgroup.ErrNotReusable) {
		t.Fatalf("Reset with 8 MiB of page cache charged: %v, want ErrNotReusable", err)
	}
	g2 := keep(t, m, "test-kept-charged", keptSpec)
	checkSmallRun(t, m, g2)
	os.Remove(file)
}

// A group left by an earlier process (a worker that crashed) under the
// name is taken over and counts afresh.
func TestKeepTakesOverLeftover(t *testing.T) {
	needRoot(t)
	m := openV1(t)
	keep(t, m, "test-kept-left", cgroup.Spec{MemoryBytes: 64 << 20})
	old, err := m.Keep("test-kept-left", keptSpec) // the leftover, dirtied
	if err != nil {
		t.Fatal(err)
	}
	bigRun(t, old, true)
	g := keep(t, m, "test-kept-left", keptSpec)
	checkSmallRun(t, m, g)
}

// A kept group pinned for one run and not for the next: the second run's
// process keeps every CPU.
func TestKeptPinThenNot(t *testing.T) {
	needRoot(t)
	m := openV1(t)
	if !m.Controllers().Usable(cgroup.Cpuset) {
		t.Skipf("no cpuset controller: %s", m.Controllers()[cgroup.Cpuset])
	}
	all := allowedCPUs(t, nil)
	if all == "0" {
		t.Skip("this process may use CPU 0 alone: pinned and not cannot be told apart")
	}
	pinned := keptSpec
	pinned.CPUs = "0"
	g := keep(t, m, "test-kept-pin", pinned)
	for _, c := range []struct {
		spec cgroup.Spec
		want string
	}{{pinned, "0"}, {keptSpec, all}, {pinned, "0"}} {
		reset(t, g, c.spec)
		if got := allowedCPUs(t, g); got != c.want {
			t.Errorf("CPUs %q: the run may use %s, want %s", c.spec.CPUs, got, c.want)
		}
		if got := joinedCPUs(t, g); got != c.want {
			t.Errorf("CPUs %q: a run that joins through JoinFiles may use %s, want %s", c.spec.CPUs, got, c.want)
		}
	}
}

// joinedCPUs are the CPUs a process may use once it has joined g itself,
// through the files of JoinFiles, as the sandbox's target does.
func joinedCPUs(t *testing.T, g cgroup.Group) string {
	files, join := joinScript(t, g)
	script := join + "grep Cpus_allowed_list /proc/self/status"
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.ExtraFiles = files
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return strings.TrimSpace(strings.TrimPrefix(string(out), "Cpus_allowed_list:"))
}

// joinScript opens g's JoinFiles (closed when the test ends) and returns
// them with the start of a shell script that, given them from fd 3 on,
// writes "0" to each: the shell joins g as the sandbox's target does.
func joinScript(t *testing.T, g cgroup.Group) ([]*os.File, string) {
	files, err := cgroup.JoinFiles(g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range files {
			f.Close()
		}
	})
	var script strings.Builder
	for i := range files {
		fmt.Fprintf(&script, "echo 0 >&%d && ", 3+i)
	}
	return files, script.String()
}

// allowedCPUs are the CPUs a process in g may use (g nil: this process's).
func allowedCPUs(t *testing.T, g cgroup.Group) string {
	out := filepath.Join(t.TempDir(), "status")
	script := `grep Cpus_allowed_list /proc/self/status >"$1"`
	if g == nil {
		if err := exec.Command("/bin/sh", "-c", script, "sh", out).Run(); err != nil {
			t.Fatal(err)
		}
	} else {
		runIn(t, g, "/bin/sh", "-c", script, "sh", out)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(strings.TrimPrefix(string(b), "Cpus_allowed_list:"))
}

// A single-threaded process that writes "0" to each of JoinFiles' files
// is then in the group in every hierarchy, and the group lists it. On v1
// the files are `tasks`, which moves the writer without the kernel's
// global threadgroup lock (JoinFiles says why); on v2, cgroup.procs.
func TestJoinFilesV1(t *testing.T) { testJoinFiles(t, cgroup.V1, "tasks") }

func TestJoinFilesV2(t *testing.T) { testJoinFiles(t, cgroup.V2, "cgroup.procs") }

func testJoinFiles(t *testing.T, version cgroup.Version, file string) {
	needRoot(t)
	m, err := cgroup.Open(cgroup.Options{Version: version})
	if errors.Is(err, cgroup.ErrUnavailable) {
		t.Skipf("no cgroup %v hierarchy on this host: %v", version, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.New("test-join", keptSpec)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Delete()
	files, join := joinScript(t, g)
	for _, f := range files {
		if filepath.Base(f.Name()) != file {
			t.Errorf("join file %s, want %s", f.Name(), file)
		}
	}
	where := filepath.Join(t.TempDir(), "cgroup")
	script := join + `cat /proc/self/cgroup >"$1" && echo joined && read go`
	cmd := exec.Command("/bin/sh", "-c", script, "sh", where)
	cmd.ExtraFiles = files
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "joined\n" {
		t.Fatalf("the writer said %q (%v), want joined", line, err)
	}
	memberships, err := os.ReadFile(where)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := g.Procs()
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) != 1 || pids[0] != cmd.Process.Pid {
		t.Errorf("the group lists %v, want the writer %d", pids, cmd.Process.Pid)
	}
	if n := strings.Count(string(memberships), "/test-join\n"); n != len(files) {
		t.Errorf("the writer is in the group in %d hierarchies, want %d:\n%s", n, len(files), memberships)
	}
}
