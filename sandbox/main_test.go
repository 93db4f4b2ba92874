package sandbox_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox"
)

func TestMain(m *testing.M) {
	testguard.Main(&wrapped{m})
}

// wrapped removes the compiled test programs after the run.
type wrapped struct{ m *testing.M }

func (w *wrapped) Run() int { defer testprog.Cleanup(); return w.m.Run() }

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

func testSlot(tb testing.TB) *sandbox.Slot {
	tb.Helper()
	sl, err := testSandbox(tb).AcquireSlot()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(sl.Release)
	return sl
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
