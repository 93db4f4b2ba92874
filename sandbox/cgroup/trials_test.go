package cgroup_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/sandbox/cgroup"
)

// recordedTrials is a cgroup.Trials in memory.
type recordedTrials struct{ worked, recorded map[string]bool }

func (r *recordedTrials) Worked(dir string) bool { return r.worked[dir] }
func (r *recordedTrials) Record(dir string)      { r.recorded[dir] = true }

// Open tries creating a group in each controller's parent unless the
// Trials say it worked before, and records the trials that work. On a
// v1 layout in a plain directory (no kernel cgroups), a file in the way
// of the trial group makes the trial fail: the controller is then
// unavailable, unless a recorded trial spares it the try.
func TestOpenTrials(t *testing.T) {
	root := t.TempDir()
	for _, c := range []string{"memory", "pids", "cpuacct"} {
		dir := filepath.Join(root, c)
		if err := os.MkdirAll(filepath.Join(dir, "docket-t"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "cgroup.procs"), nil, 0o644)
	}
	parent := func(c string) string { return filepath.Join(root, c, "docket-t") }
	open := func(tr *recordedTrials) cgroup.Availability {
		t.Helper()
		m, err := cgroup.Open(cgroup.Options{Version: cgroup.V1, Parent: "/docket-t", Root: root, Trials: tr})
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		return m.Controllers()
	}
	fresh := &recordedTrials{worked: map[string]bool{}, recorded: map[string]bool{}}
	if avail := open(fresh); !avail.Usable(cgroup.Memory) || !avail.Usable(cgroup.Pids) || !avail.Usable(cgroup.CPU) {
		t.Fatalf("controllers %v, want memory, pids and cpu", avail)
	}
	for _, c := range []string{"memory", "pids", "cpuacct"} {
		if !fresh.recorded[parent(c)] {
			t.Errorf("the trial in %s was not recorded (recorded: %v)", parent(c), fresh.recorded)
		}
	}
	// The trial group's name is taken by a file: trying fails.
	os.WriteFile(filepath.Join(parent("memory"), fmt.Sprintf("probe-%d", os.Getpid())), nil, 0o644)
	tried := &recordedTrials{worked: map[string]bool{}, recorded: map[string]bool{}}
	avail := open(tried)
	if avail.Usable(cgroup.Memory) || !strings.Contains(avail[cgroup.Memory], "cannot create cgroups") {
		t.Errorf("memory %q with its trial failing, want unavailable, saying why", avail[cgroup.Memory])
	}
	if tried.recorded[parent("memory")] || !tried.recorded[parent("pids")] {
		t.Errorf("recorded %v: want pids' trial, not memory's failed one", tried.recorded)
	}
	// A trial recorded before is not made again.
	known := &recordedTrials{worked: map[string]bool{parent("memory"): true}, recorded: map[string]bool{}}
	if avail := open(known); !avail.Usable(cgroup.Memory) {
		t.Errorf("memory %q with its trial recorded, want usable without a new trial", avail[cgroup.Memory])
	}
	if known.recorded[parent("memory")] {
		t.Error("a trial recorded before was made and recorded again")
	}
}
