package sandbox_test

// The system-call fuzzer (testdata/hostile/sysfuzz.c) as a run's target:
// random calls of the run's allowed set with random arguments, in several
// processes and threads, for DOCKET_FUZZ_SECONDS (default 10). What must
// hold after it: the run ended within its limits, nothing outside the box
// changed, nothing of it is left, and the slot runs and measures the next
// program as before.

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/sandbox/seccomp"
	"golang.org/x/sys/unix"
)

// fuzzExcluded are the allowed calls the fuzzer never makes, because each
// would end a worker at once and leave the fuzzer respawning instead of
// fuzzing: exit and exit_group end it, rt_sigreturn with a random frame
// crashes it. Everything else is drawn, including calls that block (the
// fuzzer recycles its workers) and the signal and limit calls, which
// sysfuzz.c points at the caller.
var fuzzExcluded = map[uint32]bool{unix.SYS_EXIT: true, unix.SYS_EXIT_GROUP: true, unix.SYS_RT_SIGRETURN: true}

func fuzzSeconds(t *testing.T) time.Duration {
	s := os.Getenv("DOCKET_FUZZ_SECONDS")
	if s == "" {
		return 10 * time.Second
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("DOCKET_FUZZ_SECONDS=%q: want a whole number of seconds", s)
	}
	return time.Duration(n) * time.Second
}

func TestSyscallFuzz(t *testing.T) {
	sl := testSlot(t)
	d := fuzzSeconds(t)
	seed := time.Now().UnixNano()
	if s := os.Getenv("DOCKET_FUZZ_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("fuzzing %v, seed %d (DOCKET_FUZZ_SEED)", d, seed)
	work := testprog.C(t, "testdata/progs/fixedwork.c")
	before := fixedWork(t, sl, work)
	canary := canaryDir(t)
	outside := outsideState(t, sl, canary)

	cmd := sl.Command("./sysfuzz", strconv.FormatFloat(d.Seconds(), 'f', -1, 64), strconv.FormatInt(seed, 10), "3", "4")
	cmd.Box = boxWith(t, sl, hostile(t, "sysfuzz"))
	writeCalls(t, cmd.Box)
	cmd.Limits = sandbox.Limits{WallTime: d + scaled(5*time.Second), CPUTime: 3*d + scaled(5*time.Second),
		Memory: 512 << 20, Processes: 64}
	start := time.Now()
	res, err := cmd.Run()
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("status %s (%s) wall %v (Run %v) cpu %v mem %d KiB: %s\nstderr: %.2000s", res.Status, res.Source, res.WallTime, elapsed, res.CPUTime, res.Memory>>10, strings.TrimSpace(string(res.Stdout)), res.Stderr)
	checkFuzzRun(t, res, cmd.Limits, elapsed)

	assertClean(t, sl)
	if now := outsideState(t, sl, canary); now != outside {
		t.Errorf("outside the box changed:\nbefore:\n%s\nafter:\n%s", outside, now)
	}
	// The slot reused: the same program runs and measures as before.
	after := fixedWork(t, sl, work)
	if after.CPUTime > 2*before.CPUTime+50*time.Millisecond || after.Memory > 2*before.Memory+1<<20 {
		t.Errorf("the next run measures differently: cpu %v mem %d KiB, before the fuzzer cpu %v mem %d KiB",
			after.CPUTime, after.Memory>>10, before.CPUTime, before.Memory>>10)
	}
	assertClean(t, sl)
}

// checkFuzzRun: the run ended at the fuzzer's own end within its limits
// (measured: the wall time within the limit, Run within it plus the
// teardown), and the fuzzer made calls. How many varies a thousandfold
// with the seed and the host's load (a worker that made its threads
// SCHED_IDLE or nice 19 barely runs on a busy machine: 27,000 calls in
// 10 s one run, 26 million in 60 s another), so the bound is low.
func checkFuzzRun(t *testing.T, res *sandbox.Result, lim sandbox.Limits, elapsed time.Duration) {
	t.Helper()
	if res.Status != sandbox.OK {
		t.Errorf("status %s (%s), want OK (the fuzzer ends itself): exit %d signal %d error %q stderr %.500s",
			res.Status, res.Source, res.ExitCode, res.Signal, res.Error, res.Stderr)
	}
	if res.WallTime > lim.WallTime {
		t.Errorf("wall time %v over the limit %v", res.WallTime, lim.WallTime)
	}
	if elapsed > lim.WallTime+scaled(3*time.Second) {
		t.Errorf("Run took %v, over the wall limit %v and 3 s of teardown", elapsed, lim.WallTime)
	}
	var calls, workers int
	if _, err := fmt.Sscanf(string(res.Stdout), "sysfuzz calls %d workers %d", &calls, &workers); err != nil || calls < 1000 {
		t.Errorf("the fuzzer made too few calls (%v): %q", err, res.Stdout)
	}
}

// writeCalls writes the fuzzer's CALLS: every x86_64 call number the
// run's filter allows, but fuzzExcluded.
func writeCalls(t *testing.T, box string) {
	t.Helper()
	progs, err := seccomp.Build(seccomp.Options{NoNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	n := 0
	for nr := uint32(0); nr < 512; nr++ {
		if !fuzzExcluded[nr] && filterVerdict(t, progs, nr, 0) == unix.SECCOMP_RET_ALLOW {
			fmt.Fprintln(&b, nr)
			n++
		}
	}
	if n < 250 {
		t.Fatalf("only %d allowed calls", n)
	}
	if err := os.WriteFile(filepath.Join(box, "CALLS"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixedWork runs fixedwork.c's loop on sl and returns its result, OK.
func fixedWork(t *testing.T, sl *sandbox.Slot, bin string) *sandbox.Result {
	t.Helper()
	cmd := sl.Command("./fixedwork", "100")
	cmd.Box = boxWith(t, sl, bin)
	res := run(t, cmd)
	if res.Status != sandbox.OK {
		t.Fatalf("fixedwork: %s (%s) %s", res.Status, res.Source, res.Error)
	}
	return res
}

// canaryDir is a host directory every sandbox uid could reach were it
// visible: world-writable, with a world-writable file.
func canaryDir(t *testing.T) string {
	dir := openDir(t)
	os.Chmod(dir, 0o777)
	if err := os.WriteFile(filepath.Join(dir, "canary"), []byte("canary\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(dir, "canary"), 0o666)
	return dir
}

// outsideState describes what a run must not change: the canary
// directory (names, modes, contents), the sandbox's state directory
// (names, modes, sizes of files) and this process's mount table.
func outsideState(t *testing.T, sl *sandbox.Slot, canary string) string {
	t.Helper()
	sl.Settle()
	var b strings.Builder
	describeTree(&b, canary, true)
	describeTree(&b, sl.Sandbox().Config().StateDir, false)
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "mountinfo %x\n", sha256.Sum256(mounts))
	return b.String()
}

func describeTree(b *strings.Builder, root string, contents bool) {
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(b, "%s: %v\n", p, err)
			return nil
		}
		info, err := e.Info()
		if err != nil {
			fmt.Fprintf(b, "%s: %v\n", p, err)
			return nil
		}
		fmt.Fprintf(b, "%s %v", p, info.Mode())
		if info.Mode().IsRegular() {
			fmt.Fprintf(b, " %d", info.Size())
			if data, err := os.ReadFile(p); contents && err == nil {
				fmt.Fprintf(b, " %x", sha256.Sum256(data))
			}
		}
		b.WriteString("\n")
		return nil
	})
}
