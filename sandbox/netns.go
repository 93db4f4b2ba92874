package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// A slot's network namespaces, one for its untrusted runs and one for its
// trusted ones, made once and entered by each run that keeps no network
// (request tag 'N'), instead of a new namespace per run: making one and
// tearing it down cost about 0.8 ms of CPU per run here, near a third of
// a run's whole cost (BenchmarkRunCPU; the kernel registers every
// protocol's sysctls and devices for it).
//
// A namespace consecutive runs share is as fresh as a new one only if no
// run leaves anything in it. Such a run's seccomp filter refuses
// socket(2) (and io_uring, and every foreign system call ABI), so the one
// thing it can make there is an AF_UNIX socket, by socketpair, which it
// may bind to an abstract name; the socket lives on after the run only if
// it is in flight (SCM_RIGHTS), and the next run could then probe the
// name. So before each run docket lists the namespace's unix sockets
// (sock_diag, through a netlink socket made inside it): any socket at all
// and the namespace is dropped for a new one. Two runs never share one at
// once: a slot runs one untrusted and one trusted process at a time, each
// role its own namespace.
//
// The check is made where it costs a run nothing when it can be: once a
// run that entered the namespace is over with every process of it (its
// helper reaped: PID 1's exit ended the rest; or, for a run whose target
// was its only process, the target reaped by PID 1, which makes no
// socket), and no run has entered since, nothing can make a socket there
// until the next run enters, so the namespace is checked then, first
// thing in the run's background teardown, and the next run takes it
// without asking again. A run that comes before that check is made (or
// that failed) asks itself, as before.
type netNS struct {
	ns      *os.File // the namespace, passed to the helper
	diag    int      // a NETLINK_SOCK_DIAG socket in it
	entries uint64   // runs handed the namespace so far
	clean   bool     // found empty since the last run that entered it ended
}

// newNetNS makes a network namespace from a locked OS thread, which then
// goes back to its own. The thread must not end in the new namespace
// instead (a goroutine that exits locked ends its thread): an exec'd
// helper's parent-death signal follows the thread that forked it, and any
// thread may have.
func newNetNS() (*netNS, error) {
	type made struct {
		n   *netNS
		err error
	}
	ch := make(chan made, 1)
	go func() {
		runtime.LockOSThread()
		n, back, err := netNSFromThread()
		ch <- made{n, err}
		if !back {
			select {} // cannot go back: keep the thread, out of Go's pool, for good
		}
		runtime.UnlockOSThread()
	}()
	m := <-ch
	return m.n, m.err
}

// netNSFromThread makes a network namespace from the calling thread,
// which must be locked, and brings the thread back into its own; back is
// false if it could not.
func netNSFromThread() (n *netNS, back bool, err error) {
	own, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, true, fmt.Errorf("sandbox: network namespace: %w", err)
	}
	defer own.Close()
	n, err = unshareNetNS()
	if errors.Is(err, errUnshare) {
		return nil, true, err
	}
	return n, unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil, err
}

// errUnshare: unshare failed, the thread is still in its own namespace.
var errUnshare = errors.New("unshare")

func unshareNetNS() (*netNS, error) {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("sandbox: network namespace: %w: %w", errUnshare, err)
	}
	ns, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, fmt.Errorf("sandbox: network namespace: %w", err)
	}
	diag, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		ns.Close()
		return nil, fmt.Errorf("sandbox: network namespace: sock_diag: %w", err)
	}
	return &netNS{ns: ns, diag: diag}, nil
}

func (n *netNS) close() {
	n.ns.Close()
	unix.Close(n.diag)
}

// unix_diag_req (linux/unix_diag.h) after its netlink header: family,
// protocol, pad, states, inode, show, cookie.
const unixDiagReqLen = 1 + 1 + 2 + 4 + 4 + 4 + 8

// errNotEmpty: the namespace holds a socket.
var errNotEmpty = errors.New("sandbox: the slot's network namespace holds a socket")

// empty asks the namespace for its unix sockets, in every state: nil when
// there are none.
func (n *netNS) empty() error {
	req := make([]byte, unix.NLMSG_HDRLEN+unixDiagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(req[8:], 1) // sequence number
	body := req[unix.NLMSG_HDRLEN:]
	body[0] = unix.AF_UNIX
	ne.PutUint32(body[4:], ^uint32(0)) // every state
	if err := unix.Sendto(n.diag, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("sandbox: sock_diag: %w", err)
	}
	// The whole dump is read, even past a first socket, so that the next
	// request's answer starts clean.
	buf := make([]byte, 8192)
	found := false
	for {
		m, _, err := unix.Recvfrom(n.diag, buf, 0)
		if err != nil {
			return fmt.Errorf("sandbox: sock_diag: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:m])
		if err != nil {
			return fmt.Errorf("sandbox: sock_diag: %w", err)
		}
		for _, msg := range msgs {
			switch msg.Header.Type {
			case unix.NLMSG_DONE:
				if found {
					return errNotEmpty
				}
				return nil
			case unix.NLMSG_ERROR:
				return fmt.Errorf("sandbox: sock_diag: %w", netlinkErr(msg.Data))
			case unix.SOCK_DIAG_BY_FAMILY:
				found = true
			}
		}
	}
}

func netlinkErr(data []byte) error {
	if len(data) < 4 {
		return errors.New("short netlink error")
	}
	return unix.Errno(-int32(binary.NativeEndian.Uint32(data)))
}

// slotNets are a slot's two namespaces, made when first needed.
type slotNets struct {
	untrusted, trusted *netNS
}

// netNSFor gives the namespace for a run of the slot (trusted or not):
// the one it has if it holds no socket, else a new one, and the run's
// entry number (settled). A new one is the Sandbox's made ahead if it
// has one (netns_ahead.go). Called with the slot's netMu held.
func (sn *slotNets) netNSFor(trusted bool, ahead *netAhead) (*netNS, uint64, error) {
	n := &sn.untrusted
	if trusted {
		n = &sn.trusted
	}
	if *n != nil && !(*n).clean {
		if err := (*n).empty(); err != nil {
			(*n).close() // it holds a socket (or cannot be asked): a new one
			*n = nil
		}
	}
	if *n == nil {
		*n = ahead.take()
	}
	if *n == nil {
		made, err := newNetNS()
		if err != nil {
			return nil, 0, err
		}
		*n = made
	}
	(*n).clean = false
	(*n).entries++
	return *n, (*n).entries, nil
}

// settled checks n for the next run once the run that entered it as
// entry is over with all its processes, if n is still the slot's and no
// run has entered it since (else the next run checks). Called with the
// slot's netMu held.
func (sn *slotNets) settled(n *netNS, entry uint64) {
	for _, cur := range []**netNS{&sn.untrusted, &sn.trusted} {
		if *cur != n || n.entries != entry {
			continue
		}
		if err := n.empty(); err != nil {
			n.close() // the next run gets a new one
			*cur = nil
			return
		}
		n.clean = true
	}
}

// close drops both namespaces.
func (sn *slotNets) close() {
	for _, n := range []**netNS{&sn.untrusted, &sn.trusted} {
		if *n != nil {
			(*n).close()
			*n = nil
		}
	}
}
