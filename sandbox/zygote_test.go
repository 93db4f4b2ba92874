package sandbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/sandbox/mount"
	"golang.org/x/sys/unix"
)

// shell runs a script in the sandbox and returns its stdout.
func shell(t *testing.T, sl *sandbox.Slot, script string, binds ...mount.Bind) string {
	t.Helper()
	cmd := sl.Command("/bin/sh", "-c", script)
	cmd.Limits = sandbox.Limits{Processes: 20}
	cmd.Binds = binds
	res := run(t, cmd)
	if res.Status != sandbox.OK {
		t.Fatalf("%q: %s (%s) %s\nstderr: %s", script, res.Status, res.Source, res.Error, res.Stderr)
	}
	return string(res.Stdout)
}

// As root, helpers come from the zygote from the second run on (the
// first, maybe the only one of a docket exec, is exec'd while the zygote
// starts); ExecHelpers execs them all.
// The debug log says which.
func TestHelperKinds(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for the full sandbox")
	}
	for _, tc := range []struct {
		exec  bool
		first string
		later string
	}{{false, "exec", "zygote"}, {true, "exec", "exec"}} {
		log := filepath.Join(t.TempDir(), "debug.jsonl")
		sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 63100, DebugLog: log, ExecHelpers: tc.exec})
		if err != nil {
			t.Fatal(err)
		}
		sl := slotOf(t, sb)
		shell(t, sl, "true")
		if got := sandbox.Warm(sb); got != !tc.exec {
			t.Errorf("ExecHelpers=%v: Warm reports a zygote: %v", tc.exec, got)
		}
		shell(t, sl, "true")
		shell(t, sl, "true")
		for i, rec := range debugRecords(t, log) {
			want := tc.later
			if i == 0 {
				want = tc.first
			}
			if rec["helper"] != want {
				t.Errorf("ExecHelpers=%v, run %d: helper %v, want %s: %v", tc.exec, i, rec["helper"], want, rec)
			}
		}
		sl.Release()
		sb.Close()
	}
}

// A template root follows the host: a bound directory or file replaced
// by another (a new inode at the path, as a package upgrade or ldconfig
// does) is what the next run sees, and a change in place is seen at once.
func TestTemplateFollowsBinds(t *testing.T) { eachHelperPath(t, templateFollowsBinds) }

func templateFollowsBinds(t *testing.T, sl *sandbox.Slot) {
	base := openDir(t)
	dir, file := filepath.Join(base, "d"), filepath.Join(base, "f")
	os.Mkdir(dir, 0o755)
	os.WriteFile(dir+"/v", []byte("1"), 0o644)
	os.WriteFile(file, []byte("a"), 0o644)
	binds := []mount.Bind{{Source: dir, Target: "/data"}, {Source: file, Target: "/etc/docket-test"}}
	read := func() string { return shell(t, sl, "cat /data/v /etc/docket-test", binds...) }
	if got := read(); got != "1a" {
		t.Fatalf("first run read %q, want 1a", got)
	}
	os.WriteFile(dir+"/v", []byte("2"), 0o644) // in place
	if got := read(); got != "2a" {
		t.Errorf("after a change in place: %q, want 2a", got)
	}
	// Replaced: renamed away, a new directory and file in their place.
	os.Rename(dir, dir+".old")
	os.Mkdir(dir, 0o755)
	os.WriteFile(dir+"/v", []byte("3"), 0o644)
	os.WriteFile(file+".new", []byte("b"), 0o644)
	os.Rename(file+".new", file)
	if got := read(); got != "3b" {
		t.Errorf("after replacing the bound directory and file: %q, want 3b", got)
	}
}

// Nothing the sandbox mounts, template roots included, appears in the
// host's (here: the test guard's) mount table, during or after runs.
func TestNoMountLeak(t *testing.T) {
	count := func() (int, string) {
		b, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), "\n"), string(b)
	}
	before, _ := count()
	eachHelperPath(t, func(t *testing.T, sl *sandbox.Slot) {
		extra := openDir(t)
		shell(t, sl, "true")
		shell(t, sl, "ls /x >/dev/null", mount.Bind{Source: extra, Target: "/x"})
		cmd := sl.Command("/bin/sleep", "5")
		cmd.Limits = sandbox.Limits{WallTime: 300 * time.Millisecond}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		n, table := count()
		cmd.Wait()
		if n != before || strings.Contains(table, sl.Sandbox().Config().StateDir) {
			t.Errorf("during a run the mount table has %d lines, had %d:\n%s", n, before, table)
		}
	})
	if after, table := count(); after != before {
		t.Errorf("after the runs the mount table has %d lines, had %d:\n%s", after, before, table)
	}
}

// Every run gets a network namespace of its own, not the host's and not
// another run's, with nothing but a loopback device that is down. (Runs
// that overlap are compared: a namespace's inode number is reused once it
// is gone.)
func TestFreshNetworkNamespace(t *testing.T) {
	host, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	eachHelperPath(t, func(t *testing.T, sl *sandbox.Slot) {
		for round := 0; round < 3; round++ {
			var cmds []*sandbox.Cmd
			for _, trusted := range []bool{false, true} {
				cmd := sl.Command("/bin/sh", "-c", `readlink /proc/self/ns/net
tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '
grep -c 127.0.0.1 /proc/net/fib_trie || true
sleep 0.2`)
				cmd.Limits = sandbox.Limits{Processes: 20}
				cmd.Trusted = trusted
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, cmd)
			}
			seen := map[string]bool{host: true}
			for i, cmd := range cmds {
				res, err := cmd.Wait()
				if err != nil || res.Status != sandbox.OK {
					t.Fatalf("run %d: %v %+v", i, err, res)
				}
				lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
				if len(lines) != 3 || lines[1] != "lo" || lines[2] != "0" {
					t.Errorf("run %d: namespace, devices and loopback addresses:\n%s\nwant one, lo, 0", i, res.Stdout)
					continue
				}
				if seen[lines[0]] {
					t.Errorf("run %d: network namespace %s is the host's or the other run's", i, lines[0])
				}
				seen[lines[0]] = true
			}
		}
	})
}

// Close ends the zygote (and with it its template roots); later runs
// exec their helpers.
func TestCloseEndsZygote(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for the full sandbox")
	}
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 63200})
	if err != nil {
		t.Fatal(err)
	}
	sl := slotOf(t, sb)
	sandbox.Warm(sb)
	shell(t, sl, "true")
	pid := sandbox.ZygotePid(sb)
	if pid == 0 {
		t.Fatal("no zygote after a run")
	}
	sb.Close()
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the zygote (pid %d) outlived Close", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := shell(t, sl, "echo still works"); got != "still works\n" {
		t.Errorf("a run after Close printed %q", got)
	}
	if sandbox.ZygotePid(sb) != 0 {
		t.Error("Close did not stop the zygote for good")
	}
}

// TestSpaceSplit: where the kernel clones a detached mount (Linux 6.15),
// docket sends the box and /tmp as two clones and the helper attaches
// them as they are; elsewhere, and when told to, it sends the whole space
// and the helper splits it. Both helpers, both ways: the same box and
// /tmp, two mounts of one tmpfs, and nothing else of it.
func TestSpaceSplit(t *testing.T) {
	want := "whole"
	if canCloneDetached(t) {
		want = "split"
	}
	for _, mode := range []string{want, "whole"} {
		restore := sandbox.SplitSpace(mode == "split")
		log := filepath.Join(t.TempDir(), "debug.jsonl")
		sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 63100, DebugLog: log})
		if err != nil {
			t.Fatal(err)
		}
		sl := slotOf(t, sb)
		script := `echo a >/box/f && echo b >/tmp/g && cat /box/f /tmp/g
grep -cE ' /(box|tmp) ' /proc/self/mountinfo
[ "$(stat -f -c %i /box)" = "$(stat -f -c %i /tmp)" ] && echo one tmpfs`
		for i := 0; i < 3; i++ { // exec'd, then forked by the zygote
			cmd := sl.Command("/bin/sh", "-c", script)
			cmd.Limits = sandbox.Limits{Processes: 20}
			res := run(t, cmd)
			if got := string(res.Stdout); res.Status != sandbox.OK || got != "a\nb\n2\none tmpfs\n" {
				t.Errorf("%s, run %d: %s %q (stderr %q)", mode, i, res.Status, got, res.Stderr)
			}
			sandbox.Warm(sb)
		}
		helpers := map[any]bool{}
		for _, rec := range debugRecords(t, log) {
			helpers[rec["helper"]] = true
			if rec["space"] != mode {
				t.Errorf("space %v, want %s: %v", rec["space"], mode, rec)
			}
		}
		if !helpers["exec"] || !helpers["zygote"] {
			t.Errorf("%s: helpers %v, want both", mode, helpers)
		}
		sl.Release()
		sb.Close()
		restore()
	}
}

// canCloneDetached asks the kernel whether open_tree clones a directory
// of a detached tmpfs.
func canCloneDetached(t *testing.T) bool {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigCreate(fs); err != nil {
		t.Fatal(err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(mnt)
	if err := unix.Mkdirat(mnt, "d", 0o755); err != nil {
		t.Fatal(err)
	}
	clone, err := unix.OpenTree(mnt, "d", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err == nil {
		unix.Close(clone)
	}
	return err == nil
}

// TestSparesRefilled: the spare a run takes is replaced once the run is
// over, and during a run that lasts, never left missing.
func TestSparesRefilled(t *testing.T) {
	sb := testSandbox(t)
	if !sandbox.Warm(sb) {
		t.Skip("no zygote here (ExecHelpers, or no mount and pid namespaces)")
	}
	sl := slotOf(t, sb)
	waitSpares := func(what string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for sandbox.Spares(sb) < 2 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d spares, want 2", what, sandbox.Spares(sb))
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitSpares("warm")
	for i := 0; i < 3; i++ {
		if got := shell(t, sl, "echo ok"); got != "ok\n" {
			t.Fatalf("run %d: %q", i, got)
		}
		waitSpares(fmt.Sprintf("after run %d", i))
	}
	cmd := sl.Command("/bin/sleep", "2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitSpares("during a 2 s run") // well before it ends: refillDuring
	if res, err := cmd.Wait(); err != nil || res.Status != sandbox.OK {
		t.Fatalf("sleep: %v %+v", err, res)
	}
}
