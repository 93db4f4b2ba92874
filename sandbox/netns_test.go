package sandbox_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox"
)

// netcarryRun runs testdata/progs/netcarry.c in the slot and gives what it
// printed: ns=, unix= and name=.
// With settle, it waits for the run's teardown, where the slot checks its
// namespace for the next run; without, the next run may check it.
func netcarryRun(t *testing.T, sl *sandbox.Slot, box string, trusted, settle bool, args ...string) map[string]string {
	t.Helper()
	cmd := sl.Command("./netcarry", args...)
	cmd.Box, cmd.Trusted = box, trusted
	var out bytes.Buffer
	cmd.Stdout = &out
	res, err := cmd.Run()
	if err != nil || res.Status != sandbox.OK {
		t.Fatalf("netcarry %v: %v %+v", args, err, res)
	}
	if settle {
		sl.Settle()
	}
	fields := map[string]string{}
	for _, f := range strings.Fields(out.String()) {
		if k, v, ok := strings.Cut(f, "="); ok {
			fields[k] = v
		}
	}
	return fields
}

// netID names the namespace a netcarry probe ran in: its cookie, which no
// other namespace ever gets, or where the kernel has none its inode number,
// which a later namespace gets once this one is freed.
func netID(fields map[string]string) string {
	if c := fields["cookie"]; c != "" && c != "0" {
		return "cookie:" + c
	}
	return fields["ns"]
}

// Runs of a slot that keep no network share the slot's network namespace
// (one per role, none of them the host's) while it holds nothing; a run
// that leaves a socket behind (an abstract unix socket kept in flight
// through itself, which the control shows does outlive its process)
// costs the slot that namespace: the next run is in a new one, where the
// name does not answer and no socket is listed.
//
// Namespaces are told apart by their cookies (netID); where the kernel
// has none, by their inode numbers, which it gives again once one is
// freed, so the slot's first is also held by the test (a new one made
// after the slot dropped it took its number on the VM's 6.1).
//
// Both ways the namespace is checked: by the next run as it starts, and
// in the teardown of the run before it, once that run's processes are
// gone (settled: the next run then takes it unasked).
func TestSlotNetNSCarriesNothing(t *testing.T) {
	for _, settle := range []bool{false, true} {
		name := "checked-at-start"
		if settle {
			name = "checked-in-teardown"
		}
		t.Run(name, func(t *testing.T) { slotNetNSCarriesNothing(t, settle) })
	}
}

func slotNetNSCarriesNothing(t *testing.T, settle bool) {
	sb := testSandbox(t)
	if !sandbox.SlotNetNS(sb) {
		t.Skip("this host's level has no slot network namespaces (docket not root, no seccomp or no network namespace): every run gets its own")
	}
	sl := slotOf(t, sb)
	box := boxWith(t, sl, testprog.C(t, "testdata/progs/netcarry.c"))
	host, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	run := func(trusted bool, args ...string) map[string]string {
		return netcarryRun(t, sl, box, trusted, settle, args...)
	}
	first := run(false, "probe", "docket-none")
	// Held to the end, so that no later namespace gets its number.
	held, err := sandbox.HoldNetNS(sl, false)
	if err != nil || held == nil {
		t.Fatalf("the slot's namespace after a run: %v, %v", held, err)
	}
	defer held.Close()
	if settle && !sandbox.NetChecked(sl, false) {
		t.Error("after a clean run's teardown the slot's namespace is not marked checked")
	}
	second := run(false, "probe", "docket-none")
	if first["ns"] == host || netID(first) != netID(second) || first["unix"] != "0" {
		t.Fatalf("two clean runs: %v then %v (host %s): want one namespace of the slot's, not the host's, with no socket", first, second, host)
	}
	if trusted := run(true, "probe", "docket-none"); netID(trusted) == netID(first) || trusted["ns"] == host {
		t.Errorf("a trusted run in %s, the untrusted ones in %s: want one of its own", netID(trusted), netID(first))
	}
	control := run(false, "both", "docket-carry-control")
	if control["name"] != "present" {
		t.Fatalf("control: %v: the in-flight name should outlive its descriptors", control)
	}
	run(false, "leave", "docket-carry")
	if settle && sandbox.NetChecked(sl, false) {
		t.Error("after a run that left a socket, its teardown marked the namespace checked")
	}
	after := run(false, "probe", "docket-carry")
	if after["name"] != "absent" || after["unix"] != "0" || netID(after) == netID(first) || after["ns"] == host {
		t.Errorf("after a run left a socket: %v (the slot's was %s): want a new namespace, no socket, the name absent", after, netID(first))
	}
	if again := run(false, "probe", "docket-carry"); netID(again) != netID(after) {
		t.Errorf("the new namespace was not kept: %s then %s", netID(after), netID(again))
	}
}

// With Config.NetNSPerRun every run has a network namespace of its own,
// as before the slot's: two runs of a slot, two namespaces.
func TestNetNSPerRun(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the full sandbox needs root")
	}
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 63900, NetNSPerRun: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if sandbox.SlotNetNS(sb) {
		t.Fatal("NetNSPerRun set, yet runs would enter the slot's namespace")
	}
	sl := slotOf(t, sb)
	box := boxWith(t, sl, testprog.C(t, "testdata/progs/netcarry.c"))
	first := netcarryRun(t, sl, box, false, false, "probe", "docket-none")
	second := netcarryRun(t, sl, box, false, false, "probe", "docket-none")
	if netID(first) == netID(second) {
		t.Errorf("two runs in %s: want a namespace each", netID(first))
	}
}
