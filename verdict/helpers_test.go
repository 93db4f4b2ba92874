package verdict

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// testJudge is a Judge on a slot of a fresh full sandbox, closed with
// the test; the test skips, saying why, without root.
func testJudge(t *testing.T) *Judge {
	t.Helper()
	return slotJudge(t, testSandbox(t))
}

// testSandbox is a fresh full sandbox, closed with the test; the test
// skips, saying why, without root.
func testSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("judging needs the full sandbox, which needs root")
	}
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 64000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// slotJudge is a Judge on a slot of sb of its own, released with the
// test: tests judging side by side each take one.
func slotJudge(t *testing.T, sb *sandbox.Sandbox) *Judge {
	t.Helper()
	return &Judge{Slot: claimSlot(t, sb), Langs: langs.Builtin(), WorkDir: t.TempDir(), CacheDir: t.TempDir()}
}

// claimSlot is a slot of sb, released with the test.
func claimSlot(tb testing.TB, sb *sandbox.Sandbox) *sandbox.Slot {
	tb.Helper()
	slot, err := sb.AcquireSlot()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(slot.Release)
	return slot
}

// withLanes is j with n further slots of sb as its lanes.
func withLanes(tb testing.TB, sb *sandbox.Sandbox, j Judge, n int) *Judge {
	tb.Helper()
	for range n {
		j.Lanes = append(j.Lanes, claimSlot(tb, sb))
	}
	return &j
}

// loadPackage writes files (path in the package -> content) into a
// fresh directory and loads it as a package, failing the test if it
// does not load.
func loadPackage(t testing.TB, files map[string]string) *problem.Problem {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p")
	for n, b := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := problem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
