package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox/cgroup"
	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/nsinit"
	"github.com/docketjudge/docket/sandbox/rlimit"
	"github.com/docketjudge/docket/sandbox/seccomp"
	"golang.org/x/sys/unix"
)

// TargetIsChildOfInit reports whether the target runs under an init
// process of the helper's (pid 2) rather than as PID 1 of its namespace.
// A namespace init does not receive the signals the kernel sends on its
// own behalf with default action (SIGXFSZ, SIGXCPU, a raised SIGABRT).
const TargetIsChildOfInit = nsinit.TargetIsChildOfInit

// BoxDir is where the box appears inside the sandbox.
const BoxDir = nsinit.BoxDir

// BaseEnv is the whole environment of a target before Cmd.Env: nothing of
// the worker's environment (NATS credentials) reaches a run.
var BaseEnv = []string{
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"HOME=" + BoxDir,
	"TMPDIR=/tmp",
	"LANG=C.UTF-8",
	"ONLINE_JUDGE=1",
}

// Cmd is one sandboxed process. Set the fields, then Run, or Start and Wait.
// Made with Slot.CommandContext, it is killed when its context ends.
type Cmd struct {
	Slot *Slot
	// Args holds argv; Args[0] is found in the working directory when it
	// contains a slash, else on the sandbox's PATH.
	Args []string
	// Env is added to BaseEnv ("KEY=value"; a later entry wins).
	Env []string
	// Dir is the working directory inside the sandbox; default /box.
	Dir string
	// Box is the host directory mounted read-write at /box. Empty: a fresh
	// box owned by the slot's uid, removed after the run.
	Box string
	// Binds are extra read-only directories (a language's toolchain).
	Binds []mount.Bind
	// Stdin: nil reads /dev/null. An *os.File is passed as is.
	Stdin io.Reader
	// Stdout, Stderr: an *os.File is passed as is (a file is capped by
	// FileSize; a pipe to another sandbox is not capped). Any other writer
	// gets the output through a pipe capped at Limits.Stdout / Limits.Stderr;
	// nil keeps it in Result.Stdout / Result.Stderr. When Stdout and Stderr
	// are the same writer (==, as os/exec compares them), both streams share
	// one pipe, as in a shell's 2>&1: the writer gets them in the order they
	// were written, from one goroutine, capped together at Limits.Stdout.
	Stdout io.Writer
	Stderr io.Writer
	Limits Limits
	// Network keeps the host's network (no network namespace, sockets allowed).
	Network bool
	// Trusted runs the process under the slot's trusted uid: for the
	// problem's own checkers and interactors.
	Trusted bool

	// ctx, from CommandContext, kills the run when it ends first.
	ctx context.Context

	// set by Start
	started  bool
	lim      Limits
	process  *os.Process // the helper
	pgid     bool        // the helper leads a process group (no pid namespace)
	group    cgroup.Group
	tmpBox   string
	space    *space         // the box and /tmp, with a mount namespace
	watchers sync.WaitGroup // watchdogs that use state cleanup frees
	start    time.Time
	done     chan struct{}
	copiers  sync.WaitGroup
	closers  []io.Closer
	stdout   *capped
	stderr   *capped
	killMu   sync.Mutex
	killed   Status
	killSrc  string
	killedAt time.Time // the first kill: when a run the sandbox ended ended
	setupErr string
	// the init protocol (TargetIsChildOfInit): what PID 1 reported
	records   chan struct{} // closed when the status pipe reached EOF
	targetWS  syscall.WaitStatus
	targetEnd time.Time
	hasWS     bool
	timer     *time.Timer
	debugRec  debugRecord
	fast      bool      // the helper comes from the zygote
	boxProbe  bool      // New's probe box: exec'd, not counted towards starting the zygote
	lastMark  time.Time // phases
	// onEnd runs once, as soon as the target is known to have ended (its
	// exit status read, a kill ordered, or the helper reaped): RunPair's
	// order of the two ends.
	onEnd   func()
	endOnce sync.Once
}

// Run starts the command and waits for it.
func (c *Cmd) Run() (*Result, error) {
	if err := c.Start(); err != nil {
		return nil, err
	}
	return c.Wait()
}

// SetupError is a failure of the sandbox itself before the target ran.
// Start returns it; the Result of such a run has Status SE.
type SetupError struct {
	Stage string
	Err   error
}

func (e *SetupError) Error() string { return "sandbox: " + e.Stage + ": " + e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// Start launches the helper, lets it apply every layer, moves it into the
// run's cgroup and releases it into execve.
func (c *Cmd) Start() (err error) {
	if c.started {
		return errors.New("sandbox: Cmd already started")
	}
	c.started = true
	c.mark("")
	if c.Slot == nil {
		return errors.New("sandbox: Cmd has no Slot")
	}
	if len(c.Args) == 0 {
		return errors.New("sandbox: Cmd has no Args")
	}
	if err := c.startCanceled(); err != nil {
		return err
	}
	sb := c.Slot.sb
	caps := sb.caps
	c.lim = c.Limits.withDefaults()
	c.done = make(chan struct{})
	c.debugRec = debugRecord{Argv: c.Args, Level: caps.Level.String(), Slot: c.Slot.N, Trusted: c.Trusted}
	defer func() {
		if err != nil {
			c.cleanup()
			c.debugRec.Error = err.Error()
			sb.debug.write(c.debugRec)
		}
	}()

	uid, gid := c.Slot.UID, c.Slot.GID
	if c.Trusted {
		uid, gid = c.Slot.TrustedUID, c.Slot.TrustedUID
	}
	seq := c.Slot.nextSeq()
	box := c.Box
	rooted := caps.hasNS("mnt") && caps.hasNS("pid")
	if rooted {
		// The box and /tmp: a bounded tmpfs of the run's own (space.go).
		if c.space, err = newSpace(box, c.lim, uid, gid); err != nil {
			return &SetupError{"box", err}
		}
	} else if box == "" {
		// No mount namespace (a level below full, reported as such):
		// the box is a host directory, bounded by RLIMIT_FSIZE alone.
		box = filepath.Join(sb.boxes, fmt.Sprintf("%s-s%d-%d", sb.RunPrefix(), c.Slot.N, seq))
		if err := os.Mkdir(box, 0o700); err != nil {
			return &SetupError{"box", err}
		}
		c.tmpBox = box
		if caps.UIDSwitch {
			if err := os.Chown(box, uid, gid); err != nil {
				return &SetupError{"box", err}
			}
		}
	}

	// The request: everything the helper will do.
	req := &nsinit.Request{
		Argv: c.Args,
		Env:  mergeEnv(BaseEnv, c.Env),
		Dir:  c.Dir,
		UID:  -1, GID: -1,
	}
	has := func(ns string) bool {
		for _, n := range caps.Namespaces {
			if n == ns {
				return true
			}
		}
		return false
	}
	flags := caps.cloneflags
	if c.Network {
		flags &^= unix.CLONE_NEWNET
	}
	var binds []mount.Bind
	if rooted {
		binds = append(append(binds, sb.cfg.Binds...), c.Binds...)
		req.Rootfs = &mount.Rootfs{
			MountPoint: sb.root, Binds: binds, Proc: true, FromFDs: true,
			DevByBind: !caps.Root, Masks: sb.masks,
		}
		if req.Dir == "" {
			req.Dir = BoxDir
		}
		c.fast = sb.fastEligible() && !c.boxProbe
	} else if req.Dir == "" {
		req.Dir = box
	}
	if has("uts") {
		req.Hostname = "docket"
	}
	if caps.UIDSwitch {
		req.UID, req.GID = uid, gid
	}
	useCgroup := sb.cg != nil
	rl := rlimit.Set{
		CPU: c.lim.CPUTime, AddressSpace: c.lim.AddressSpace, Stack: c.lim.Stack,
		FileSize: c.lim.FileSize, OpenFiles: c.lim.OpenFiles,
	}
	if !caps.cgroups.Usable(cgroup.Pids) && caps.UIDSwitch {
		rl.Processes = int(c.lim.tasks()) // fallback: the uid is the slot's alone
	}
	req.Rlimits = rlimit.Fit(rl.Limits(), caps.Root)
	if caps.Seccomp {
		progs, err := seccomp.Build(seccomp.Options{SingleProcess: c.lim.Processes <= 1, NoNetwork: !c.Network})
		if err != nil {
			return &SetupError{"seccomp", err}
		}
		req.Seccomp = progs
	}

	if useCgroup {
		name := fmt.Sprintf("%s-s%d-%d", sb.RunPrefix(), c.Slot.N, seq)
		if c.Trusted {
			name += "t"
		}
		c.group, err = sb.cg.New(name, cgroup.Spec{MemoryBytes: c.lim.Memory, Pids: c.lim.tasks(), CPUs: c.lim.CPUs})
		if err != nil {
			return &SetupError{"cgroup", err}
		}
	}

	c.mark("prepare: box, request, cgroup")
	// Pipes: request+release, status, and stdio.
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return &SetupError{"pipe", err}
	}
	statR, statW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return &SetupError{"pipe", err}
	}
	c.closers = append(c.closers, reqW, statR)
	childFiles := []*os.File{reqR, statW}
	stdin, stdout, stderr, err := c.stdio(&childFiles)
	if err != nil {
		closeAll(childFiles)
		return &SetupError{"stdio", err}
	}

	if c.fast {
		// The zygote forks the helper on a template root: the request
		// names only the box, /tmp and /proc.
		tr := *req
		tr.Rootfs = &mount.Rootfs{Template: true, FromFDs: true, Proc: true}
		var refill func()
		c.process, refill, err = sb.startFast(binds, flags, c.Network,
			nsinit.RunFiles{reqR, statW, stdin, stdout, stderr, c.space.mnt})
		defer refill() // after the ready byte, or when Start fails
		if err != nil {
			closeAll(childFiles)
			return err
		}
		if c.process != nil {
			req = &tr
		}
	}
	if c.process == nil {
		proc := exec.Command("/proc/self/exe")
		proc.Args = []string{nsinit.Arg0}
		proc.Env = []string{}
		proc.Stdin, proc.Stdout, proc.Stderr = stdin, stdout, stderr
		proc.ExtraFiles = []*os.File{reqR, statW}
		if c.space != nil {
			proc.ExtraFiles = append(proc.ExtraFiles, c.space.mnt) // mount.SpaceFD
		}
		proc.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags, Pdeathsig: syscall.SIGKILL, Setpgid: !has("pid")}
		if !caps.Root && caps.UserNS {
			proc.SysProcAttr.Cloneflags |= unix.CLONE_NEWUSER
			proc.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
			proc.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
			proc.SysProcAttr.Credential = &syscall.Credential{Uid: 0, Gid: 0}
		}
		err = proc.Start()
		if err != nil {
			closeAll(childFiles)
			if flags != 0 {
				// The host may have changed its policy since the cached
				// probe: the next Sandbox probes again.
				forgetProbe(c.Slot.sb.cfg.StateDir)
			}
			return &SetupError{"start helper", err}
		}
		// Waited for as an os.Process: every file is an *os.File, so
		// exec.Cmd has no copying of its own to wait for.
		c.process, c.pgid = proc.Process, proc.SysProcAttr.Setpgid
	}
	closeAll(childFiles) // the child has its copies
	proc := c.process
	c.debugRec.Helper = "exec"
	if req.Rootfs != nil && req.Rootfs.Template {
		c.debugRec.Helper = "zygote"
	}
	c.mark("helper: fork (or exec)")

	fail := func(stage string, err error) error {
		proc.Kill()
		proc.Wait()
		return &SetupError{stage, err}
	}
	if err := nsinit.WriteRequest(reqW, req); err != nil {
		return fail("send request", err)
	}
	statR.SetReadDeadline(time.Now().Add(10 * time.Second))
	kind, msg, err := readStatus(statR)
	if err != nil {
		return fail("helper", err)
	}
	if kind != nsinit.Ready {
		return fail("helper", errors.New(msg))
	}
	c.mark("helper: setup until ready")
	if c.group != nil {
		// Moved only now: v1 and v2 charge pages where they were faulted,
		// so the helper's own memory stays with docket, not the target.
		if err := c.group.AddProc(proc.Pid); err != nil {
			return fail("cgroup add", err)
		}
	}
	c.mark("helper: into the cgroup")
	c.start = time.Now()
	if _, err := reqW.Write([]byte{1}); err != nil {
		return fail("release", err)
	}
	if TargetIsChildOfInit {
		statR.SetReadDeadline(time.Time{})
		c.records = make(chan struct{})
		go c.readRecords(statR)
	} else {
		statR.SetReadDeadline(time.Now().Add(10 * time.Second))
		kind, msg, err = readStatus(statR)
		if err == nil && kind == nsinit.ExecError {
			c.setupErr = msg
		} else if err != nil && !errors.Is(err, io.EOF) {
			return fail("exec", err)
		}
	}
	// Watchdogs: wall clock and CPU (the rlimit is only a backstop).
	c.timer = time.AfterFunc(c.lim.WallTime, func() { c.kill(TLE, SourceWall) })
	if c.group != nil && caps.cgroups.Usable(cgroup.CPU) {
		go c.watchCPU(c.group)
	}
	if c.space != nil {
		c.watchers.Add(1)
		go c.watchDisk(c.space)
	}
	c.watchContext()
	return nil
}

// diskPoll is how often a run's writable space is measured. A full space
// only refuses further writes; the poll ends the run soon after, as OLE.
const diskPoll = 20 * time.Millisecond

// watchDisk ends the run as OLE "disk" once it has passed its disk limit.
func (c *Cmd) watchDisk(sp *space) {
	defer c.watchers.Done()
	t := time.NewTicker(diskPoll)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			if over, err := sp.passed(); err == nil && over {
				c.kill(OLE, SourceDisk)
				return
			}
		}
	}
}

// stdio turns the Cmd's reader and writers into files for the child.
func (c *Cmd) stdio(childFiles *[]*os.File) (in, out, errf *os.File, err error) {
	switch r := c.Stdin.(type) {
	case nil:
		in, err = os.Open(os.DevNull)
		if err != nil {
			return
		}
		*childFiles = append(*childFiles, in)
	case *os.File:
		if in, err = c.hidePath(r, childFiles); err != nil {
			return
		}
	default:
		pr, pw, e := os.Pipe()
		if e != nil {
			return nil, nil, nil, e
		}
		in = pr
		*childFiles = append(*childFiles, pr)
		c.copiers.Add(1)
		go func() {
			defer c.copiers.Done()
			io.Copy(pw, r) // EPIPE when the target stops reading: fine
			pw.Close()
		}()
	}
	mk := func(w io.Writer, limit int64, src string, truncate bool) (*os.File, *capped, error) {
		if f, ok := w.(*os.File); ok {
			f, err := c.hidePath(f, childFiles)
			return f, nil, err
		}
		pr, pw, e := os.Pipe()
		if e != nil {
			return nil, nil, e
		}
		*childFiles = append(*childFiles, pw)
		cp := &capped{w: w, limit: limit, truncate: truncate, onOver: func() { c.kill(OLE, src) }}
		c.copiers.Add(1)
		go func() {
			defer c.copiers.Done()
			cp.drain(pr)
			pr.Close()
		}()
		return pw, cp, nil
	}
	out, c.stdout, err = mk(c.Stdout, c.lim.Stdout, SourceOutput, false)
	if err != nil {
		return
	}
	if c.Stdout != nil && sameWriter(c.Stdout, c.Stderr) {
		// One pipe: two copiers would write into the one writer at once
		// (a data race) and lose the order of the streams.
		return in, out, out, nil
	}
	errf, c.stderr, err = mk(c.Stderr, c.lim.Stderr, SourceStderr, c.lim.TruncateStderr)
	return
}

// sameWriter is os/exec's test for a shared Stdout and Stderr: interface
// equality, and false for writers that cannot be compared.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() { recover() }()
	return a == b
}

// capped copies a pipe into a writer (or its own buffer) and calls onOver
// as soon as more than limit bytes arrive: a cap that holds on pipes, where
// RLIMIT_FSIZE does not apply. With truncate it keeps reading past the
// cap and drops the rest: the writer never blocks, nothing ends the run,
// and docket holds no more than limit bytes and one read buffer.
type capped struct {
	w        io.Writer
	buf      bytes.Buffer
	limit    int64
	n        int64
	over     bool
	truncate bool
	dropped  int64 // bytes read past the cap (truncate)
	onOver   func()
}

func (cp *capped) drain(r io.Reader) {
	b := make([]byte, 64<<10)
	for {
		n, err := r.Read(b)
		if n > 0 && cp.over {
			cp.dropped += int64(n)
		} else if n > 0 {
			cp.take(b[:n])
		}
		if err != nil {
			return
		}
	}
}

// take keeps what fits under the cap; the first byte past it calls onOver,
// or only counts as dropped when the cap truncates.
func (cp *capped) take(b []byte) {
	keep := int64(len(b))
	if cp.n+keep > cp.limit {
		keep = cp.limit - cp.n
		cp.over = true
	}
	if keep > 0 {
		if cp.w != nil {
			cp.w.Write(b[:keep])
		} else {
			cp.buf.Write(b[:keep])
		}
	}
	cp.n += keep
	if !cp.over {
		return
	}
	if cp.truncate {
		cp.dropped += int64(len(b)) - keep
		return
	}
	cp.onOver()
}

// readRecords reads PID 1's framed records until EOF: an exec failure
// message, then the target's wait status.
func (c *Cmd) readRecords(r io.Reader) {
	defer close(c.records)
	var hdr [5]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		v := uint32(hdr[1]) | uint32(hdr[2])<<8 | uint32(hdr[3])<<16 | uint32(hdr[4])<<24
		switch hdr[0] {
		case nsinit.ExecError:
			msg := make([]byte, min(v, 64<<10))
			n, _ := io.ReadFull(r, msg)
			c.setupErr = string(msg[:n])
		case nsinit.TargetStatus:
			c.targetEnd = time.Now()
			c.targetWS = syscall.WaitStatus(v)
			c.hasWS = true
			c.ended()
		default:
			return
		}
	}
}

func readStatus(r io.Reader) (byte, string, error) {
	b := make([]byte, 4096)
	n, err := r.Read(b)
	if n == 0 {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return 0, "", err
	}
	if b[0] != nsinit.Ready {
		// An error message: read it whole.
		rest, _ := io.ReadAll(io.LimitReader(r, 64<<10))
		return b[0], string(b[1:n]) + string(rest), nil
	}
	return b[0], "", nil
}

// kill ends the whole tree and records why, once: the first limit hit is
// the one reported.
func (c *Cmd) kill(status Status, source string) {
	c.killMu.Lock()
	if c.killed == "" {
		c.killed, c.killSrc, c.killedAt = status, source, time.Now()
	}
	c.killMu.Unlock()
	c.ended()
	c.killTree()
}

// ended runs the end hook, once.
func (c *Cmd) ended() {
	if c.onEnd != nil {
		c.endOnce.Do(c.onEnd)
	}
}

func (c *Cmd) killTree() {
	if c.process == nil {
		return
	}
	// The helper is PID 1 of the run's namespace: its death kills every
	// process in it. Without a pid namespace, the process group and the
	// cgroup.
	c.process.Signal(syscall.SIGKILL)
	if c.pgid {
		syscall.Kill(-c.process.Pid, syscall.SIGKILL)
	}
}

// watchCPU polls the cgroup's CPU time, sleeping as long as the remaining
// budget allows at full speed on every CPU, so a run is stopped within a few
// milliseconds of its limit with few reads. It gets the group as an
// argument: Wait's cleanup sets c.group to nil, possibly before this
// goroutine first runs (a short run), and a read of a removed group only
// fails.
func (c *Cmd) watchCPU(group cgroup.Group) {
	limit := c.lim.CPUTime
	ncpu := time.Duration(ncpus())
	for {
		used, err := group.CPUUsage()
		if err == nil && used > limit {
			c.kill(TLE, SourceCPU)
			return
		}
		sleep := (limit - used) / ncpu
		if sleep < 2*time.Millisecond {
			sleep = 2 * time.Millisecond
		} else if sleep > 100*time.Millisecond {
			sleep = 100 * time.Millisecond
		}
		select {
		case <-c.done:
			return
		case <-time.After(sleep):
		}
	}
}

// Wait waits for the tree to end, measures it, classifies it and removes
// every trace of the run.
func (c *Cmd) Wait() (*Result, error) {
	if c.process == nil {
		return nil, errors.New("sandbox: Cmd not started")
	}
	ps, werr := c.process.Wait()
	reaped := time.Now()
	c.ended()
	wall := reaped.Sub(c.start)
	if c.records != nil {
		<-c.records // init has exited: its end of the pipe is closed
		if c.hasWS {
			wall = c.targetEnd.Sub(c.start)
		}
	}
	if phases != nil && c.hasWS {
		phases.add("target: release to exit status", c.targetEnd.Sub(c.start))
		phases.add("teardown: exit status to reaped", reaped.Sub(c.targetEnd))
		c.lastMark = reaped
	}
	c.killMu.Lock()
	if !c.hasWS && !c.killedAt.IsZero() {
		// Killed with its namespace: it ended at the kill, not when the
		// teardown let Wait return (a pair's other side may notice the
		// end before that).
		wall = c.killedAt.Sub(c.start)
	}
	c.killMu.Unlock()
	close(c.done)
	c.watchers.Wait()
	c.timer.Stop()
	res := &Result{WallTime: wall, Started: c.start, Ended: c.start.Add(wall)}
	if ps == nil {
		res.Status, res.Source, res.Error = SE, SourceSandbox, "wait: "+fmt.Sprint(werr)
	}
	// Leftovers (only possible without a pid namespace: the helper's
	// death ends every process in it) are killed before the pipes can
	// close and the cgroup can go.
	if c.pgid {
		c.sweep()
	}
	c.copiers.Wait()
	if c.stdout != nil {
		res.Stdout = c.stdout.buf.Bytes()
	}
	if c.stderr != nil {
		res.Stderr, res.StderrDropped = c.stderr.buf.Bytes(), c.stderr.dropped
	}
	var st cgroup.Stats
	var stErr error
	if c.group != nil {
		st, stErr = c.group.Stats()
	}
	c.mark("output and measurement")
	if ps != nil {
		ws := ps.Sys().(syscall.WaitStatus)
		if c.hasWS {
			ws = c.targetWS // the target's own status, as PID 1 saw it
		}
		res.ExitCode = ws.ExitStatus()
		if ws.Signaled() {
			res.Signal = int(ws.Signal())
			res.ExitCode = 0
		}
		if c.group != nil && stErr == nil {
			res.CPUTime, res.UserTime, res.SysTime, res.Memory = st.CPU, st.User, st.System, st.MemoryPeak
		} else if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			// No cgroup: rusage of the direct child only (includes the
			// helper's pre-exec memory; reported as a missing layer).
			res.UserTime = time.Duration(ru.Utime.Nano())
			res.SysTime = time.Duration(ru.Stime.Nano())
			res.CPUTime = res.UserTime + res.SysTime
			res.Memory = ru.Maxrss << 10
		}
		c.classify(res, st, c.diskPassed())
	}
	if c.setupErr != "" {
		res.Status, res.Source, res.Error = SE, SourceSandbox, c.setupErr
		res.ExitCode, res.Signal = 0, 0
	}
	if stErr != nil && res.Status != SE {
		res.Status, res.Source, res.Error = SE, SourceSandbox, "cgroup stats: "+stErr.Error()
	}
	if err := c.copyBack(res); err != nil && res.Status != SE {
		res.Status, res.Source, res.Error = SE, SourceSandbox, err.Error()
	}
	if err := c.cleanup(); err != nil && res.Status != SE {
		res.Status, res.Source, res.Error = SE, SourceSandbox, err.Error()
	}
	c.mark("cleanup: cgroup, box")
	err := c.waitErr(res)
	c.debugRec.Status, c.debugRec.Source, c.debugRec.Error = string(res.Status), res.Source, res.Error
	c.Slot.sb.debug.write(c.debugRec)
	return res, err
}

// classify applies the precedence of limits: a kill docket ordered first
// (it happened first), then the kernel's OOM kill, the writable space
// found past its limit after the run (ENOSPC may have made the program
// fail or stop early: the cause is the disk), CPU time over the limit
// (the rlimit backstop, or a run that finished just over it), file size,
// seccomp, other signals, the exit code.
func (c *Cmd) classify(res *Result, st cgroup.Stats, diskPassed bool) {
	c.killMu.Lock()
	killed, src := c.killed, c.killSrc
	c.killMu.Unlock()
	switch {
	case killed != "":
		res.Status, res.Source = killed, src
	case st.OOMKills > 0:
		res.Status, res.Source = MLE, SourceMemory
	case diskPassed:
		res.Status, res.Source = OLE, SourceDisk
	case res.CPUTime > c.lim.CPUTime:
		res.Status, res.Source = TLE, SourceCPU
	case res.Signal == int(syscall.SIGXFSZ):
		res.Status, res.Source = OLE, SourceFileSize
	case res.Signal == int(syscall.SIGSYS):
		res.Status, res.Source = RE, SourceSeccomp
	case res.Signal == int(syscall.SIGKILL) && c.group != nil && st.MemoryPeak >= c.lim.Memory:
		res.Status, res.Source = MLE, SourceMemory
	case res.Signal != 0:
		res.Status, res.Source = RE, SourceSignal
	case res.ExitCode != 0:
		res.Status, res.Source = RE, SourceExitCode
	default:
		res.Status = OK
	}
}

// diskPassed reports whether the run ended past its disk limit.
func (c *Cmd) diskPassed() bool {
	if c.space == nil {
		return false
	}
	over, err := c.space.passed()
	return err == nil && over
}

// copyBack brings the box's changes back to Cmd.Box, unless the run
// passed its disk limit: then nothing of what it wrote remains.
func (c *Cmd) copyBack(res *Result) error {
	if c.space == nil || c.space.host == "" || (res.Status == OLE && res.Source == SourceDisk) {
		return nil
	}
	return c.space.copyBack()
}

// sweep kills whatever is still in the run's cgroup. Everything there was
// started by this run, so killing it never touches a foreign process.
func (c *Cmd) sweep() {
	if c.group == nil {
		return
	}
	for i := 0; i < 200; i++ {
		pids, err := c.group.Procs()
		if err != nil || len(pids) == 0 {
			return
		}
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// cleanup removes the cgroup and the temporary box.
func (c *Cmd) cleanup() error {
	var errs []string
	for _, cl := range c.closers {
		cl.Close()
	}
	c.closers = nil
	if c.group != nil {
		var err error
		for i := 0; i < 100; i++ {
			if err = c.group.Delete(); err == nil {
				break
			}
			c.sweep()
			time.Sleep(time.Millisecond)
		}
		if err != nil {
			errs = append(errs, "remove cgroup: "+err.Error())
		}
		c.group = nil
	}
	if c.space != nil {
		c.space.close()
		c.space = nil
	}
	if c.tmpBox != "" {
		if err := os.RemoveAll(c.tmpBox); err != nil {
			errs = append(errs, "remove box: "+err.Error())
		}
		c.tmpBox = ""
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// mergeEnv appends extra to base; a later KEY wins.
func mergeEnv(base, extra []string) []string {
	idx := map[string]int{}
	var out []string
	for _, kv := range append(append([]string{}, base...), extra...) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}

var ncpuOnce = sync.OnceValue(func() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil && set.Count() > 0 {
		return set.Count()
	}
	return 1
})

func ncpus() int { return ncpuOnce() }
