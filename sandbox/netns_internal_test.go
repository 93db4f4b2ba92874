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
