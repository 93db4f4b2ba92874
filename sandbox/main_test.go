package sandbox_test

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envRlimitChild); dir != "" {
		// A worker child of TestRlimitsExplicit, inside the parent's guard.
		os.Exit(rlimitChild(dir))
	}
	testguard.Main(testprog.CleaningUp(m))
}

// scaled stretches a test's CPU or wall limit by DOCKET_TEST_TIME_SCALE
// (a whole number, default 1) for a slow CPU: make test-cgroup2's guest,
// emulated about 20 times slower, sets 10, where a memory bomb spent a
// 500 ms CPU limit faulting in its first 20 MiB.
func scaled(d time.Duration) time.Duration {
	n, err := strconv.Atoi(os.Getenv("DOCKET_TEST_TIME_SCALE"))
	if err != nil || n < 1 {
		return d
	}
	return d * time.Duration(n)
}

var (
	sbOnce sync.Once
	sb     *sandbox.Sandbox
	sbErr  error
)

// testSandbox is the process-wide sandbox, at full level: tests that need
// it skip, saying why, on a host that cannot give it.
func testSandbox(tb testing.TB) *sandbox.Sandbox {
	tb.Helper()
	sbOnce.Do(func() {
		dir, err := os.MkdirTemp("", "docket-sbtest-")
		if err != nil {
			sbErr = err
			return
		}
		sb, sbErr = sandbox.New(sandbox.Config{StateDir: dir, UIDBase: 62000})
	})
	if sbErr != nil {
		if os.Geteuid() != 0 {
			tb.Skipf("the full sandbox needs root (tests run as uid %d): %v", os.Geteuid(), sbErr)
		}
		tb.Fatalf("sandbox unavailable as root: %v", sbErr)
	}
	return sb
}

var (
	execOnce sync.Once
	execSB   *sandbox.Sandbox
	execErr  error
)

// testExecSandbox is a second process-wide sandbox whose helpers are all
// exec'd and build the whole root (Config.ExecHelpers): the path of every
// fallback.
func testExecSandbox(tb testing.TB) *sandbox.Sandbox {
	tb.Helper()
	execOnce.Do(func() {
		dir, err := os.MkdirTemp("", "docket-sbtest-exec-")
		if err != nil {
			execErr = err
			return
		}
		execSB, execErr = sandbox.New(sandbox.Config{StateDir: dir, UIDBase: 62500, ExecHelpers: true})
	})
	if execErr != nil {
		if os.Geteuid() != 0 {
			tb.Skipf("the full sandbox needs root (tests run as uid %d): %v", os.Geteuid(), execErr)
		}
		tb.Fatalf("sandbox unavailable as root: %v", execErr)
	}
	return execSB
}

func testSlot(tb testing.TB) *sandbox.Slot {
	tb.Helper()
	return slotOf(tb, testSandbox(tb))
}

func slotOf(tb testing.TB, sb *sandbox.Sandbox) *sandbox.Slot {
	tb.Helper()
	sl, err := sb.AcquireSlot()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(sl.Release)
	return sl
}

// eachHelperPath runs f on a slot of each way of starting helpers: the
// default (forked by the zygote on a template root, as root) and exec'd with a full build of the root.
func eachHelperPath(t *testing.T, f func(t *testing.T, sl *sandbox.Slot)) {
	for _, p := range []struct {
		name string
		sb   func(testing.TB) *sandbox.Sandbox
	}{{"default", testSandbox}, {"exec-helpers", testExecSandbox}} {
		t.Run(p.name, func(t *testing.T) {
			sb := p.sb(t)
			sandbox.Warm(sb) // the zygote from the first run on, where there is one
			f(t, slotOf(t, sb))
		})
	}
}

// boxWith makes a box holding the given host files (copied, executable).
func boxWith(tb testing.TB, sl *sandbox.Slot, files ...string) string {
	tb.Helper()
	dir := tb.TempDir()
	os.Chmod(dir, 0o755)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		name := f[strings.LastIndex(f, "/")+1:]
		if i := strings.LastIndex(name, "-"); i > 0 {
			name = name[:i] // testprog appends a content hash
		}
		if err := os.WriteFile(dir+"/"+name, b, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	os.Chown(dir, sl.UID, sl.GID)
	return dir
}

// debugRecords reads a Config.DebugLog, one record a line.
func debugRecords(t *testing.T, log string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%s: %v: %q", log, err, line)
		}
		recs = append(recs, rec)
	}
	return recs
}
