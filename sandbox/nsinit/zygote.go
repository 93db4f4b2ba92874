package nsinit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/seccomp/load"
	"golang.org/x/sys/unix"
)

// MaxTemplates is how many template roots one zygote holds
// (DK_MAX_TEMPLATES in nsinit.h).
const MaxTemplates = 64

// maxZygoteMessage bounds one message to the zygote (DK_ZYGOTE_MAX_MSG).
const maxZygoteMessage = 256 << 10

const zygoteHeader = 16

// ErrZygoteGone means the zygote has exited or does not answer; the
// caller starts helpers itself.
var ErrZygoteGone = errors.New("nsinit: the zygote is gone")

// Zygote is docket's end of a zygote (zygote.c documents the protocol): a
// C process that holds template roots and forks run helpers on them.
// Its methods may be called from several goroutines; the zygote serves one
// request at a time.
type Zygote struct {
	mu   sync.Mutex
	fd   int // our end of the control socket; -1 once closed
	proc *os.Process
}

// StartZygote starts the zygote. start runs the prepared command: the
// caller runs it on an OS thread that lives as long as the zygote, since
// the zygote's parent-death signal, and that of every helper it forks,
// follows the thread that started it.
func StartZygote(start func(*exec.Cmd) error) (*Zygote, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("nsinit: zygote socket: %w", err)
	}
	// A zygote that hangs must not hang a run: 10 s, as for the helper's
	// ready byte.
	tv := unix.NsecToTimeval(int64(10 * time.Second))
	unix.SetsockoptTimeval(fds[0], unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.SetsockoptTimeval(fds[0], unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	theirs := os.NewFile(uintptr(fds[1]), "zygote")
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{ZygoteArg0}
	cmd.Env = []string{}
	cmd.ExtraFiles = []*os.File{theirs} // fd 3
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = start(cmd)
	theirs.Close()
	if err != nil {
		unix.Close(fds[0])
		return nil, fmt.Errorf("nsinit: start zygote: %w", err)
	}
	go cmd.Wait() // it is reaped whenever it ends
	return &Zygote{fd: fds[0], proc: cmd.Process}, nil
}

// ZygoteError is the zygote's own refusal ('E'), with its message.
type ZygoteError struct{ Msg string }

// Error is the zygote's message, as it sent it.
func (e *ZygoteError) Error() string { return e.Msg }

// call sends one message with files and reads the reply: the pid of a
// 'P' reply and the descriptor it carries (or -1), nil for 'K', a
// *ZygoteError for 'E'. Transport failures are ErrZygoteGone, and close
// the zygote.
func (z *Zygote) call(kind byte, id uint32, flags uint64, payload []byte, files []int) (int, int, error) {
	msg := make([]byte, zygoteHeader, zygoteHeader+len(payload))
	msg[0] = kind
	binary.LittleEndian.PutUint32(msg[4:], id)
	binary.LittleEndian.PutUint64(msg[8:], flags)
	msg = append(msg, payload...)
	if len(msg) > maxZygoteMessage {
		return 0, -1, fmt.Errorf("nsinit: zygote message too large (%d bytes)", len(msg))
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.fd < 0 {
		return 0, -1, ErrZygoteGone
	}
	gone := func(err error) (int, int, error) {
		z.closeLocked()
		return 0, -1, fmt.Errorf("%w: %v", ErrZygoteGone, err)
	}
	if err := sendFds(z.fd, msg, files); err != nil {
		return gone(err)
	}
	buf := make([]byte, 8+4096)
	oob := make([]byte, unix.CmsgSpace(4))
	var n, oobn int
	for {
		var err error
		n, oobn, _, _, err = unix.Recvmsg(z.fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return gone(err)
		}
		break
	}
	fd := -1
	if oobn > 0 {
		if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				if fds, err := unix.ParseUnixRights(&m); err == nil {
					for _, f := range fds {
						if fd < 0 {
							fd = f
						} else {
							unix.Close(f)
						}
					}
				}
			}
		}
	}
	if n < 8 {
		if fd >= 0 {
			unix.Close(fd)
		}
		return gone(fmt.Errorf("reply of %d bytes", n))
	}
	switch buf[0] {
	case 'P':
		return int(int32(binary.LittleEndian.Uint32(buf[4:]))), fd, nil
	case 'K':
		return 0, fd, nil
	case SetupError:
		return 0, fd, &ZygoteError{Msg: string(buf[8:n])}
	}
	if fd >= 0 {
		unix.Close(fd)
	}
	return gone(fmt.Errorf("reply kind 0x%02x", buf[0]))
}

func sendFds(sock int, msg []byte, files []int) error {
	var oob []byte
	if len(files) > 0 {
		oob = unix.UnixRights(files...)
	}
	for {
		err := unix.Sendmsg(sock, msg, oob, nil, unix.MSG_NOSIGNAL)
		if err != unix.EINTR {
			return err
		}
	}
}

// BuildTemplate has the zygote build a template root with this id from r
// (its binds, masks and /dev; no box, no /tmp, no /proc). The error is
// the build's message, as a full build would word it.
func (z *Zygote) BuildTemplate(id uint32, r *mount.Rootfs) error {
	b, err := encodeRequest(&Request{Argv: []string{"template"}, UID: -1, GID: -1, Rootfs: r})
	if err != nil {
		return err
	}
	_, _, err = z.call('T', id, 0, b[4:], nil)
	return err
}

// DropTemplate releases a template root.
func (z *Zygote) DropTemplate(id uint32) error {
	_, _, err := z.call('D', id, 0, nil, nil)
	return err
}

// RunFiles are a helper's descriptors: the request pipe, the status pipe,
// stdin, stdout, stderr, the run's space (mount.SpaceFD; the box's clone
// with mount.Rootfs.Split), then up to MaxCgroupFDs cgroup join files
// (Request.CgroupFDs), the network namespace (Request.NetNS) and, with
// Split, /tmp's clone (dk_space_tmp_fd in nsinit.h).
type RunFiles []*os.File

func (f RunFiles) fds() []int {
	fds := make([]int, len(f))
	for i, file := range f {
		fds[i] = int(file.Fd())
	}
	return fds
}

// Clone forks a helper for a run now, on template id, into new namespaces
// (clone flags, without CLONE_NEWNS: its root is a copy of the template).
// The helper is docket's child: wait for it with os.FindProcess(pid).
func (z *Zygote) Clone(id uint32, flags uintptr, files RunFiles) (int, error) {
	pid, fd, err := z.call('C', id, uint64(flags), nil, files.fds())
	if fd >= 0 {
		unix.Close(fd)
	}
	return pid, err
}

// Spare is a helper forked ahead of its run: already in its namespaces
// and its copy of the template, waiting for Run. It is docket's child.
type Spare struct {
	Pid  int
	sock *os.File
}

// Spare forks a helper on template id, into new namespaces, that waits
// for its run; with pre, a filter it loads first (package seccomp's
// PreFilter: the run's target then loads only the delta). A spare that
// cannot load it exits, and Run fails.
func (z *Zygote) Spare(id uint32, flags uintptr, pre load.Program) (*Spare, error) {
	var payload []byte
	if pre != nil {
		b, err := encodeRequest(&Request{Argv: []string{"spare"}, UID: -1, GID: -1, Seccomp: load.Programs{pre}})
		if err != nil {
			return nil, err
		}
		payload = b[4:]
	}
	pid, fd, err := z.call('S', id, uint64(flags), payload, nil)
	if err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return nil, err
	}
	if fd < 0 {
		return nil, fmt.Errorf("nsinit: the zygote sent spare %d without its socket", pid)
	}
	return &Spare{Pid: pid, sock: os.NewFile(uintptr(fd), "spare")}, nil
}

// Run hands the spare its run's files; from here on it is a helper like
// any other. Either way the spare is used up. They go in the order of the
// numbers the helper has them at (stdin, stdout, stderr, the request and
// status pipes, the rest as they are), which is where they arrive
// (wait_for_run in zygote.c).
func (s *Spare) Run(files RunFiles) error {
	fds := files.fds()
	if len(fds) >= 5 {
		fds = append([]int{fds[2], fds[3], fds[4], fds[0], fds[1]}, fds[5:]...)
	}
	err := sendFds(int(s.sock.Fd()), []byte{'G'}, fds)
	s.sock.Close()
	return err
}

// Discard lets the spare go: it exits (wait for it).
func (s *Spare) Discard() { s.sock.Close() }

// Close closes the control socket, which ends the zygote, and with it
// every template.
func (z *Zygote) Close() {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.closeLocked()
}

func (z *Zygote) closeLocked() {
	if z.fd >= 0 {
		unix.Close(z.fd)
		z.fd = -1
		z.proc.Kill()
	}
}

// Pid is the zygote's process id.
func (z *Zygote) Pid() int { return z.proc.Pid }
