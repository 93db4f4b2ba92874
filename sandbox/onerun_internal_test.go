package sandbox

import (
	"os"
	"testing"
)

// A Sandbox for one run (Config.OneRun) makes nothing for a next run: no
// space or pipes ahead, no kept cgroup; one for many does (the test's
// control). A second run of a one-run Sandbox is still judged right.
func TestOneRunMakesNothingAhead(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the full sandbox needs root")
	}
	for _, oneRun := range []bool{false, true} {
		sb, err := New(Config{StateDir: t.TempDir(), UIDBase: 63970, OneRun: oneRun})
		if err != nil {
			t.Fatal(err)
		}
		sl, err := sb.AcquireSlot()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			if res, err := sl.Command("/bin/sh", "-c", "exit 3").Run(); err != nil || res.Status != RE || res.ExitCode != 3 {
				t.Fatalf("one run %v, run %d: %v %+v, want RE exit 3", oneRun, i, err, res)
			}
			sl.Settle()
		}
		sl.ahead.mu.Lock()
		space := sl.ahead.ready != nil
		sl.ahead.mu.Unlock()
		sl.pipes.mu.Lock()
		pipes := sl.pipes.set != nil
		sl.pipes.mu.Unlock()
		sl.groups.mu.Lock()
		kept := len(sl.groups.free[0])
		sl.groups.mu.Unlock()
		made := space || pipes || kept > 0
		if made == oneRun {
			t.Errorf("one run %v: space ahead %v, pipes ahead %v, kept groups %d", oneRun, space, pipes, kept)
		}
		sl.Release()
		sb.Close()
	}
}
