package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

// TestSpaceAhead: a run that ends with its target has its slot make the
// next run's space in its teardown, and the next run like it takes it;
// that space is fresh (nothing of the run before), and a source changed
// since (a file rewritten in place at the same size, a file added) or
// other limits make the space be made afresh, with the source as it is.
func TestSpaceAhead(t *testing.T) {
	log := filepath.Join(t.TempDir(), "debug.jsonl")
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 63200, DebugLog: log})
	if err != nil {
		t.Skip("the full sandbox: ", err)
	}
	defer sb.Close()
	sl := slotOf(t, sb)
	src := openDir(t)
	os.WriteFile(src+"/prog", []byte("v1\n"), 0o644)
	steps := []struct {
		name   string
		change func()
		disk   int64
		want   string
		ahead  bool
	}{
		{"first", nil, 0, "v1\n", false},
		{"second", nil, 0, "v1\n", true},
		{"after a write to the run's box", nil, 0, "v1\n", true},
		{"rewritten in place", func() { os.WriteFile(src+"/prog", []byte("v2\n"), 0o644) }, 0, "v2\n", false},
		{"added", func() { os.WriteFile(src+"/extra", []byte("e\n"), 0o644) }, 0, "v2\ne\n", false},
		{"other limits", nil, 8 << 20, "v2\ne\n", false},
	}
	for _, st := range steps {
		if st.change != nil {
			st.change()
		}
		// Every change old enough not to be racy (space_ahead.go) when
		// the next space is made: only the stamps tell it apart.
		time.Sleep(30 * time.Millisecond)
		cmd := sl.Command("/bin/sh", "-c", `cat /box/prog /box/extra 2>/dev/null; ls /box >/tmp/ls; [ -e /box/left ] && echo left; echo x >/box/left`)
		cmd.BoxFrom = src
		cmd.Limits = sandbox.Limits{Processes: 20, Disk: st.disk}
		res := run(t, cmd)
		sl.Settle()
		if res.Status != sandbox.OK || string(res.Stdout) != st.want {
			t.Errorf("%s: %s %q (stderr %q), want %q", st.name, res.Status, res.Stdout, res.Stderr, st.want)
		}
		if got := lastRecord(t, log)["space_ahead"] == true; got != st.ahead {
			t.Errorf("%s: space made ahead %v, want %v", st.name, got, st.ahead)
		}
	}
}

func lastRecord(t *testing.T, log string) map[string]any {
	t.Helper()
	recs := debugRecords(t, log)
	return recs[len(recs)-1]
}

// A run from BoxFrom has the slot make its next run's space while it goes
// on (its source cannot change through the run); a run in a host box does
// not, since what it writes there is copied back to that source after it.
func TestSpaceMadeDuringRun(t *testing.T) {
	sl := testSlot(t)
	src := openDir(t)
	os.WriteFile(src+"/prog", []byte("v1\n"), 0o644)
	time.Sleep(30 * time.Millisecond) // not racy (space_ahead.go)
	for _, tc := range []struct {
		name string
		host bool
		want bool
	}{
		{"BoxFrom", false, true},
		{"host box", true, false},
	} {
		sl.Settle() // whatever the last run made ahead is made: Start takes it
		cmd := sl.Command("/bin/sleep", "0.5")
		if tc.host {
			cmd.Box = openDir(t)
		} else {
			cmd.BoxFrom = src
		}
		cmd.Limits = sandbox.Limits{WallTime: 5 * time.Second}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Taken by this run, the slot's space made ahead is gone until
		// one is made for the next.
		ready := false
		for end := time.Now().Add(400 * time.Millisecond); !ready && time.Now().Before(end); {
			time.Sleep(5 * time.Millisecond)
			ready = sandbox.SpaceReady(sl)
		}
		res, err := cmd.Wait()
		if err != nil || res.Status != sandbox.OK {
			t.Fatalf("%s: %v %+v", tc.name, err, res)
		}
		if ready != tc.want {
			t.Errorf("%s: the next run's space made during the run: %v, want %v", tc.name, ready, tc.want)
		}
	}
	sl.Settle()
}
