package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"

	"github.com/docketjudge/docket/sandbox/cgroup"
	"github.com/docketjudge/docket/sandbox/nsinit"
	"github.com/docketjudge/docket/sandbox/seccomp"
	"golang.org/x/sys/unix"
)

// Level is how strongly runs are isolated, strongest last.
type Level int

const (
	// LevelNone: the kernel takes no seccomp filter, which every other
	// level needs.
	LevelNone Level = iota + 1
	// LevelRlimits: no namespaces; rlimits, seccomp and cgroups where
	// available. The target shares the host's filesystem view.
	LevelRlimits
	// LevelUserNS: docket is not root; namespaces come from a user
	// namespace, the target keeps docket's uid.
	LevelUserNS
	// LevelFull: every layer (namespaces, new root, uid switch, memory,
	// pids and CPU cgroups, seccomp).
	LevelFull
)

var levelNames = map[Level]string{LevelNone: "none", LevelRlimits: "rlimits", LevelUserNS: "userns", LevelFull: "full"}

// String is the level's name, as configuration and ParseLevel spell it
// ("none", "rlimits", "userns", "full").
func (l Level) String() string {
	if n, ok := levelNames[l]; ok {
		return n
	}
	return fmt.Sprintf("level(%d)", int(l))
}

// ParseLevel reads a level name.
func ParseLevel(s string) (Level, error) {
	for l, n := range levelNames {
		if n == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("unknown isolation level %q (full, userns, rlimits, none)", s)
}

// Layer is one isolation mechanism and whether runs get it.
type Layer struct {
	Name   string `json:"name"`
	Active bool   `json:"active"`
	Detail string `json:"detail,omitempty"` // what is used, or why it is unavailable
}

// Capabilities is what the host allows.
type Capabilities struct {
	Root          bool     `json:"root"`
	Namespaces    []string `json:"namespaces"` // usable: mnt pid net ipc uts cgroup (user)
	UserNS        bool     `json:"user_namespace"`
	UIDSwitch     bool     `json:"uid_switch"`
	CgroupVersion string   `json:"cgroup_version"`
	Seccomp       bool     `json:"seccomp"`
	Level         Level    `json:"-"`
	LevelName     string   `json:"level"`
	Layers        []Layer  `json:"layers"`

	cloneflags uintptr
	cgroups    cgroup.Availability
}

// Missing lists the layers that are not active, with reasons.
func (c Capabilities) Missing() []string {
	var out []string
	for _, l := range c.Layers {
		if !l.Active {
			out = append(out, l.Name+": "+l.Detail)
		}
	}
	return out
}

func (c Capabilities) hasNS(ns string) bool {
	for _, n := range c.Namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

// Layer returns the named layer.
func (c Capabilities) Layer(name string) (Layer, bool) {
	for _, l := range c.Layers {
		if l.Name == name {
			return l, true
		}
	}
	return Layer{}, false
}

var namespaceFlags = []struct {
	name string
	flag uintptr
}{
	{"mnt", unix.CLONE_NEWNS}, {"pid", unix.CLONE_NEWPID}, {"net", unix.CLONE_NEWNET},
	{"ipc", unix.CLONE_NEWIPC}, {"uts", unix.CLONE_NEWUTS}, {"cgroup", unix.CLONE_NEWCGROUP},
}

// tryClone starts the probe helper with the given clone flags.
func tryClone(flags uintptr, user bool) error {
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{nsinit.ProbeArg0}
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags, Pdeathsig: syscall.SIGKILL}
	if user {
		cmd.SysProcAttr.Cloneflags |= unix.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
		cmd.SysProcAttr.GidMappingsEnableSetgroups = false
	}
	return cmd.Run()
}

// probe finds what the host allows: namespaces (cached per boot), the
// new root, the uid switch, cgroups, seccomp; and the level they give.
func probe(stateDir string, cg cgroup.Manager, cgErr error) Capabilities {
	c := Capabilities{Root: os.Geteuid() == 0}
	c.probeNamespaces(stateDir)
	if c.hasNS("mnt") && c.hasNS("pid") {
		c.add("filesystem", true, "pivot_root into a read-only tmpfs root with read-only binds, private /tmp, fresh /proc, minimal /dev")
	} else {
		c.add("filesystem", false, "needs mount and pid namespaces")
	}
	c.UIDSwitch = c.Root
	if c.UIDSwitch {
		c.add("uid", true, "targets run as their slot's unprivileged uid")
	} else {
		c.add("uid", false, "docket is not root: targets keep docket's uid")
	}
	if cgErr != nil || cg == nil {
		c.noCgroups(cgErr)
	} else {
		c.probeCgroups(cg)
	}
	c.Seccomp = seccomp.Supported()
	if c.Seccomp {
		c.add("seccomp", true, "allowlist filter; hostile calls kill, clone3/io_uring ENOSYS, clone EPERM outside its flag allowlist (no namespaces), fork EPERM for single-process runs, socket EACCES without network")
	} else {
		c.add("seccomp", false, "the kernel refuses seccomp filters")
	}
	c.setLevel()
	return c
}

// add reports one layer.
func (c *Capabilities) add(name string, active bool, detail string) {
	c.Layers = append(c.Layers, Layer{Name: name, Active: active, Detail: detail})
}

// probeNamespaces reports the user namespace (without root) and each
// namespace a run is cloned into.
func (c *Capabilities) probeNamespaces(stateDir string) {
	user := !c.Root
	ns := probeNamespacesCached(stateDir, user)
	if user {
		if ns.UserErr != "" {
			c.add("namespace:user", false, "user namespace refused: "+ns.UserErr+
				" (Ubuntu: kernel.apparmor_restrict_unprivileged_userns=1?)")
		} else {
			c.UserNS = true
			c.add("namespace:user", true, "docket is not root: namespaces are created in a user namespace")
		}
	}
	canNS := c.Root || c.UserNS
	for _, n := range namespaceFlags {
		switch why, tried := ns.Refused[n.name]; {
		case !canNS:
			c.add("namespace:"+n.name, false, "no privilege to create namespaces")
		case tried && why != "":
			c.add("namespace:"+n.name, false, why)
		default:
			c.Namespaces = append(c.Namespaces, n.name)
			c.cloneflags |= n.flag
			c.add("namespace:"+n.name, true, "")
		}
	}
}

// noCgroups reports the cgroup layers missing, each with its reason.
func (c *Capabilities) noCgroups(cgErr error) {
	c.CgroupVersion = "none"
	msg := "unavailable"
	if cgErr != nil {
		msg = cgErr.Error()
	}
	var ue *cgroup.UnavailableError
	for _, ctl := range []string{cgroup.Memory, cgroup.Pids, cgroup.CPU} {
		why := msg
		if errors.As(cgErr, &ue) && ue.Controllers[ctl] != "" {
			why = ue.Controllers[ctl]
		}
		c.add("cgroup:"+ctl, false, why)
	}
	c.cgroups = cgroup.Availability{}
}

// probeCgroups reports each controller of the cgroup manager.
func (c *Capabilities) probeCgroups(cg cgroup.Manager) {
	c.CgroupVersion = cg.Version().String()
	c.cgroups = cg.Controllers()
	names := make([]string, 0, len(c.cgroups))
	for n := range c.cgroups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		why := c.cgroups[n]
		detail := why
		if why == "" {
			detail = cg.Parent()
		}
		if n == cgroup.Cpuset {
			// Pinning is optional: report it, never require it.
			if why != "" {
				detail = "optional CPU pinning unavailable: " + why
			}
		}
		c.add("cgroup:"+n, why == "", detail)
	}
}

// setLevel derives the level from the layers found.
func (c *Capabilities) setLevel() {
	cgOK := c.cgroups.Usable(cgroup.Memory) && c.cgroups.Usable(cgroup.Pids) && c.cgroups.Usable(cgroup.CPU)
	allNS := c.hasNS("mnt") && c.hasNS("pid") && c.hasNS("net") && c.hasNS("ipc") && c.hasNS("uts")
	switch {
	case c.Root && allNS && cgOK && c.Seccomp:
		c.Level = LevelFull
	case c.UserNS && allNS && c.Seccomp:
		c.Level = LevelUserNS
	case c.Seccomp:
		c.Level = LevelRlimits
	default:
		c.Level = LevelNone
	}
	c.LevelName = c.Level.String()
}

// Summary is a one-line description for logs.
func (c Capabilities) Summary() string {
	return fmt.Sprintf("level=%s namespaces=%s cgroup=%s seccomp=%v uid_switch=%v",
		c.Level, strings.Join(c.Namespaces, ","), c.CgroupVersion, c.Seccomp, c.UIDSwitch)
}
