//go:build !cgo

// The pure-Go helper, for builds without cgo. It must behave exactly like
// the C helper (nsinit.c): same order of steps, same messages.

package nsinit

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/rlimit"
	"github.com/docketjudge/docket/sandbox/seccomp/load"
	"golang.org/x/sys/unix"
)

// goHelper is the whole helper; its result is the exit code.
func goHelper() int {
	// Every step below and the final execve happen on this thread, so
	// per-thread state (pdeathsig) is the target's.
	runtime.LockOSThread()
	reqPipe := os.NewFile(3, "request")
	status := os.NewFile(4, "status")
	req, err := readRequest(reqPipe)
	if err != nil {
		return report(status, SetupError, "read request", err)
	}
	path, stage, err := setup(req)
	if err != nil {
		return report(status, SetupError, stage, err)
	}
	if _, err := status.Write([]byte{Ready}); err != nil {
		return 1
	}
	var release [1]byte
	if n, _ := reqPipe.Read(release[:]); n != 1 {
		return 1 // the parent gave up: never run the target
	}
	resetSignals()
	err = syscall.Exec(path, req.Argv, req.Env)
	return report(status, ExecError, "execve "+req.Argv[0], err)
}

// setup applies every layer in order and resolves the program. The order
// matters: mounts need root, so the uid switch follows them; so do the
// rlimits, since raising a hard limit above the worker's own needs root's
// CAP_SYS_RESOURCE; the uid switch clears pdeathsig, so it is set again
// after; seccomp comes last because it forbids mount and friends.
func setup(req *Request) (path, stage string, err error) {
	if req.Rootfs != nil {
		if err := mount.Build(*req.Rootfs); err != nil {
			return "", "mount", err
		}
	}
	if req.Hostname != "" {
		if err := unix.Sethostname([]byte(req.Hostname)); err != nil {
			return "", "sethostname", err
		}
	}
	if err := rlimit.Apply(req.Rlimits); err != nil {
		return "", "rlimit", err
	}
	if req.UID >= 0 {
		if err := syscall.Setgroups(nil); err != nil {
			return "", "setgroups", err
		}
		if err := syscall.Setresgid(req.GID, req.GID, req.GID); err != nil {
			return "", "setresgid", err
		}
		if err := syscall.Setresuid(req.UID, req.UID, req.UID); err != nil {
			return "", "setresuid", err
		}
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return "", "pdeathsig", err
	}
	if req.Dir != "" {
		if err := unix.Chdir(req.Dir); err != nil {
			return "", "chdir " + req.Dir, err
		}
	}
	path, err = lookPath(req.Argv[0], req.Env)
	if err != nil {
		return "", "find program", err
	}
	// Every inherited descriptor above stderr closes at execve, the status
	// pipe included: its EOF tells the parent that execve succeeded.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return "", "close_range", err
	}
	if req.Seccomp != nil {
		if err := load.Install(req.Seccomp); err != nil {
			return "", "seccomp", err
		}
	}
	return path, "", nil
}

// lookPath finds argv[0] the way a shell inside the sandbox would: a name
// with a slash as is (relative to the working directory), else on PATH.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		if err := executable(name); err != nil {
			return "", err
		}
		return name, nil
	}
	pathVar := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			pathVar = v
		}
	}
	for _, dir := range strings.Split(pathVar, ":") {
		if dir == "" {
			continue
		}
		p := dir + "/" + name
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found in the box or on PATH %s", name, pathVar)
}

func executable(p string) error {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return fmt.Errorf("%s: is a directory", p)
	}
	if err := unix.Access(p, unix.X_OK); err != nil {
		return fmt.Errorf("%s: not executable: %w", p, err)
	}
	return nil
}

func report(status *os.File, kind byte, stage string, err error) int {
	msg := stage
	if err != nil {
		msg += ": " + err.Error()
	}
	status.Write(append([]byte{kind}, msg...))
	return 127
}

// TargetIsChildOfInit: this helper execs the target itself, so the target
// is PID 1 of its namespace (see sandbox.TargetIsChildOfInit).
const TargetIsChildOfInit = false

// HasZygote: without cgo there is no zygote; every helper is exec'd.
const HasZygote = false

// resetSignals gives the target default signal dispositions and an empty
// signal mask. execve resets handled signals but keeps ignored and blocked
// ones, and the Go runtime ignores or blocks some.
func resetSignals() {
	type sigaction struct {
		handler  uintptr
		flags    uint64
		restorer uintptr
		mask     uint64
	}
	dfl := sigaction{}
	for sig := 1; sig <= 64; sig++ {
		if sig == int(unix.SIGKILL) || sig == int(unix.SIGSTOP) {
			continue
		}
		unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	}
	var empty uint64
	unix.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&empty)), 0, 8, 0, 0)
}
