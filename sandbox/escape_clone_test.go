package sandbox_test

import (
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

// cloneAttempts are the lines clonens.c prints for its attempts, each of
// which must be refused.
var cloneAttempts = []string{
	"clone CLONE_NEWNS", "clone CLONE_NEWUTS", "clone CLONE_NEWIPC", "clone CLONE_NEWUSER",
	"clone CLONE_NEWPID", "clone CLONE_NEWNET", "clone CLONE_NEWCGROUP",
	"clone CLONE_NEWUSER|CLONE_NEWNET", "clone CLONE_NEWUSER|CLONE_NEWNS", "clone every namespace",
	"clone CLONE_PARENT", "clone CLONE_PTRACE", "clone CLONE_UNTRACED", "clone CLONE_IO", "clone bit 32",
	"libc clone CLONE_NEWUSER", "libc clone CLONE_NEWUSER|CLONE_NEWNET",
	"libc clone CLONE_VM|CLONE_VFORK|CLONE_NEWUSER",
}

// What must keep working beside the refusals.
var cloneStillWorks = []string{
	"ok fork", "ok vfork", "ok posix_spawn", "ok pthread_create", "ok clone with CLONE_PIDFD",
	"ok exit signal 0x80", "done",
}

// A run that may fork (compile steps, checkers, interactors, docket exec
// --processes) gets no namespace through clone(2), with the network
// namespace or the host's network, while fork, vfork, posix_spawn, threads
// and os/exec's pidfd clone still work.
func TestEscapeClone(t *testing.T) { eachHelperPath(t, escapeClone) }

func escapeClone(t *testing.T, sl *sandbox.Slot) {
	limits := sandbox.Limits{CPUTime: scaled(2 * time.Second), WallTime: scaled(5 * time.Second), Memory: 64 << 20, Processes: 16}
	for _, network := range []bool{false, true} {
		name := "network namespace"
		if network {
			name = "host network"
		}
		t.Run(name, func(t *testing.T) {
			runEscape(t, sl, escapeCase{
				prog: "clonens", limits: limits, network: network, wantStatus: sandbox.OK,
				want: cloneStillWorks, deny: []string{"ALLOWED", "FAILED"},
				check: checkCloneRefusals,
			})
		})
	}
}

// checkCloneRefusals wants one "refused" line per attempt, with EPERM
// (the filter, or the kernel itself) or a seccomp kill as the reason.
func checkCloneRefusals(t *testing.T, res *sandbox.Result) {
	t.Helper()
	lines := strings.Split(string(res.Stdout), "\n")
	for _, a := range cloneAttempts {
		found := false
		for _, l := range lines {
			reason, ok := strings.CutPrefix(l, "refused "+a+": ")
			if !ok {
				continue
			}
			found = true
			if reason != "Operation not permitted" && reason != "killed by SIGSYS" {
				t.Errorf("%s refused with %q, want EPERM or SIGSYS", a, reason)
			}
		}
		if !found {
			t.Errorf("no refusal of %s in the output:\n%s", a, res.Stdout)
		}
	}
}
