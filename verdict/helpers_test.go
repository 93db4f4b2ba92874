package verdict

import (
	"os"
	"testing"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/sandbox"
)

// testJudge is a Judge on a slot of a fresh full sandbox, closed with
// the test; the test skips, saying why, without root.
func testJudge(t *testing.T) *Judge {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("judging needs the full sandbox, which needs root")
	}
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 64000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	slot, err := sb.AcquireSlot()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(slot.Release)
	return &Judge{Slot: slot, Langs: langs.Builtin(), WorkDir: t.TempDir(), CacheDir: t.TempDir()}
}
