package seccomp

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

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
		filter := make([]syscall.SockFilter, len(p))
		for j, ins := range p {
			filter[j] = syscall.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
		}
		prog := syscall.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
		_, _, e := syscall.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
			unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
		if e != 0 {
			return fmt.Errorf("seccomp: load filter %d: %w", i, e)
		}
	}
	return nil
}

// Supported reports whether the kernel accepts seccomp filters.
func Supported() bool {
	// Strict mode with a non-zero flag is always EINVAL when seccomp exists.
	_, _, e := syscall.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_STRICT, 1, 0)
	return e == unix.EINVAL
}
