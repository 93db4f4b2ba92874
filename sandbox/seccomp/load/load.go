// Package load installs assembled seccomp filters. It is separate from
// package seccomp, which assembles them with go-seccomp-bpf, because it
// runs in the sandbox helper: a package with no heavy dependencies keeps
// the helper's start (every package init before its own) short.
//
// Programs is the parent's type in every build, but Install only runs in
// the pure-Go helper of builds without cgo; the normal, cgo build loads the
// filters in C (sandbox/nsinit/seccomp.c).
package load

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Program is one assembled filter.
type Program []unix.SockFilter

// Programs is a stack of filters, installed in order.
type Programs []Program

// Install loads the filters into the calling process: no_new_privs first
// (needed by an unprivileged caller, and it keeps the target from gaining
// privileges through setuid binaries), then each filter with TSYNC so every
// thread of the helper carries them into execve.
func Install(progs Programs) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("seccomp: no_new_privs: %w", err)
	}
	for i, p := range progs {
		if len(p) == 0 {
			continue
		}
		prog := unix.SockFprog{Len: uint16(len(p)), Filter: &p[0]}
		r, _, e := syscall.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
			unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
		if e != 0 {
			return fmt.Errorf("seccomp: load filter %d: %w", i, e)
		}
		if r != 0 {
			return fmt.Errorf("seccomp: load filter %d: thread %d could not be synchronised", i, r)
		}
	}
	return nil
}
