package seccomp

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Supported reports whether the kernel accepts seccomp filters.
func Supported() bool {
	// Strict mode with a non-zero flag is always EINVAL when seccomp exists.
	_, _, e := syscall.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_STRICT, 1, 0)
	return e == unix.EINVAL
}
