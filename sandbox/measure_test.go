package sandbox_test

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox"
)

func runProg(t *testing.T, sl *sandbox.Slot, bin string, lim sandbox.Limits, args ...string) *sandbox.Result {
	t.Helper()
	box := boxWith(t, sl, bin)
	name := bin[strings.LastIndex(bin, "/")+1:]
	name = name[:strings.LastIndex(name, "-")]
	cmd := sl.Command("./"+name, args...)
	cmd.Box = box
	cmd.Limits = lim
	res, err := cmd.Run()
	if err != nil {
		t.Fatalf("run %s: %v", name, err)
	}
	return res
}

// The CPU time of a ~1 s busy loop is within 5% of what the kernel
// reports for the same program outside the sandbox, on every run.
func TestCPUTimeMatchesKernel(t *testing.T) {
	sl := testSlot(t)
	busy := testprog.C(t, "testdata/progs/busy.c")
	// On a slow CPU the setup's share grows: a longer loop keeps it small.
	ms := strconv.Itoa(int(scaled(time.Second) / time.Millisecond))
	for i := 0; i < 3; i++ {
		res := runProg(t, sl, busy, sandbox.Limits{CPUTime: scaled(5 * time.Second)}, ms)
		if res.Status != sandbox.OK {
			t.Fatalf("busy loop: %s (%s) %s", res.Status, res.Source, res.Error)
		}
		plain := exec.Command(busy, ms)
		if err := plain.Run(); err != nil {
			t.Fatal(err)
		}
		ru := plain.ProcessState.SysUsage().(*syscall.Rusage)
		outside := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		ratio := float64(res.CPUTime) / float64(outside)
		t.Logf("run %d: sandbox %v, kernel rusage outside %v, ratio %.4f", i, res.CPUTime, outside, ratio)
		if ratio < 0.95 || ratio > 1.05 {
			t.Errorf("run %d: sandbox CPU %v vs kernel %v outside: off by more than 5%%", i, res.CPUTime, outside)
		}
	}
}

// Peak memory is the target's alone: an empty static program reports
// under 1 MiB, one that touches 64 MiB reports 64-66 MiB.
func TestMemoryPeak(t *testing.T) {
	sl := testSlot(t)
	empty := testprog.C(t, "testdata/progs/empty.c")
	touch := testprog.C(t, "testdata/progs/touch64.c")
	for i := 0; i < 3; i++ {
		res := runProg(t, sl, empty, sandbox.Limits{})
		if res.Status != sandbox.OK || res.Memory >= 1<<20 {
			t.Errorf("empty program: %s, %d KiB (want OK, < 1024 KiB)", res.Status, res.Memory>>10)
		}
		res = runProg(t, sl, touch, sandbox.Limits{})
		if res.Status != sandbox.OK || res.Memory < 64<<20 || res.Memory > 66<<20 {
			t.Errorf("64 MiB program: %s, %d KiB (want OK, 65536-67584 KiB)", res.Status, res.Memory>>10)
		}
		t.Logf("empty %d KiB, touch64 %d KiB", runProg(t, sl, empty, sandbox.Limits{}).Memory>>10, res.Memory>>10)
	}
}

// CPU-bound and sleeping programs end as TLE, each with its own source,
// soon after their limit.
func TestTimeLimits(t *testing.T) {
	sl := testSlot(t)
	spin := hostile(t, "spin")
	sleeper := hostile(t, "sleeper")
	res := runProg(t, sl, spin, sandbox.Limits{CPUTime: 300 * time.Millisecond, WallTime: 3 * time.Second})
	if res.Status != sandbox.TLE || res.Source != sandbox.SourceCPU {
		t.Errorf("spin: %s (%s), want TLE (cpu_time)", res.Status, res.Source)
	}
	if res.CPUTime < 300*time.Millisecond || res.CPUTime > 400*time.Millisecond {
		t.Errorf("spin was stopped at %v of CPU, want just above 300ms", res.CPUTime)
	}
	res = runProg(t, sl, sleeper, sandbox.Limits{CPUTime: 3 * time.Second, WallTime: 300 * time.Millisecond})
	if res.Status != sandbox.TLE || res.Source != sandbox.SourceWall {
		t.Errorf("sleeper: %s (%s), want TLE (wall_time)", res.Status, res.Source)
	}
	if res.WallTime < 300*time.Millisecond || res.WallTime > 500*time.Millisecond {
		t.Errorf("sleeper was stopped at %v of wall time, want just above 300ms", res.WallTime)
	}
}

// Nothing carries over from one run to the next in the same slot: peaks,
// OOM flags, files in /tmp.
func TestNoCarryOver(t *testing.T) {
	sl := testSlot(t)
	touch := testprog.C(t, "testdata/progs/touch64.c")
	empty := testprog.C(t, "testdata/progs/empty.c")
	membomb := hostile(t, "membomb")
	tmp := hostile(t, "tmpwrite")
	if r := runProg(t, sl, touch, sandbox.Limits{}); r.Memory < 64<<20 {
		t.Fatalf("touch64 reported %d KiB", r.Memory>>10)
	}
	if r := runProg(t, sl, empty, sandbox.Limits{}); r.Memory >= 1<<20 {
		t.Errorf("the previous run's peak carried over: %d KiB", r.Memory>>10)
	}
	if r := runProg(t, sl, membomb, sandbox.Limits{Memory: 32 << 20}); r.Status != sandbox.MLE {
		t.Fatalf("membomb: %s", r.Status)
	}
	if r := runProg(t, sl, empty, sandbox.Limits{Memory: 32 << 20}); r.Status != sandbox.OK {
		t.Errorf("the OOM flag carried over: %s (%s)", r.Status, r.Source)
	}
	if r := runProg(t, sl, tmp, sandbox.Limits{}, "write"); !strings.Contains(string(r.Stdout), "written") {
		t.Fatalf("tmpwrite write: %s %q", r.Status, r.Stdout)
	}
	if r := runProg(t, sl, tmp, sandbox.Limits{}, "read"); !strings.Contains(string(r.Stdout), "clean") {
		t.Errorf("a file in /tmp carried over: %q", r.Stdout)
	}
}

// Two sandboxed processes connected stdin<->stdout, each measured on its
// own, the second under the slot's trusted uid.
func TestConnectedPair(t *testing.T) { eachHelperPath(t, connectedPair) }

func connectedPair(t *testing.T, sl *sandbox.Slot) {
	bin := hostile(t, "pingpong")
	box := boxWith(t, sl, bin)
	a := sl.Command("./pingpong", "ping")
	b := sl.Command("./pingpong", "pong")
	a.Box, b.Box = box, box
	b.Trusted = true
	ra, rb, err := sandbox.RunPair(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if ra.Status != sandbox.OK || rb.Status != sandbox.OK {
		t.Fatalf("pair: ping %s (%s) exit %d %q, pong %s (%s) exit %d", ra.Status, ra.Source, ra.ExitCode, ra.Stderr, rb.Status, rb.Source, rb.ExitCode)
	}
	if !strings.Contains(string(ra.Stderr), "got 42") {
		t.Errorf("ping's stderr: %q", ra.Stderr)
	}
	assertClean(t, sl)
}

// Signals the kernel raises on the target's own behalf reach it: as PID 1
// of its namespace they would be dropped (abort() would end by SIGSEGV).
func TestSelfRaisedSignals(t *testing.T) {
	eachHelperPath(t, selfRaisedSignals)
}

func selfRaisedSignals(t *testing.T, sl *sandbox.Slot) {
	res := runProg(t, sl, testprog.C(t, "testdata/progs/abort.c"), sandbox.Limits{})
	if res.Status != sandbox.RE || res.Signal != int(syscall.SIGABRT) || res.Source != sandbox.SourceSignal {
		t.Errorf("abort(): %s (%s) signal %d, want RE (signal) signal %d", res.Status, res.Source, res.Signal, syscall.SIGABRT)
	}
}

// Of a pair, the side that quits is First every time, however close the
// other's reaction (EOF on its stdin, SIGPIPE on its stdout) follows: the
// other side cannot see the end before it is recorded.
func TestPairEndOrder(t *testing.T) { eachHelperPath(t, pairEndOrder) }

func pairEndOrder(t *testing.T, sl *sandbox.Slot) {
	bin := testprog.C(t, "testdata/progs/pairend.c")
	box := boxWith(t, sl, bin)
	for i := 0; i < 10; i++ {
		for _, other := range []string{"wait", "spam"} {
			quitFirst := i%2 == 0 // either side of the pair
			q, o := sl.Command("./pairend", "quit"), sl.Command("./pairend", other)
			q.Box, o.Box = box, box
			var rq, ro *sandbox.Result
			var err error
			if quitFirst {
				rq, ro, err = sandbox.RunPair(q, o)
			} else {
				ro, rq, err = sandbox.RunPair(o, q)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !rq.First || ro.First || rq.ExitCode != 3 {
				t.Errorf("run %d, quit vs %s: quit first=%v exit %d, %s first=%v %s signal %d", i, other, rq.First, rq.ExitCode, other, ro.First, ro.Status, ro.Signal)
			}
			if other == "spam" && ro.Signal != int(syscall.SIGPIPE) {
				t.Errorf("run %d: spam ended %s signal %d, want SIGPIPE", i, ro.Status, ro.Signal)
			}
		}
	}
	assertClean(t, sl)
}
