package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// v2Manager: one unified directory per run beneath a parent whose
// cgroup.subtree_control enables the controllers the runs need.
type v2Manager struct {
	mount  string // where cgroup2 is mounted
	parent string // relative to mount, e.g. /user.slice/.../docket
	avail  Availability
	swap   bool // memory.swap.max exists (the kernel accounts swap)
}

func openV2(mount string, opts Options) (Manager, error) {
	parent := opts.Parent
	if parent == "" {
		own, err := ownPaths()
		if err != nil {
			return nil, fmt.Errorf("cgroup: %w", err)
		}
		p, ok := own[""]
		if !ok {
			return nil, fmt.Errorf("%w: this process is in no cgroup v2 group", ErrUnavailable)
		}
		if path.Base(p) == supervisorLeaf {
			// An earlier Manager of this process moved it into the leaf
			// (moveSelfToLeaf): its groups, and this one's, go beside
			// the leaf, where the controllers are enabled. (Beneath the
			// leaf, which holds docket and its zygote, none could be.)
			p = path.Dir(p)
		}
		parent = path.Join(p, "docket")
	}
	m := &v2Manager{mount: mount, parent: parent, avail: Availability{}}
	if err := os.MkdirAll(filepath.Join(mount, parent), 0o755); err != nil {
		return nil, fmt.Errorf("%w: create %s: %v", ErrUnavailable, filepath.Join(mount, parent), err)
	}
	if err := opts.tryCreate(filepath.Join(mount, parent)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if err := m.enableControllers(opts.Parent == ""); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(mount, parent, "memory.swap.max")); err == nil {
		m.swap = true
	}
	return m, nil
}

// enableControllers turns on memory, pids and cpuset for the children of
// the parent. A controller can only be enabled where the grandparent
// already offers it, and, by the "no internal processes" rule, only in a
// cgroup without member processes: when docket's own cgroup holds docket
// itself, docket moves only its own process into a leaf (never a process it
// did not start) and retries.
func (m *v2Manager) enableControllers(ownCgroup bool) error {
	dir := filepath.Join(m.mount, m.parent)
	offered := map[string]bool{}
	if b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers")); err == nil {
		for _, c := range strings.Fields(string(b)) {
			offered[c] = true
		}
	}
	parentOfParent := filepath.Dir(dir)
	failed := map[string]error{} // why enabling one level up failed, for the reason below
	for _, c := range []string{Memory, Pids, Cpuset} {
		if offered[c] {
			continue
		}
		// Not offered to our parent: try to enable it one level up (our own
		// cgroup), which is ours to configure.
		err := writeSubtree(parentOfParent, c)
		if err != nil && ownCgroup && errors.Is(err, syscall.EBUSY) {
			if mvErr := moveSelfToLeaf(parentOfParent); mvErr == nil {
				// A second failure shows below: the controller is then
				// not among those offered.
				err = writeSubtree(parentOfParent, c)
			}
		}
		failed[c] = err
	}
	if b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers")); err == nil {
		offered = map[string]bool{}
		for _, c := range strings.Fields(string(b)) {
			offered[c] = true
		}
	}
	for _, c := range []string{Memory, Pids, Cpuset} {
		if !offered[c] {
			m.avail[c] = fmt.Sprintf("controller %s is not enabled for %s (cgroup.controllers); delegate it or set a parent that has it", c, dir)
			if failed[c] != nil {
				m.avail[c] += fmt.Sprintf(" (enabling it in %s: %v)", parentOfParent, failed[c])
			}
			continue
		}
		if err := writeSubtree(dir, c); err != nil {
			m.avail[c] = fmt.Sprintf("cannot enable %s in %s: %v", c, dir, err)
			continue
		}
		m.avail[c] = ""
	}
	// cpu.stat usage is present in every v2 cgroup, controller or not.
	m.avail[CPU] = ""
	return nil
}

func writeSubtree(dir, controller string) error {
	return os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+"+controller), 0)
}

// supervisorLeaf is the cgroup, beside the runs' parent, that docket
// moves itself into when its own cgroup must give up its processes.
const supervisorLeaf = "docket-supervisor"

// moveSelfToLeaf moves the docket process (only it) into dir/docket-supervisor.
func moveSelfToLeaf(dir string) error {
	leaf := filepath.Join(dir, supervisorLeaf)
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(fmt.Sprint(os.Getpid())), 0)
}

func (m *v2Manager) Version() Version          { return V2 }
func (m *v2Manager) Controllers() Availability { return m.avail }
func (m *v2Manager) Parent() string            { return "v2 " + filepath.Join(m.mount, m.parent) }

// New makes the run's directory and writes its limits.
func (m *v2Manager) New(name string, spec Spec) (Group, error) {
	g, _, err := m.create(name, spec)
	if err != nil {
		return nil, err
	}
	if err := g.apply(spec, Spec{}, false); err != nil {
		g.Delete()
		return nil, fmt.Errorf("cgroup v2: create %s: %w", g.dir, err)
	}
	g.spec = spec
	return g, nil
}

// create makes the group's directory (one that exists is taken as it is:
// existed says so).
func (m *v2Manager) create(name string, spec Spec) (g *v2Group, existed bool, err error) {
	if err := validName(name); err != nil {
		return nil, false, err
	}
	if spec.CPUs != "" && !m.avail.Usable(Cpuset) {
		return nil, false, fmt.Errorf("cgroup: CPU pinning requested but %s", m.avail[Cpuset])
	}
	g = &v2Group{m: m, dir: filepath.Join(m.mount, m.parent, name), hasMem: m.avail.Usable(Memory), peak: -1}
	err = os.Mkdir(g.dir, 0o755)
	if errors.Is(err, fs.ErrExist) {
		return g, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cgroup v2: create %s: %w", g.dir, err)
	}
	return g, false, nil
}

type v2Group struct {
	m      *v2Manager
	dir    string
	hasMem bool
	spec   Spec // the limits in force
	// peak, in a kept group, is memory.peak held open: a reset (Linux
	// 6.12+) counts only for reads through the descriptor that wrote it.
	peak int
	base v2Base
	ctl  *ctl // a kept group's files held open
	// empty: Procs found no process and none was added since.
	empty atomic.Bool
}

// v2Base are the counters of a kept group at its last Reset: none of
// them can be zeroed.
type v2Base struct {
	usage, user, system uint64 // cpu.stat, microseconds
	oomKills            uint64 // memory.events oom_kill
}

// apply writes the limits of spec that differ from prev (all of them
// when force: a group of unknown limits). A memory limit comes with no
// swap (swap.max 0) and the kill of the whole group on OOM (oom.group),
// as containerd's cgroup2 set them.
func (g *v2Group) apply(spec, prev Spec, force bool) error {
	var files [][2]string
	if g.hasMem && (force || spec.MemoryBytes != prev.MemoryBytes) {
		files = append(files, [2]string{"memory.max", limitValue(spec.MemoryBytes, "max")})
		if limited := spec.MemoryBytes > 0; force || limited != (prev.MemoryBytes > 0) {
			swap, group := "max", "0"
			if limited {
				swap, group = "0", "1"
			}
			if g.m.swap {
				files = append(files, [2]string{"memory.swap.max", swap})
			}
			files = append(files, [2]string{"memory.oom.group", group})
		}
	}
	if g.m.avail.Usable(Pids) && (force || spec.Pids != prev.Pids) {
		files = append(files, [2]string{"pids.max", limitValue(spec.Pids, "max")})
	}
	if g.m.avail.Usable(Cpuset) && (force || spec.CPUs != prev.CPUs) {
		// An empty cpuset.cpus is the parent's; a newline, as a write of
		// nothing may not reach the file at all.
		files = append(files, [2]string{"cpuset.cpus", spec.CPUs + "\n"})
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(g.dir, f[0]), f[1]); err != nil {
			return err
		}
	}
	return nil
}

// joinDirs is the group's directory, as v1Group's: and the group is no
// longer known empty.
func (g *v2Group) joinDirs() []string {
	g.empty.Store(false)
	return []string{g.dir}
}

// joinFiles is the group's cgroup.procs (JoinFiles).
func (g *v2Group) joinFiles() []string {
	return []string{filepath.Join(g.joinDirs()[0], "cgroup.procs")}
}

func (g *v2Group) AddProc(pid int) error {
	dir := g.joinDirs()[0]
	if err := g.ctl.write(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
		return fmt.Errorf("cgroup v2: add %d to %s: %w", pid, dir, err)
	}
	return nil
}

func (g *v2Group) CPUUsage() (time.Duration, error) {
	us, _, err := g.ctl.readKey(filepath.Join(g.dir, "cpu.stat"), "usage_usec")
	return time.Duration(since(us, g.base.usage)) * time.Microsecond, err
}

func (g *v2Group) Stats() (Stats, error) {
	var st Stats
	keys, err := g.ctl.readKeys(filepath.Join(g.dir, "cpu.stat"))
	if err != nil {
		return st, err
	}
	us := func(key string, base uint64) time.Duration {
		return time.Duration(since(keys[key], base)) * time.Microsecond
	}
	st.CPU, st.User, st.System = us("usage_usec", g.base.usage), us("user_usec", g.base.user), us("system_usec", g.base.system)
	if g.hasMem {
		peak, err := g.readPeak()
		if err != nil {
			return st, fmt.Errorf("cgroup v2: memory.peak (kernel 5.19+): %w", err)
		}
		st.MemoryPeak = int64(peak)
		oom, _, _ := g.ctl.readKey(filepath.Join(g.dir, "memory.events"), "oom_kill")
		st.OOMKills = since(oom, g.base.oomKills)
	}
	return st, nil
}

// readPeak reads memory.peak: through the kept descriptor, whose reset
// counts only for it, else from the file.
func (g *v2Group) readPeak() (uint64, error) {
	if g.peak < 0 {
		return g.ctl.readUint(filepath.Join(g.dir, "memory.peak"))
	}
	var buf [32]byte
	n, err := unix.Pread(g.peak, buf[:], 0)
	if err != nil {
		return 0, &fs.PathError{Op: "read", Path: filepath.Join(g.dir, "memory.peak"), Err: err}
	}
	return parseUint(buf[:n])
}

func (g *v2Group) Procs() ([]int, error) {
	return g.ctl.readProcs(filepath.Join(g.dir, "cgroup.procs"))
}

// Delete removes the group; rmdir fails with EBUSY while a process
// remains. A group already gone is fine.
func (g *v2Group) Delete() error {
	if err := syscall.Rmdir(g.dir); err != nil && err != syscall.ENOENT {
		return fmt.Errorf("cgroup v2: remove: %w", &fs.PathError{Op: "rmdir", Path: g.dir, Err: err})
	}
	if g.peak >= 0 {
		unix.Close(g.peak)
		g.peak = -1
	}
	g.ctl.close()
	return nil
}

// Keep creates or takes over the group, opens its memory.peak for the
// resets, then resets it.
func (m *v2Manager) Keep(name string, spec Spec) (Kept, error) {
	return keepNamed(func() (keepable, bool, error) { return m.create(name, spec) }, spec)
}

func (g *v2Group) keep(spec Spec, unknown bool) error {
	g.ctl = &ctl{}
	files := map[string]int{
		filepath.Join(g.dir, "cgroup.procs"): unix.O_WRONLY, // read anew, as on v1
		filepath.Join(g.dir, "cpu.stat"):     unix.O_RDONLY,
	}
	if g.hasMem {
		files[filepath.Join(g.dir, "memory.current")] = unix.O_RDONLY
		files[filepath.Join(g.dir, "memory.events")] = unix.O_RDONLY
	}
	g.ctl.hold(files)
	if g.hasMem {
		fd, err := openPeak(filepath.Join(g.dir, "memory.peak"))
		if err != nil {
			return err
		}
		g.peak = fd
	}
	return g.reset(spec, unknown)
}

// openPeak opens memory.peak for the resets a write to it makes, which
// Linux has since 6.12 ("resets it to the current memory usage for
// subsequent reads through the same file descriptor"). Before, the file
// is read-only: the open fails (EACCES) or, for root, the first write
// (EINVAL), and a group cannot be reused, its peak being that of every
// run since its creation.
func openPeak(path string) (int, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		return -1, fmt.Errorf("%w: %s cannot be reset (Linux 6.12+): %v", ErrNotReusable, path, err)
	}
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if err := resetPeak(fd, path); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// resetPeak resets the peak that reads through fd see.
func resetPeak(fd int, path string) error {
	if _, err := unix.Pwrite(fd, []byte("reset\n"), 0); err != nil {
		return fmt.Errorf("%w: %s cannot be reset (Linux 6.12+): %v", ErrNotReusable, path, err)
	}
	return nil
}

func (g *v2Group) Reset(spec Spec) error {
	if g.hasMem && g.peak < 0 {
		return fmt.Errorf("%w: %s is not a kept group", ErrNotReusable, g.dir)
	}
	return g.reset(spec, false)
}

// reset: on v2 only the memory peak can be reset (through g.peak); the
// CPU times and the OOM kills only grow, and the next Stats subtracts
// what they are now. The limits are written only where they change: they
// are system calls on every run's path.
func (g *v2Group) reset(spec Spec, unknown bool) error {
	if spec.CPUs != "" && !g.m.avail.Usable(Cpuset) {
		return fmt.Errorf("cgroup: CPU pinning requested but %s", g.m.avail[Cpuset])
	}
	if err := checkEmpty(g); err != nil {
		return err
	}
	if g.hasMem {
		used, err := g.ctl.readUint(filepath.Join(g.dir, "memory.current"))
		if err != nil {
			return err
		}
		if used > ResidualMax {
			return fmt.Errorf("%w: %d KiB still charged to %s", ErrNotReusable, used>>10, g.dir)
		}
	}
	if err := g.apply(spec, g.spec, unknown); err != nil {
		return fmt.Errorf("cgroup v2: reset %s: %w", g.dir, err)
	}
	g.spec = spec
	return g.rebase()
}

// rebase resets the peak and notes the baselines of the counters.
func (g *v2Group) rebase() error {
	keys, err := g.ctl.readKeys(filepath.Join(g.dir, "cpu.stat"))
	if err != nil {
		return err
	}
	g.base = v2Base{usage: keys["usage_usec"], user: keys["user_usec"], system: keys["system_usec"]}
	if !g.hasMem {
		return nil
	}
	if err := resetPeak(g.peak, filepath.Join(g.dir, "memory.peak")); err != nil {
		return err
	}
	g.base.oomKills, _, err = g.ctl.readKey(filepath.Join(g.dir, "memory.events"), "oom_kill")
	return err
}
