package execcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// requestTimeout bounds how long a client may take to send its request:
// a connection that sends nothing holds no goroutine for long.
const requestTimeout = 10 * time.Second

// clientName names the client in the messages it prints.
const clientName = "docket-exec-client"

// errPeer means a client runs as another user than the server.
var errPeer = errors.New("client of another user")

// handle serves one client: checks who it is, reads its request, runs its
// command with the client's stdout and stderr, and answers with the exit
// code. A bad request gets a message on the client's stderr when it sent
// one, and exit code 2.
func (s *server) handle(conn *sockConn) {
	defer conn.Close()
	if err := s.checkPeer(conn); err != nil {
		fmt.Fprintf(s.log, "docket-exec: refused a client: %v\n", err)
		return
	}
	conn.SetReadDeadline(time.Now().Add(requestTimeout))
	req, out, err := readRequest(conn)
	defer out.close()
	if err == nil {
		err = s.sameEnv(req.Env)
	}
	if err != nil {
		fmt.Fprintf(s.log, "docket-exec: refused a request: %v\n", err)
		if out.stderr != nil {
			fmt.Fprintf(out.stderr, "%s: %v\n", clientName, err)
		}
		conn.Write([]byte{ExitUsage})
		return
	}
	conn.SetReadDeadline(time.Time{})
	ctx, cancel := context.WithCancel(s.runs)
	defer cancel()
	// The client sends nothing more: a read that returns means it is gone
	// (or broke the protocol), and its run is killed.
	go func() {
		var b [1]byte
		conn.Read(b[:])
		cancel()
	}()
	code := Command{Name: clientName, Slot: s.lend, Stdout: out.stdout, Stderr: out.stderr, Dir: req.Dir, Context: ctx}.Main(req.Args)
	conn.Write([]byte{byte(code)})
}

// checkPeer admits a client of the server's own user only: the socket's
// mode says the same, this holds even if the mode is changed.
func (s *server) checkPeer(conn *sockConn) error {
	cred, err := conn.peer()
	if err != nil {
		return err
	}
	if int(cred.Uid) != s.uid {
		return fmt.Errorf("%w: uid %d (pid %d); this server serves uid %d", errPeer, cred.Uid, cred.Pid, s.uid)
	}
	return nil
}

// clientOut is the client's stdout and stderr, received with its request.
type clientOut struct{ stdout, stderr *os.File }

func (o clientOut) close() {
	for _, f := range []*os.File{o.stdout, o.stderr} {
		if f != nil {
			f.Close()
		}
	}
}

// maxFDs is room for more descriptors than a request has, so that one
// with too many is seen and refused rather than cut short.
const maxFDs = 16

// firstRead is how much of a request the first read takes: the length
// and, for a usual command line, the whole body.
const firstRead = 64 << 10

// readRequest reads a request (serve_request.go) and the descriptors that
// came with it. The descriptors are returned whenever there were exactly
// requestFDs of them, even with an error about the rest.
func readRequest(conn *sockConn) (request, clientOut, error) {
	buf := make([]byte, firstRead)
	oob := make([]byte, unix.CmsgSpace(maxFDs*4))
	n, oobn, flags, err := conn.recvmsg(buf, oob)
	if err != nil {
		return request{}, clientOut{}, err
	}
	fds, err := receivedFDs(oob[:oobn], flags)
	if err != nil {
		return request{}, clientOut{}, err
	}
	out := clientOut{os.NewFile(uintptr(fds[0]), "client stdout"), os.NewFile(uintptr(fds[1]), "client stderr")}
	if n < 4 {
		m, err := io.ReadFull(conn, buf[n:4])
		if err != nil {
			return request{}, out, fmt.Errorf("%w: %v", errRequest, err)
		}
		n += m
	}
	length, err := requestLength(buf[:4])
	if err != nil {
		return request{}, out, err
	}
	if n-4 > length {
		return request{}, out, fmt.Errorf("%w: %d bytes after a body of %d", errRequest, n-4-length, length)
	}
	body := make([]byte, length)
	got := copy(body, buf[4:n])
	if _, err := io.ReadFull(conn, body[got:]); err != nil {
		return request{}, out, fmt.Errorf("%w: %d bytes announced: %v", errRequest, length, err)
	}
	req, err := parseRequest(body)
	return req, out, err
}

// receivedFDs are the descriptors of a message's control data, which must
// be exactly requestFDs and nothing else; on an error, whatever came is
// closed.
func receivedFDs(oob []byte, flags int) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, fmt.Errorf("%w: control data: %v", errRequest, err)
	}
	var fds []int
	for i := range msgs {
		got, err := unix.ParseUnixRights(&msgs[i])
		if err != nil {
			closeFDs(fds)
			return nil, fmt.Errorf("%w: control data: %v", errRequest, err)
		}
		fds = append(fds, got...)
	}
	if len(fds) != requestFDs || flags&unix.MSG_CTRUNC != 0 {
		closeFDs(fds)
		return nil, fmt.Errorf("%w: %d descriptors (want stdout and stderr)", errRequest, len(fds))
	}
	return fds, nil
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
