package sandbox_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docketjudge/docket/sandbox/nsinit"
	"github.com/docketjudge/docket/sandbox/rlimit"
	"github.com/docketjudge/docket/sandbox/seccomp/load"
	"golang.org/x/sys/unix"

	"github.com/docketjudge/docket/sandbox"
)

// A failure of the target's own setup (rlimits the kernel refuses, a
// filter it refuses) is the run's SE, worded as before, whether the
// target was forked early by a spare (while PID 1 attached the box,
// sharing its memory: target.c words the failure only after PID 1's go)
// or after PID 1's setup. The requests are changed on their way to the
// helper: docket itself sends neither.
func TestTargetSetupError(t *testing.T) { eachHelperPath(t, targetSetupError) }

func targetSetupError(t *testing.T, sl *sandbox.Slot) {
	for _, tc := range []struct {
		name   string
		change func(*nsinit.Request)
		want   string
	}{
		{"rlimit", func(r *nsinit.Request) {
			r.Rlimits = append(slices.Clone(r.Rlimits), rlimit.Limit{Resource: unix.RLIMIT_CORE, Cur: 2, Max: 1})
		}, "rlimit: setrlimit RLIMIT_CORE: invalid argument"},
		{"seccomp", func(r *nsinit.Request) {
			r.Seccomp = append(slices.Clone(r.Seccomp), load.Program{{Code: 0xffff}})
		}, "seccomp: seccomp: load filter 1: invalid argument"}, // after the run's one
	} {
		t.Run(tc.name, func(t *testing.T) {
			restore := sandbox.SetRequestHook(tc.change)
			defer restore()
			// PID 1 takes its time to find the program (a long PATH to
			// search), so that an early target fails long before go.
			path := longPath("/bin")
			for i := 0; i < 5; i++ {
				cmd := sl.Command("true")
				cmd.Env = []string{"PATH=" + path}
				res := run(t, cmd)
				if res.Status != sandbox.SE || res.Error != tc.want {
					t.Fatalf("run %d: got %s %q, want SE %q", i, res.Status, res.Error, tc.want)
				}
			}
			restore()
			if res := run(t, sl.Command("/bin/true")); res.Status != sandbox.OK {
				t.Errorf("the run after: %s %q", res.Status, res.Error)
			}
		})
	}
}

// A target forked early that has set itself up before PID 1 is done (a
// long PATH to search for the program) waits for go under its seccomp
// filter, then enters its working directory and runs: the wait, the
// chdir and the execve are all the filter lets through.
func TestEarlyTargetWaitsForGo(t *testing.T) {
	sl := slotOf(t, testSandbox(t))
	sandbox.Warm(sl.Sandbox())
	path := longPath("/bin")
	for i := 0; i < 10; i++ {
		cmd := sl.Command("sh", "-c", "pwd")
		cmd.Env = []string{"PATH=" + path}
		cmd.Limits = sandbox.Limits{Processes: 1}
		if res := run(t, cmd); res.Status != sandbox.OK || string(res.Stdout) != "/box\n" {
			t.Fatalf("run %d: %s %q %q", i, res.Status, res.Stdout, res.Error)
		}
	}
}

// longPath is a PATH of 2000 missing directories, then last.
func longPath(last string) string {
	var path []string
	for i := 0; i < 2000; i++ {
		path = append(path, fmt.Sprintf("/nonexistent-%d", i))
	}
	return strings.Join(append(path, last), ":")
}

// A target forked early, while PID 1 still sets up the run, is gone when
// PID 1's setup fails (here: no such program): PID 1 tells it to abort,
// reports, and its exit ends the pid namespace. Nothing of the slot's
// uid is left running, and the next run is whole.
func TestAbortedTargetLeavesNothing(t *testing.T) {
	sl := slotOf(t, testSandbox(t))
	sandbox.Warm(sl.Sandbox())
	for i := 0; i < 20; i++ {
		if _, err := sl.Command("/nonexistent").Run(); err == nil {
			t.Fatal("a run of a missing program started")
		}
	}
	sl.Settle()
	if left := processesOf(sl.UID); len(left) > 0 {
		t.Errorf("processes of the slot's uid %d after the failed runs: %v", sl.UID, left)
	}
	if res := run(t, sl.Command("/bin/true")); res.Status != sandbox.OK {
		t.Errorf("the run after: %s %q", res.Status, res.Error)
	}
}
