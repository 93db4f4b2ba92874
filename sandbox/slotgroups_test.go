package sandbox_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox"
	"golang.org/x/sys/unix"
)

// keptPrefix starts the names of a slot's kept cgroups for a role: the
// slot's lock file's device and inode (slotgroups.go).
func keptPrefix(t *testing.T, sl *sandbox.Slot, trusted bool) string {
	var st unix.Stat_t
	lock := filepath.Join(sl.Sandbox().Config().StateDir, "slots", strconv.Itoa(sl.N)+".lock")
	if err := unix.Stat(lock, &st); err != nil {
		t.Fatal(err)
	}
	role := ""
	if trusted {
		role = "t"
	}
	return fmt.Sprintf("k%x.%x-s%d%s-", st.Dev, st.Ino, sl.N, role)
}

// Runs one after another (each torn down before the next: Settle) use
// one kept group, which carries nothing over (the peak of 64 MiB, an OOM
// kill), and Release removes it.
func TestKeptGroupReused(t *testing.T) {
	sb := testSandbox(t)
	sl, err := sb.AcquireSlot()
	if err != nil {
		t.Fatal(err)
	}
	released := false
	defer func() {
		if !released {
			sl.Release()
		}
	}()
	touch := testprog.C(t, "testdata/progs/touch64.c")
	empty := testprog.C(t, "testdata/progs/empty.c")
	run := func(bin string, lim sandbox.Limits) *sandbox.Result {
		res := runProg(t, sl, bin, lim)
		sl.Settle()
		return res
	}
	if r := run(touch, sandbox.Limits{}); r.Memory < 64<<20 {
		t.Fatalf("touch64 reported %d KiB", r.Memory>>10)
	}
	if r := run(empty, sandbox.Limits{}); r.Memory >= 1<<20 || r.CPUTime > r.WallTime {
		t.Errorf("the previous run's figures carried over: %d KiB, CPU %v in %v", r.Memory>>10, r.CPUTime, r.WallTime)
	}
	if r := run(touch, sandbox.Limits{Memory: 32 << 20}); r.Status != sandbox.MLE {
		t.Fatalf("touch64 under 32 MiB: %s", r.Status)
	}
	if r := run(empty, sandbox.Limits{Memory: 32 << 20}); r.Status != sandbox.OK {
		t.Errorf("the OOM kill carried over: %s (%s)", r.Status, r.Source)
	}
	prefix := keptPrefix(t, sl, false)
	if sandbox.CgroupParent(sb) == "" {
		t.Skip("no cgroups on this host")
	}
	groups := cgroupsNamed(sb, prefix)
	want := 1
	if strings.HasPrefix(sandbox.CgroupParent(sb), "v1 ") {
		want = 3 // memory, pids, cpuacct
	}
	if len(groups) != want {
		t.Errorf("kept groups after four settled runs: %v, want one (in %d controllers)", groups, want)
	}
	sl.Release()
	released = true
	if left := cgroupsNamed(sb, prefix); len(left) != 0 {
		t.Errorf("kept groups left after Release: %v", left)
	}
}
