package sandbox_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

// On cgroup v2 a run's target is started in its group (clone3 with
// CLONE_INTO_CGROUP) by a helper that has no cgroup namespace of its own,
// then makes one rooted at the group: /proc/self/cgroup shows "0::/", and
// the group counts its CPU time. (cmd/docket-exec's
// TestCgroupV2RunInItsGroup also runs it where clone3 is refused.) This is
// the test the cgroup v2 VM runs: under systemd's nsdelegate, with docket
// moved into a leaf beside its groups, a clone from a helper in a
// namespace rooted at that leaf would be refused.
func TestOwnCgroupNamespace(t *testing.T) {
	caps := testSandbox(t).Capabilities()
	if caps.CgroupVersion != "v2" || !slices.Contains(caps.Namespaces, "cgroup") {
		t.Skipf("runs start in their group on cgroup v2 with cgroup namespaces; here cgroup %s, namespaces %v", caps.CgroupVersion, caps.Namespaces)
	}
	eachHelperPath(t, func(t *testing.T, sl *sandbox.Slot) {
		cmd := sl.Command("/bin/sh", "-c", "cat /proc/self/cgroup; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done")
		cmd.Limits = sandbox.Limits{CPUTime: 10 * time.Second, Memory: 64 << 20, Processes: 4}
		res, err := cmd.Run()
		if err != nil || res.Status != sandbox.OK {
			t.Fatalf("run: %v %+v", err, res)
		}
		if got := strings.TrimSpace(string(res.Stdout)); got != "0::/" {
			t.Errorf("/proc/self/cgroup of a run: %q, want 0::/ (its own namespace, rooted at its group)", got)
		}
		if res.CPUTime == 0 {
			t.Error("the run's group counted no CPU time for a shell loop")
		}
	})
}
