package execcli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// The server's socket, on the runtime's poller through os.File rather
// than package net: net would link its cgo name resolver into the static
// docket-exec (a glibc warning at link time, and package inits every
// docket-exec start would pay for).

// unixListener is the listening socket.
type unixListener struct {
	f    *os.File
	path string
}

// listen makes the socket, readable and writable by its owner alone. A
// socket file left by a server that is gone is replaced; one a server
// still answers on, or a file of another kind, is an error.
func listen(path string) (*unixListener, error) {
	if st, err := os.Lstat(path); err == nil {
		if st.Mode().Type() != os.ModeSocket {
			return nil, fmt.Errorf("%s exists and is not a socket: not replacing it", path)
		}
		if answers(path) {
			return nil, fmt.Errorf("a server already listens on %s", path)
		}
		os.Remove(path)
	}
	addr := &unix.SockaddrUnix{Name: path}
	if len(path) >= 108 { // sun_path, with its NUL
		return nil, fmt.Errorf("socket path %s: %d bytes, more than a unix socket's 107", path, len(path))
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	if err := unix.Bind(fd, addr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("bind %s: %w", path, err)
	}
	// Connecting needs write permission on the socket file: with the
	// usual umask, no one but the owner has it between bind and chmod.
	if err := os.Chmod(path, 0o600); err != nil {
		unix.Close(fd)
		os.Remove(path)
		return nil, err
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		os.Remove(path)
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	return &unixListener{f: os.NewFile(uintptr(fd), path), path: path}, nil
}

// answers says whether a server accepts connections on path.
func answers(path string) bool {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return unix.Connect(fd, &unix.SockaddrUnix{Name: path}) == nil
}

// accept waits for the next client; after Close it returns an error.
func (l *unixListener) accept() (*sockConn, error) {
	raw, err := l.f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var nfd int
	var acceptErr error
	err = raw.Read(func(fd uintptr) bool {
		nfd, _, acceptErr = unix.Accept4(int(fd), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		return !errors.Is(acceptErr, unix.EAGAIN)
	})
	if err != nil {
		return nil, err
	}
	if acceptErr != nil {
		return nil, acceptErr
	}
	return &sockConn{f: os.NewFile(uintptr(nfd), "client")}, nil
}

// Close stops listening and removes the socket file.
func (l *unixListener) Close() error {
	os.Remove(l.path)
	return l.f.Close()
}

// sockConn is one client's connection.
type sockConn struct{ f *os.File }

func (c *sockConn) Read(b []byte) (int, error)        { return c.f.Read(b) }
func (c *sockConn) Write(b []byte) (int, error)       { return c.f.Write(b) }
func (c *sockConn) SetReadDeadline(t time.Time) error { return c.f.SetReadDeadline(t) }
func (c *sockConn) Close() error                      { return c.f.Close() }

// peer is the client's credentials, as the kernel saw them at connect.
func (c *sockConn) peer() (*unix.Ucred, error) {
	raw, err := c.f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, credErr
}

// recvmsg reads data and control data (descriptors arrive close-on-exec,
// so no run started meanwhile inherits them), honouring the read deadline.
func (c *sockConn) recvmsg(p, oob []byte) (n, oobn, flags int, err error) {
	raw, err := c.f.SyscallConn()
	if err != nil {
		return 0, 0, 0, err
	}
	var recvErr error
	err = raw.Read(func(fd uintptr) bool {
		n, oobn, flags, _, recvErr = unix.Recvmsg(int(fd), p, oob, unix.MSG_CMSG_CLOEXEC)
		return !errors.Is(recvErr, unix.EAGAIN)
	})
	if err != nil {
		return 0, 0, 0, err
	}
	if recvErr == nil && n == 0 {
		recvErr = fmt.Errorf("%w: the client closed before its request", errRequest)
	}
	return n, oobn, flags, recvErr
}
