package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/docketjudge/docket/sandbox/cgroup"
	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/nsinit"
	"github.com/docketjudge/docket/sandbox/rlimit"
	"github.com/docketjudge/docket/sandbox/seccomp"
)

// Start launches the helper and lets it apply every layer; the helper then
// starts the target, which joins the run's cgroup and execs. The steps, in order:
//
//  1. begin: check the Cmd, make its run state (this file);
//  2. prepareBox: the run's own space, or a host directory (this file);
//  3. buildRequest: everything the helper will do (this file);
//  4. makeGroup: the run's cgroup (this file);
//  5. openPipes: request, status and stdio (cmd_spawn.go, cmd_stdio.go);
//  6. spawn: the helper, forked by the zygote or exec'd, and its request
//     (cmd_spawn.go);
//  7. handshake: wait until the helper is ready; the target then starts
//     at once and joins the cgroup itself (cmd_spawn.go);
//  8. armWatchdogs: wall clock, CPU, disk, context (cmd_watch.go).
//
// A failed step undoes what the earlier ones made (cleanup, cmd_wait.go).
func (c *Cmd) Start() (err error) {
	if err := c.begin(); err != nil {
		return err
	}
	s := c.state
	defer func() {
		if err != nil {
			s.cleanup()
			s.debugRec.Error = err.Error()
			c.Slot.sb.debug.write(s.debugRec)
		}
	}()
	uid, gid := c.ids()
	seq := c.Slot.nextSeq()
	box, err := c.prepareBox(seq, uid, gid)
	if err != nil {
		return err
	}
	binds := c.binds()
	req, err := c.buildRequest(box, binds, uid, gid)
	if err != nil {
		return err
	}
	if err := c.makeGroup(seq); err != nil {
		return err
	}
	c.mark("prepare: box, request, cgroup")
	p, err := c.openPipes()
	if err != nil {
		return err
	}
	req.CgroupFDs, req.CgroupInto, req.NetNS = len(p.cgroup), p.cgroupInto, p.netns != nil
	if req.Rootfs != nil {
		req.Rootfs.Split = p.tmp != nil
		s.debugRec.Space = "whole"
		if req.Rootfs.Split {
			s.debugRec.Space = "split"
		}
	}
	refill, err := c.spawn(req, binds, p)
	s.refill = sync.OnceFunc(refill) // once the run is over (refillSpares), or now if Start fails
	if err != nil {
		s.refill()
		return err
	}
	if err := c.handshake(p); err != nil {
		s.refill()
		return err
	}
	c.armWatchdogs()
	c.makeAheadDuringRun()
	return nil
}

// begin checks what a run needs and makes its state; a Cmd starts once.
func (c *Cmd) begin() error {
	if c.state != nil {
		return errors.New("sandbox: Cmd already started")
	}
	c.state = &runState{}
	if c.Slot == nil {
		return errors.New("sandbox: Cmd has no Slot")
	}
	c.mark("")
	if len(c.Args) == 0 {
		return errors.New("sandbox: Cmd has no Args")
	}
	if c.Box != "" && c.BoxFrom != "" {
		return errors.New("sandbox: Cmd has both Box and BoxFrom")
	}
	if err := c.startCanceled(); err != nil {
		return err
	}
	s := c.state
	s.lim = c.Limits.withDefaults()
	s.debugRec = debugRecord{Argv: c.Args, Level: c.caps().Level.String(), Slot: c.Slot.N, Trusted: c.Trusted}
	return nil
}

func (c *Cmd) caps() *Capabilities { return &c.Slot.sb.caps }

// ids are the uid and gid the target runs as.
func (c *Cmd) ids() (uid, gid int) {
	if c.Trusted {
		return c.Slot.TrustedUID, c.Slot.TrustedUID
	}
	return c.Slot.UID, c.Slot.GID
}

// rooted: the run gets a root of its own (mount and pid namespaces).
func (c *Cmd) rooted() bool {
	caps := c.caps()
	return caps.hasNS("mnt") && caps.hasNS("pid")
}

// runName names the run's cgroup and temporary box, unique on the host.
func (c *Cmd) runName(seq uint64) string {
	return fmt.Sprintf("%s-s%d-%d", c.Slot.sb.RunPrefix(), c.Slot.N, seq)
}

// prepareBox makes the run's box. Rooted, the box and /tmp are a bounded
// tmpfs of the run's own (space.go), and the box's host path is "".
// Without a mount namespace (a level below full, reported as such) the box
// is a host directory, Cmd.Box or a fresh one, bounded by RLIMIT_FSIZE
// alone; its path is returned.
func (c *Cmd) prepareBox(seq uint64, uid, gid int) (string, error) {
	s := c.state
	if c.rooted() {
		key := keyOf(c, s.lim, uid, gid)
		s.spaceKey = &key
		if s.space = c.Slot.ahead.take(key); s.space != nil {
			s.debugRec.Ahead = true
			return "", nil
		}
		var err error
		if s.space, err = newSpace(key); err != nil {
			return "", &SetupError{"box", err}
		}
		return "", nil
	}
	if c.Box != "" {
		return c.Box, nil
	}
	box := filepath.Join(c.Slot.sb.boxes, c.runName(seq))
	if err := os.Mkdir(box, 0o700); err != nil {
		return "", &SetupError{"box", err}
	}
	s.tmpBox = box
	if c.caps().UIDSwitch {
		if err := os.Chown(box, uid, gid); err != nil {
			return "", &SetupError{"box", err}
		}
	}
	if c.BoxFrom != "" {
		if err := copyTree(c.BoxFrom, box); err != nil {
			return "", &SetupError{"box", err}
		}
	}
	return box, nil
}

// binds are the root's read-only binds: the Sandbox's, then the Cmd's.
func (c *Cmd) binds() []mount.Bind {
	if !c.rooted() {
		return nil
	}
	return append(append([]mount.Bind(nil), c.Slot.sb.cfg.Binds...), c.Binds...)
}

// cloneflags are the namespaces the helper is started in (runFlags).
func (c *Cmd) cloneflags() uintptr { return c.Slot.sb.runFlags(c.Network) }

// slotNetNS says whether the run enters its slot's network namespace
// (netns.go) rather than one made for it: a run that keeps no network.
func (c *Cmd) slotNetNS() bool { return !c.Network && c.Slot.sb.slotNetNS() }

// buildRequest is everything the helper will do: the root (rooted), the
// working directory, the hostname, the uid switch, the rlimits and the
// seccomp filter. box is the host directory of an unrooted run.
func (c *Cmd) buildRequest(box string, binds []mount.Bind, uid, gid int) (*nsinit.Request, error) {
	sb, caps, s := c.Slot.sb, c.caps(), c.state
	req := &nsinit.Request{
		Argv: c.Args,
		Env:  mergeEnv(BaseEnv, c.Env),
		Dir:  c.Dir,
		UID:  -1, GID: -1,
	}
	if c.rooted() {
		req.Rootfs = &mount.Rootfs{
			MountPoint: sb.root, Binds: binds, Proc: true, FromFDs: true,
			DevByBind: !caps.Root, Masks: sb.masks,
		}
		if req.Dir == "" {
			req.Dir = BoxDir
		}
		s.fast = sb.fastEligible() && !c.boxProbe
	} else if req.Dir == "" {
		req.Dir = box
	}
	if caps.hasNS("uts") {
		req.Hostname = "docket"
	}
	if caps.UIDSwitch {
		req.UID, req.GID = uid, gid
	}
	req.Rlimits = c.Slot.sb.ceiling.Fit(c.rlimits().Limits())
	if caps.Seccomp {
		s.single = s.lim.Processes <= 1
		s.filter = seccomp.Options{SingleProcess: s.single, NoNetwork: !c.Network}
		progs, err := seccomp.Build(s.filter)
		if err != nil {
			return nil, &SetupError{"seccomp", err}
		}
		req.Seccomp = progs
	}
	return req, nil
}

// rlimits are the run's resource limits; the number of processes only
// where no pids cgroup counts them and the uid is the slot's alone.
func (c *Cmd) rlimits() rlimit.Set {
	lim, caps := c.state.lim, c.caps()
	rl := rlimit.Set{
		CPU: lim.CPUTime, AddressSpace: lim.AddressSpace, Stack: lim.Stack,
		FileSize: lim.FileSize, OpenFiles: lim.OpenFiles,
	}
	if !caps.cgroups.Usable(cgroup.Pids) && caps.UIDSwitch {
		rl.Processes = int(lim.tasks())
	}
	return rl
}

// makeGroup takes the slot's kept cgroup for the run's role, reset for
// its limits, or else creates one for the run, where the host has cgroups.
func (c *Cmd) makeGroup(seq uint64) error {
	sb, s := c.Slot.sb, c.state
	if sb.cg == nil {
		return nil
	}
	spec := cgroup.Spec{MemoryBytes: s.lim.Memory, Pids: s.lim.tasks(), CPUs: s.lim.CPUs}
	s.groupSpec = spec
	// A run of a OneRun Sandbox has no next run to keep a group for: it
	// gets its own, removed with it.
	if !sb.cfg.OneRun {
		if s.kept = c.Slot.takeKept(c.Trusted, spec); s.kept != nil {
			s.group = s.kept.g
			return nil
		}
	}
	name := c.runName(seq)
	if c.Trusted {
		name += "t"
	}
	var err error
	s.group, err = sb.cg.New(name, spec)
	if err != nil {
		// The host may have changed since the cached trial creation:
		// the next Sandbox tries again.
		forgetCgroupTrials(sb.cfg.StateDir)
		return &SetupError{"cgroup", err}
	}
	return nil
}
