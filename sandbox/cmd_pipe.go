package sandbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// A run's pipes have one end for the helper or the target and one for
// docket. os.Pipe would put both in Go's poller: the child's end is then
// registered, switched back to blocking when its descriptor is sent, and
// unregistered at its close, about four system calls a pipe for nothing.
// These keep the child's end a plain blocking descriptor and put only
// docket's in the poller (deadlines and goroutine reads work on it).

// pipeToChild is a pipe the child reads from.
func pipeToChild() (child, parent *os.File, err error) {
	r, w, err := newPipe()
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(r), "|0"), pollable(w, "|1"), nil
}

// pipeFromChild is a pipe the child writes into.
func pipeFromChild() (parent, child *os.File, err error) {
	r, w, err := newPipe()
	if err != nil {
		return nil, nil, err
	}
	return pollable(r, "|0"), os.NewFile(uintptr(w), "|1"), nil
}

// statusPipe is the pipe of the helper's status messages. docket's end
// blocks, outside the poller: the read that waits for the target's
// status is then woken by the kernel in its own thread, not through the
// poller's thread and a second wakeup, one step less between the
// target's end and Wait's return. A blocked read cannot be given a
// deadline; handshake bounds the helper's setup by killing it instead.
func statusPipe() (parent, child *os.File, err error) {
	r, w, err := newPipe()
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(r), "|0"), os.NewFile(uintptr(w), "|1"), nil
}

func newPipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, os.NewSyscallError("pipe2", err)
	}
	return p[0], p[1], nil
}

// pollable makes fd non-blocking, which os.NewFile takes as a descriptor
// for the poller.
func pollable(fd int, name string) *os.File {
	unix.SetNonblock(fd, true) // cannot fail on a pipe we own; a blocking one would still work
	return os.NewFile(uintptr(fd), name)
}
