package main

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/sandbox/mount"
)

// The "clone namespaces" check: a run that may fork (compile steps,
// checkers, interactors, docket exec --processes) must get no namespace
// through clone(2), the one way in that unshare's and setns's kill and
// clone3's ENOSYS leave. A user namespace would give the program every
// capability inside it.

// cloneNamespaceFlags are the attempts, each with SIGCHLD as exit signal.
var cloneNamespaceFlags = []struct {
	name  string
	flags uintptr
}{
	{"CLONE_NEWUSER", syscall.CLONE_NEWUSER},
	{"CLONE_NEWUSER|CLONE_NEWNET", syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET},
	{"CLONE_NEWUSER|CLONE_NEWNS", syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS},
}

// cloneNamespacesCheck runs the probe in a multi-process run; it passes
// when every attempt was refused, by an error or by a seccomp kill.
func cloneNamespacesCheck(slot *sandbox.Slot, exe string) escapeCheck {
	cmd := slot.Command("/.selftest/docket", "clonens")
	cmd.Env = []string{"DOCKET_ESCAPE=1"}
	cmd.Binds = []mount.Bind{{Source: exe, Target: "/.selftest/docket"}}
	cmd.Limits = sandbox.Limits{CPUTime: time.Second, WallTime: 3 * time.Second, Memory: 128 << 20, Processes: 8}
	c := escapeCheck{Name: "clone namespaces"}
	res, err := cmd.Run()
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	out := strings.TrimSpace(string(res.Stdout))
	switch {
	case res.Status == sandbox.RE && res.Source == sandbox.SourceSeccomp:
		c.Passed, c.Detail = true, "RE seccomp"
	case res.Status == sandbox.OK && strings.HasPrefix(out, "contained"):
		c.Passed, c.Detail = true, "OK  "+out
	default:
		c.Detail = fmt.Sprintf("status %s (%s): %s %s", res.Status, res.Source, out, res.Error)
	}
	return c
}

// escapeCloneNS is the probe's side: one line, "contained" when every
// clone failed, "ESCAPED" naming the ones that made a child.
func escapeCloneNS() int {
	var refused, escaped []string
	for _, a := range cloneNamespaceFlags {
		if err := cloneChild(a.flags); err != nil {
			refused = append(refused, a.name+": "+err.Error())
		} else {
			escaped = append(escaped, a.name)
		}
	}
	if len(escaped) > 0 {
		fmt.Fprintf(stdout, "ESCAPED clone made a child with %s\n", strings.Join(escaped, ", "))
		return 0
	}
	fmt.Fprintf(stdout, "contained clone %s\n", strings.Join(refused, "; "))
	return 0
}

// cloneChild calls clone(2) fork-like (no new stack, no shared memory);
// the child leaves at once with raw system calls only, as the syscall
// package's own fork does.
func cloneChild(flags uintptr) error {
	pid, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, flags|uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if e != 0 {
		return e
	}
	if pid == 0 {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
	}
	var ws syscall.WaitStatus
	syscall.Wait4(int(pid), &ws, 0, nil)
	return nil
}
