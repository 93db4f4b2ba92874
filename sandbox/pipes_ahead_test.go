package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docketjudge/docket/sandbox"
)

// A run after another takes the pipes its slot made ahead (debug log:
// "pipes_ahead"), and they carry its output as new ones would: stdout and
// stderr apart, each whole. One it does not need (its stdout a file) is
// closed: over many runs docket's descriptors stay about as many.
func TestPipesAhead(t *testing.T) {
	log := filepath.Join(t.TempDir(), "debug.jsonl")
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 63750, DebugLog: log})
	if err != nil {
		t.Skip("the full sandbox: ", err)
	}
	defer sb.Close()
	sl := slotOf(t, sb)
	outFile, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	fds := func() int {
		entries, _ := os.ReadDir("/proc/self/fd")
		return len(entries)
	}
	var after10 int
	for i := 0; i < 40; i++ {
		cmd := sl.Command("/bin/sh", "-c", "echo out; echo err >&2")
		cmd.Limits.Processes = 4
		if i%2 == 1 {
			cmd.Stdout = outFile
		}
		res, err := cmd.Run()
		if err != nil || res.Status != sandbox.OK || string(res.Stderr) != "err\n" || (i%2 == 0 && string(res.Stdout) != "out\n") {
			t.Fatalf("run %d: %v %+v", i, err, res)
		}
		sl.Settle()
		if i == 10 {
			after10 = fds()
		}
	}
	// A few may come and go with the Sandbox's spares (refilled in the
	// background); a leaked pipe a run would be 30 more.
	if n := fds(); n > after10+4 {
		t.Errorf("%d descriptors open after 40 runs, %d after 10: pipes made ahead leak", n, after10)
	}
	ahead := 0
	for _, rec := range debugRecords(t, log) {
		if rec["pipes_ahead"] == true {
			ahead++
		}
	}
	if ahead < 39 {
		t.Errorf("%d of 40 runs took pipes made ahead, want every one after the first", ahead)
	}
}
