package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox/cgroup"
	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/nsinit"
	"github.com/docketjudge/docket/sandbox/seccomp"
	"golang.org/x/sys/unix"
)

// pipes are a run's descriptors: the request pipe, the status pipe, the
// child's stdio and the cgroup files the target joins. child holds the
// child's ends, closed once the helper has its copies; docket's ends are
// among the run's closers.
type pipes struct {
	reqR, reqW, statR, statW *os.File
	stdin, stdout, stderr    *os.File
	cgroup                   []*os.File // cgroup.JoinFiles, for the target
	cgroupInto               bool       // cgroup's last file is the group's directory (cgroup.CloneDir)
	netns                    *os.File   // the slot's network namespace (netns.go), or nil
	box, tmp                 *os.File   // the space's directories, cloned (space.clones), or nil
	child                    []*os.File
}

// spaceFile is the descriptor at mount.SpaceFD: the box's clone where
// there is one (mount.Rootfs.Split), else the run's space, else nil.
func (p *pipes) spaceFile(sp *space) *os.File {
	if p.box != nil {
		return p.box
	}
	if sp != nil {
		return sp.mnt
	}
	return nil
}

// helperFiles are the descriptors after the run's space: the cgroup
// files, then the network namespace (nsinit.NetNSFD), then /tmp's clone
// (dk_space_tmp_fd in sandbox/nsinit/nsinit.h).
func (p *pipes) helperFiles() []*os.File {
	files := p.cgroup
	for _, f := range []*os.File{p.netns, p.tmp} {
		if f != nil {
			files = append(files[:len(files):len(files)], f)
		}
	}
	return files
}

// openPipes makes the request and status pipes and the child's stdio.
func (c *Cmd) openPipes() (*pipes, error) {
	s := c.state
	p := &pipes{}
	var err error
	if s.pipesAhead = c.Slot.pipes.take(); s.pipesAhead != nil {
		set := s.pipesAhead
		p.reqR, p.reqW, p.statR, p.statW = set.req.child, set.req.parent, set.status.parent, set.status.child
		set.req, set.status = pipePair{}, pipePair{}
		defer set.close() // the output pipes stdio did not take
		s.debugRec.Pipes = true
	} else if err = c.newPipes(p); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, p.reqW, p.statR)
	p.child = []*os.File{p.reqR, p.statW}
	if p.stdin, p.stdout, p.stderr, err = c.stdio(&p.child); err != nil {
		closeAll(p.child)
		return nil, &SetupError{"stdio", err}
	}
	if s.group != nil {
		if err := c.openJoinFiles(p); err != nil {
			closeAll(p.child)
			return nil, &SetupError{"cgroup", err}
		}
	}
	if c.slotNetNS() {
		// The slot's, not the run's: not in p.child, which is closed.
		n, entry, err := c.Slot.netNS(c.Trusted)
		if err != nil {
			closeAll(p.child)
			return nil, &SetupError{"netns", err}
		}
		p.netns, s.net, s.netEntry = n.ns, n, entry
	}
	if s.space != nil && c.rooted() {
		if p.box, p.tmp = s.space.clones(); p.box != nil {
			p.child = append(p.child, p.box, p.tmp)
		}
	}
	return p, nil
}

// newPipes makes the request and status pipes, where none were made
// ahead (pipes_ahead.go).
func (c *Cmd) newPipes(p *pipes) error {
	var err error
	if p.reqR, p.reqW, err = pipeToChild(); err != nil {
		return &SetupError{"pipe", err}
	}
	if p.statR, p.statW, err = statusPipe(); err != nil {
		p.reqR.Close()
		p.reqW.Close()
		return &SetupError{"pipe", err}
	}
	return nil
}

// openJoinFiles gets the files through which the target joins the run's
// group: the kept group's own, which stay open with it, or opened for the
// run's own group, closed with the child's ends.
func (c *Cmd) openJoinFiles(p *pipes) error {
	s := c.state
	p.cgroupInto = c.Slot.sb.cgroupInto()
	var err error
	if s.kept != nil {
		p.cgroup, err = s.kept.joinFiles(p.cgroupInto)
		return err
	}
	if p.cgroup, err = joinFiles(s.group, p.cgroupInto); err == nil {
		p.child = append(p.child, p.cgroup...)
	}
	return err
}

// joinFiles are the files through which the target joins g: JoinFiles',
// then, where the target is started in the group (into:
// Sandbox.cgroupInto), its directory.
func joinFiles(g cgroup.Group, into bool) ([]*os.File, error) {
	files, err := cgroup.JoinFiles(g)
	if err != nil || !into {
		return files, err
	}
	dir, err := cgroup.CloneDir(g)
	if err != nil {
		closeAll(files)
		return nil, err
	}
	return append(files, dir), nil
}

// spawn starts the helper, forked by the zygote on a template root where
// it can, else exec'd, and sends it its request (a template helper's
// names only the box, /tmp and /proc). It returns the zygote's refill,
// to call once the run is over (Cmd.refillSpares) or Start has failed
// (never nil).
func (c *Cmd) spawn(req *nsinit.Request, binds []mount.Bind, p *pipes) (func(), error) {
	s := c.state
	refill := func() {}
	if s.fast {
		var err error
		if req, refill, err = c.spawnFast(req, binds, p); err != nil {
			closeAll(p.child)
			return refill, err
		}
	}
	if s.process == nil {
		if err := c.spawnExec(p); err != nil {
			closeAll(p.child)
			return refill, err
		}
	}
	if requestHook != nil {
		requestHook(req)
	}
	// The request goes before anything else: the helper is waiting for
	// it, and the child's ends can be closed while it works.
	err := nsinit.WriteRequest(p.reqW, req)
	closeAll(p.child) // the child has its copies
	if err != nil {
		s.process.Kill()
		s.process.Wait()
		return refill, &SetupError{"send request", err}
	}
	s.debugRec.Helper = "exec"
	if req.Rootfs != nil && req.Rootfs.Template {
		s.debugRec.Helper = "zygote"
	}
	c.mark("helper: fork (or exec)")
	return refill, nil
}

// requestHook, set by tests alone (export_test.go), sees each request
// as it goes to the helper, and may change it.
var requestHook func(*nsinit.Request)

// spawnFast takes the helper from the zygote (fastpath.go). Without one
// ready it leaves s.process nil and req as it is: the helper is exec'd.
func (c *Cmd) spawnFast(req *nsinit.Request, binds []mount.Bind, p *pipes) (*nsinit.Request, func(), error) {
	s := c.state
	h, refill, err := c.Slot.sb.startFast(binds, c.cloneflags(),
		append(nsinit.RunFiles{p.reqR, p.statW, p.stdin, p.stdout, p.stderr, p.spaceFile(s.space)}, p.helperFiles()...))
	if err != nil || h.proc == nil {
		return req, refill, err
	}
	s.process = h.proc
	tr := *req
	tr.Rootfs = &mount.Rootfs{Template: true, FromFDs: true, Proc: true, Split: req.Rootfs.Split}
	if h.pre && req.Seccomp != nil {
		// Over the pre-filter the spare loaded, the delta is the run's
		// filter. Without one (it does not assemble), the whole filter:
		// stacked on the looser pre-filter it is still exactly the run's.
		if delta, err := seccomp.Delta(s.filter); err == nil {
			tr.Seccomp = delta
			s.debugRec.Filter = "delta"
		}
	}
	return &tr, refill, nil
}

// spawnExec executes the docket binary as the helper, in the run's new
// namespaces (a user namespace too when docket is not root).
func (c *Cmd) spawnExec(p *pipes) error {
	s, caps, flags := c.state, c.caps(), c.cloneflags()
	proc := exec.Command("/proc/self/exe")
	proc.Args = []string{nsinit.Arg0}
	proc.Env = []string{}
	proc.Stdin, proc.Stdout, proc.Stderr = p.stdin, p.stdout, p.stderr
	// mount.SpaceFD; without a space, fd 5 is closed
	proc.ExtraFiles = append([]*os.File{p.reqR, p.statW, p.spaceFile(s.space)}, p.helperFiles()...) // nsinit.CgroupFD on
	proc.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags, Pdeathsig: syscall.SIGKILL, Setpgid: !caps.hasNS("pid")}
	if !caps.Root && caps.UserNS {
		proc.SysProcAttr.Cloneflags |= unix.CLONE_NEWUSER
		proc.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		proc.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
		proc.SysProcAttr.Credential = &syscall.Credential{Uid: 0, Gid: 0}
	}
	if err := proc.Start(); err != nil {
		if flags != 0 {
			// The host may have changed its policy since the cached
			// probe: the next Sandbox probes again.
			forgetProbe(c.Slot.sb.cfg.StateDir)
		}
		return &SetupError{"start helper", err}
	}
	// Waited for as an os.Process: every file is an *os.File, so
	// exec.Cmd has no copying of its own to wait for.
	s.process, s.pgid = proc.Process, proc.SysProcAttr.Setpgid
	return nil
}

// readyTimeout bounds the helper's setup, until its ready message.
const readyTimeout = 10 * time.Second

// handshake waits until the helper has applied every layer: it then
// starts the target at once, which joins the run's cgroup itself
// (cgroup.JoinFiles), so no round trip separates the helper's setup from
// the target's start. A failure kills and reaps the helper.
func (c *Cmd) handshake(p *pipes) error {
	s := c.state
	fail := func(stage string, err error) error {
		s.process.Kill()
		s.process.Wait()
		return &SetupError{stage, err}
	}
	// A helper that never answers is killed: the read then ends at EOF.
	stuck := time.AfterFunc(readyTimeout, func() { s.process.Kill() })
	kind, msg, stamp, err := readStatus(p.statR)
	if !stuck.Stop() && err != nil {
		err = fmt.Errorf("no answer in %v: %w", readyTimeout, err)
	}
	if err != nil {
		return fail("helper", err)
	}
	if kind != nsinit.Ready {
		return fail("helper", errors.New(msg))
	}
	s.start = stampTime(stamp)
	c.mark("helper: setup until ready")
	s.records, s.gotStatus = make(chan struct{}), make(chan struct{})
	if c.onEnd == nil {
		// Read by Wait itself (readStatusNow): nothing needs the
		// target's end before Wait does.
		s.statusPipe = p.statR
		return nil
	}
	go func() { c.endRecords(p.statR, c.readRecords(p.statR)) }()
	return nil
}

// readStatusNow reads PID 1's records in Wait's own goroutine, where no
// one needed the target's end sooner (a pair does: it reads them in the
// background from the handshake on): the kernel then wakes the thread
// that waits, not one that wakes it. The stamp in the status keeps the
// target's end where PID 1 saw it, however late Wait comes. The rest, to
// EOF, is read in the background.
func (c *Cmd) readStatusNow() {
	s := c.state
	r := s.statusPipe
	if r == nil {
		return
	}
	s.statusPipe = nil
	go c.endRecords(r, c.readRecords(r)) // readRecords here, in Wait
}

// endRecords reads PID 1's records to EOF (PID 1 exits after the status:
// got) and closes s.records.
func (c *Cmd) endRecords(r io.Reader, got bool) {
	defer close(c.state.records)
	if got {
		io.Copy(io.Discard, r)
	}
}

// readRecords reads PID 1's framed records until the target's wait
// status, reporting true, or until EOF or a malformed record: an exec
// failure message, then the status and the time PID 1 reaped the target.
func (c *Cmd) readRecords(r io.Reader) bool {
	s := c.state
	var hdr [5 + nsinit.StatusStamp]byte
	for {
		if _, err := io.ReadFull(r, hdr[:5]); err != nil {
			return false
		}
		v := uint32(hdr[1]) | uint32(hdr[2])<<8 | uint32(hdr[3])<<16 | uint32(hdr[4])<<24
		switch hdr[0] {
		case nsinit.ExecError:
			msg := make([]byte, min(v, 64<<10))
			n, _ := io.ReadFull(r, msg)
			s.setupErr = string(msg[:n])
		case nsinit.TargetStatus:
			if _, err := io.ReadFull(r, hdr[5:]); err != nil {
				return false
			}
			s.targetEnd = stampTime(binary.LittleEndian.Uint64(hdr[5:]))
			s.targetWS = syscall.WaitStatus(v)
			s.hasWS = true
			close(s.gotStatus)
			c.ended()
			return true
		default:
			return false
		}
	}
}

// readStatus reads the helper's first message: the ready byte and its
// CLOCK_MONOTONIC stamp (the records that follow are readRecords'), or an
// error kind and its message, read until EOF.
func readStatus(r io.Reader) (kind byte, msg string, stamp uint64, err error) {
	var b [1 + nsinit.ReadyStamp]byte
	if _, err := io.ReadFull(r, b[:1]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, "", 0, err
	}
	if b[0] == nsinit.Ready {
		if _, err := io.ReadFull(r, b[1:]); err != nil {
			return 0, "", 0, fmt.Errorf("ready stamp: %w", err)
		}
		return b[0], "", binary.LittleEndian.Uint64(b[1:]), nil
	}
	rest, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	return b[0], string(rest), 0, nil
}

// stampTime is when the helper took a stamp (CLOCK_MONOTONIC ns, the
// clock of every process here), as a time.Time: its ready message, just
// before the target starts, and the target's status, when PID 1 reaped
// it. docket may read either later on a busy machine, so the run's wall
// clock starts and stops at the stamps, not at the reads. A stamp that is
// not in the last minute (a clock docket does not share) is ignored: the
// read then stands for it, as it used to.
func stampTime(stamp uint64) time.Time {
	now := time.Now()
	if age, ok := nsinit.StampAge(stamp); ok {
		return now.Add(-age)
	}
	return now
}
