package cgroup_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox/cgroup"
)

func TestMain(m *testing.M) { testguard.Main(m) }

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("creating cgroups needs root here (uid %d)", os.Geteuid())
	}
}

// runIn starts a trusted test program (not hostile) blocked on stdin,
// moves it into g, then lets it run to the end.
func runIn(t *testing.T, g cgroup.Group, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// sh reads one line before exec'ing the program: it is in the group
	// before the program starts.
	cmd.Path = "/bin/sh"
	cmd.Args = append([]string{"sh", "-c", `read x; exec "$0" "$@"`, bin}, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.AddProc(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	in.Write([]byte("go\n"))
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
}

func TestV1Group(t *testing.T) {
	needRoot(t)
	m, err := cgroup.Open(cgroup.Options{Version: cgroup.V1})
	if errors.Is(err, cgroup.ErrUnavailable) {
		t.Skipf("no cgroup v1 hierarchy on this host: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{cgroup.Memory, cgroup.Pids, cgroup.CPU} {
		if !m.Controllers().Usable(c) {
			t.Fatalf("v1 controller %s unusable: %s", c, m.Controllers()[c])
		}
	}
	g, err := m.New("test-v1", cgroup.Spec{MemoryBytes: 128 << 20, Pids: 8})
	if err != nil {
		t.Fatal(err)
	}
	busy := testprog.C(t, "../testdata/progs/busy.c")
	touch := testprog.C(t, "../testdata/progs/touch64.c")
	runIn(t, g, busy, "200")
	runIn(t, g, touch)
	st, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.CPU < 200*time.Millisecond || st.CPU > 400*time.Millisecond {
		t.Errorf("CPU %v, want about 200ms (+ sh)", st.CPU)
	}
	if st.MemoryPeak < 64<<20 || st.MemoryPeak > 80<<20 {
		t.Errorf("memory peak %d KiB, want 64-80 MiB", st.MemoryPeak>>10)
	}
	if st.OOMKills != 0 {
		t.Errorf("OOM kills %d", st.OOMKills)
	}
	if pids, _ := g.Procs(); len(pids) != 0 {
		t.Errorf("processes left: %v", pids)
	}
	if err := g.Delete(); err != nil {
		t.Fatal(err)
	}
}

// On a host whose cgroup v2 hierarchy has the controllers, the full v2
// path runs; on a hybrid host (v1 controllers) the unified hierarchy has
// none, and the manager must say so while CPU accounting still works.
func TestV2Group(t *testing.T) {
	needRoot(t)
	m, err := cgroup.Open(cgroup.Options{Version: cgroup.V2})
	if errors.Is(err, cgroup.ErrUnavailable) {
		t.Skipf("no cgroup v2 hierarchy on this host: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	avail := m.Controllers()
	full := avail.Usable(cgroup.Memory) && avail.Usable(cgroup.Pids)
	if !full {
		for _, c := range []string{cgroup.Memory, cgroup.Pids} {
			if avail.Usable(c) {
				continue
			}
			if !strings.Contains(avail[c], "not enabled") && !strings.Contains(avail[c], "cannot enable") {
				t.Errorf("v2 %s unavailable without a reason: %q", c, avail[c])
			}
			t.Logf("v2 %s unavailable here: %s", c, avail[c])
		}
	}
	if !avail.Usable(cgroup.CPU) {
		t.Fatalf("v2 CPU accounting unavailable: %s", avail[cgroup.CPU])
	}
	spec := cgroup.Spec{}
	if full {
		spec = cgroup.Spec{MemoryBytes: 128 << 20, Pids: 8}
	}
	g, err := m.New("test-v2", spec)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Delete()
	runIn(t, g, testprog.C(t, "../testdata/progs/busy.c"), "200")
	if full {
		runIn(t, g, testprog.C(t, "../testdata/progs/touch64.c"))
	}
	st, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.CPU < 200*time.Millisecond || st.CPU > 400*time.Millisecond {
		t.Errorf("v2 CPU %v, want about 200ms", st.CPU)
	}
	if full && (st.MemoryPeak < 64<<20 || st.MemoryPeak > 80<<20) {
		t.Errorf("v2 memory peak %d KiB, want 64-80 MiB", st.MemoryPeak>>10)
	}
	if !full {
		t.Logf("v2 memory and pids limits not exercised: this host's v2 hierarchy (%s) has no memory/pids controllers", m.Parent())
	}
	if err := g.Delete(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("/sys/fs/cgroup/unified", "test-v2")); err == nil {
		t.Error("group directory left behind")
	}
}

func TestInvalidNames(t *testing.T) {
	needRoot(t)
	m, err := cgroup.Open(cgroup.Options{})
	if err != nil {
		t.Skipf("no cgroups: %v", err)
	}
	for _, n := range []string{"", "a/b", "..", "."} {
		if _, err := m.New(n, cgroup.Spec{}); err == nil {
			t.Errorf("name %q accepted", n)
		}
	}
}
