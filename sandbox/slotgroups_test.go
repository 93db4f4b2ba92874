package sandbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
	first := run(touch, sandbox.Limits{})
	if first.Memory < 64<<20 {
		t.Fatalf("touch64 reported %d KiB", first.Memory>>10)
	}
	// A counter carried over holds at least the first run's figure. The
	// CPU time is not held to the wall time: the two come from different
	// clocks (the group's counter, the helper's stamps), and for a run
	// this short they are close (603µs of CPU in 592µs of wall under -race).
	if r := run(empty, sandbox.Limits{}); r.Memory >= 8<<20 || r.CPUTime >= first.CPUTime {
		t.Errorf("the previous run's figures carried over: %d KiB, CPU %v (touch64: %d KiB, CPU %v)",
			r.Memory>>10, r.CPUTime, first.Memory>>10, first.CPUTime)
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

// TestKeptJoinFiles: a kept group's join files are opened at its first
// run and kept with it (the same descriptors for every later run), and
// closed when the group goes (Release).
func TestKeptJoinFiles(t *testing.T) {
	sb := testSandbox(t)
	if sandbox.CgroupParent(sb) == "" {
		t.Skip("no cgroups on this host")
	}
	sl, err := sb.AcquireSlot()
	if err != nil {
		t.Fatal(err)
	}
	prefix := keptPrefix(t, sl, false)
	empty := testprog.C(t, "testdata/progs/empty.c")
	var first string
	for i := 0; i < 3; i++ {
		if r := runProg(t, sl, empty, sandbox.Limits{}); r.Status != sandbox.OK {
			t.Fatalf("run %d: %s", i, r.Status)
		}
		sl.Settle()
		open := openFilesUnder(t, prefix)
		if open == "" {
			t.Fatalf("run %d: no join file of the kept group open", i)
		}
		if i == 0 {
			first = open
		} else if open != first {
			t.Errorf("run %d: join files %s, after the first run %s", i, open, first)
		}
	}
	sl.Release()
	if open := openFilesUnder(t, prefix); open != "" {
		t.Errorf("join files still open after Release: %s", open)
	}
}

// openFilesUnder lists this process's descriptors on files whose path
// has a component starting with prefix, as "fd -> path" lines.
func openFilesUnder(t *testing.T, prefix string) string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil && strings.Contains(target, "/"+prefix) {
			out = append(out, e.Name()+" -> "+target)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
