package sandbox_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/sandbox"
)

// A pinned run sees only its CPU.
func TestCPUPinning(t *testing.T) {
	sl := testSlot(t)
	if l, ok := testSandbox(t).Capabilities().Layer("cgroup:cpuset"); !ok || !l.Active {
		t.Skipf("cpuset controller unavailable: %+v", l)
	}
	cmd := sl.Command("/bin/grep", "Cpus_allowed_list", "/proc/self/status")
	cmd.Limits = sandbox.Limits{CPUs: "0"}
	res, err := cmd.Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != sandbox.OK || !strings.Contains(string(res.Stdout), "\t0\n") {
		t.Errorf("pinned to CPU 0: %s %q %s", res.Status, res.Stdout, res.Error)
	}
}

// DOCKET_SANDBOX_DEBUG gets one JSON line per start, with the failure
// point when setup fails.
func TestDebugLog(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for the full sandbox")
	}
	log := filepath.Join(t.TempDir(), "debug.jsonl")
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 63000, DebugLog: log})
	if err != nil {
		t.Fatal(err)
	}
	// Closed before the state directory is removed: the zygote and its
	// spares keep files there until then.
	t.Cleanup(func() { sb.Close() })
	sl, err := sb.AcquireSlot()
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Release()
	if res, err := sl.Command("/bin/true").Run(); err != nil || res.Status != sandbox.OK {
		t.Fatalf("true: %v %+v", err, res)
	}
	sl.Settle() // a run's line is written at the end of its teardown
	if _, err := sl.Command("/no/such/program").Run(); err == nil {
		t.Fatal("a missing program started")
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d debug lines, want 2:\n%s", len(lines), b)
	}
	var ok, bad map[string]any
	json.Unmarshal([]byte(lines[0]), &ok)
	json.Unmarshal([]byte(lines[1]), &bad)
	if ok["status"] != "OK" || ok["level"] != "full" {
		t.Errorf("first line: %s", lines[0])
	}
	if e, _ := bad["error"].(string); !strings.Contains(e, "find program") {
		t.Errorf("second line does not name the failing stage: %s", lines[1])
	}
}

// A slot is claimed once, across Sandbox values sharing a state dir (as
// several docket processes on one host do).
func TestSlotsAreExclusive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for the full sandbox")
	}
	dir := t.TempDir()
	a, err := sandbox.New(sandbox.Config{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sandbox.New(sandbox.Config{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s0, err := a.AcquireSlot()
	if err != nil {
		t.Fatal(err)
	}
	s1, err := b.AcquireSlot()
	if err != nil {
		t.Fatal(err)
	}
	if s0.N == s1.N || s0.UID == s1.UID || s0.TrustedUID == s1.UID || s0.UID == s1.TrustedUID {
		t.Errorf("two holders share slot %d/%d (uids %d/%d)", s0.N, s1.N, s0.UID, s1.UID)
	}
	if _, err := a.Slot(s0.N); !errors.Is(err, sandbox.ErrSlotInUse) {
		t.Errorf("slot %d claimed twice by one Sandbox: %v, want ErrSlotInUse", s0.N, err)
	}
	if _, err := b.Slot(s0.N); !errors.Is(err, sandbox.ErrSlotBusy) {
		t.Errorf("slot %d claimed by a second Sandbox: %v, want ErrSlotBusy", s0.N, err)
	}
	s0.Release()
	s2, err := b.AcquireSlot()
	if err != nil || s2.N != s0.N {
		t.Errorf("released slot %d not reused: got %v %v", s0.N, s2, err)
	}
	s1.Release()
	s2.Release()
}
