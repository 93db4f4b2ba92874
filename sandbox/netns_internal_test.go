package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"testing"
)

// Making a slot's network namespace leaves the thread that made it in
// its own namespace, alive: an exec'd helper's parent-death signal
// follows the thread that forked it, so a thread that ended (as a
// goroutine that exits locked ends its thread) killed such a helper
// (TestConnectedPair/exec-helpers failed in the VM).
func TestNetNSFromThreadGoesBack(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a network namespace needs root")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := os.Readlink("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	n, back, err := netNSFromThread()
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	after, _ := os.Readlink("/proc/thread-self/ns/net")
	made, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", n.ns.Fd()))
	if !back || after != before || made == before {
		t.Errorf("thread in %s before, %s after (back %v); the new namespace %s", before, after, back, made)
	}
	if err := n.empty(); err != nil {
		t.Errorf("a new namespace: %v, want no socket", err)
	}
}

// The Sandbox makes one network namespace as it opens, and the first run
// that needs one enters it; the next slot makes its own.
func TestNetNSMadeAhead(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a network namespace needs root")
	}
	// A state directory whose probes are cached, as a deployment's is:
	// a first New's box probe is a run, which takes the namespace.
	cfg := Config{StateDir: t.TempDir(), UIDBase: 63960}
	if sb, err := New(cfg); err == nil {
		sb.Close()
	}
	sb, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if !sb.slotNetNS() {
		t.Skip("runs do not enter their slot's network namespace here")
	}
	ahead := sb.netAhead.take()
	if ahead == nil {
		t.Fatal("no namespace made ahead")
	}
	want := nsOf(t, ahead.ns)
	sb.netAhead.ch = make(chan *netNS, 1) // given back for the run
	sb.netAhead.ch <- ahead
	run := func(sl *Slot) string {
		t.Helper()
		if res, err := sl.Command("/bin/true").Run(); err != nil || res.Status != OK {
			t.Fatalf("run: %v %+v", err, res)
		}
		sl.netMu.Lock()
		defer sl.netMu.Unlock()
		return nsOf(t, sl.nets.untrusted.ns)
	}
	first, err := sb.AcquireSlot()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	if got := run(first); got != want {
		t.Errorf("the first run's namespace is %s, want the one made ahead, %s", got, want)
	}
	if sb.netAhead.ch != nil {
		t.Error("the namespace made ahead is still offered after a run took it")
	}
	second, err := sb.AcquireSlot()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	if got := run(second); got == want {
		t.Errorf("the second slot shares the first's namespace %s", got)
	}
}

func nsOf(t *testing.T, f *os.File) string {
	t.Helper()
	s, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
