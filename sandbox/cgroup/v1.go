package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// v1Manager: one directory per controller, each beneath docket's own
// cgroup in that controller's hierarchy (own cgroups differ per controller
// on a hybrid host: here memory sits under /process_api/<id>, pids at /).
type v1Manager struct {
	root    string            // /sys/fs/cgroup
	parents map[string]string // v1 subsystem -> parent path relative to its hierarchy
	avail   Availability
	desc    string
	memsw   bool // swap accounting is on: memory.memsw.* exist
}

var v1Subsystems = []struct{ judge, v1 string }{
	{Memory, "memory"}, {Pids, "pids"}, {CPU, "cpuacct"}, {Cpuset, "cpuset"},
}

func openV1(opts Options) (Manager, error) {
	own, err := ownPaths()
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	m := &v1Manager{root: opts.Root, parents: map[string]string{}, avail: Availability{}}
	for _, s := range v1Subsystems {
		dir := filepath.Join(opts.Root, s.v1)
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
			m.avail[s.judge] = fmt.Sprintf("v1 controller %s is not mounted at %s", s.v1, dir)
			continue
		}
		parent := opts.Parent
		if parent == "" {
			p, ok := own[s.v1]
			if !ok {
				m.avail[s.judge] = fmt.Sprintf("this process is in no %s cgroup", s.v1)
				continue
			}
			parent = path.Join(p, "docket")
		}
		full := filepath.Join(dir, parent)
		if err := os.MkdirAll(full, 0o755); err != nil {
			m.avail[s.judge] = fmt.Sprintf("cannot create %s: %v", full, err)
			continue
		}
		if err := opts.tryCreate(full); err != nil {
			m.avail[s.judge] = err.Error()
			continue
		}
		if s.v1 == "cpuset" {
			// A new v1 cpuset is empty until cpus and mems are copied down.
			if err := fillCpuset(dir, parent); err != nil {
				m.avail[s.judge] = fmt.Sprintf("cannot prepare %s: %v", full, err)
				continue
			}
		}
		m.parents[s.v1] = parent
		m.avail[s.judge] = ""
	}
	if !m.avail.Usable(CPU) && !m.avail.Usable(Memory) && !m.avail.Usable(Pids) {
		return nil, &UnavailableError{Controllers: m.avail}
	}
	if _, err := os.Stat(filepath.Join(opts.Root, "memory", "memory.memsw.limit_in_bytes")); err == nil {
		m.memsw = true
	}
	m.desc = fmt.Sprintf("v1 %s/<controller>{memory:%s pids:%s cpuacct:%s}", opts.Root,
		m.parents["memory"], m.parents["pids"], m.parents["cpuacct"])
	return m, nil
}

// fillCpuset copies cpuset.cpus and cpuset.mems from the nearest
// non-empty ancestor into each empty directory down to parent.
func fillCpuset(root, parent string) error {
	var dirs []string
	for p := parent; p != "/" && p != "." && p != ""; p = path.Dir(p) {
		dirs = append([]string{filepath.Join(root, p)}, dirs...)
	}
	cpus, _ := os.ReadFile(filepath.Join(root, "cpuset.cpus"))
	mems, _ := os.ReadFile(filepath.Join(root, "cpuset.mems"))
	for _, d := range dirs {
		c, _ := os.ReadFile(filepath.Join(d, "cpuset.cpus"))
		mm, _ := os.ReadFile(filepath.Join(d, "cpuset.mems"))
		if len(trimNL(c)) == 0 {
			if err := os.WriteFile(filepath.Join(d, "cpuset.cpus"), cpus, 0); err != nil {
				return err
			}
		} else {
			cpus = c
		}
		if len(trimNL(mm)) == 0 {
			if err := os.WriteFile(filepath.Join(d, "cpuset.mems"), mems, 0); err != nil {
				return err
			}
		} else {
			mems = mm
		}
	}
	return nil
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

func (m *v1Manager) Version() Version          { return V1 }
func (m *v1Manager) Controllers() Availability { return m.avail }
func (m *v1Manager) Parent() string            { return m.desc }

// New creates the run's directory in each controller and writes its limits
// with plain mkdir and write calls.
func (m *v1Manager) New(name string, spec Spec) (Group, error) {
	g, _, err := m.create(name, spec)
	if err != nil {
		return nil, err
	}
	if err := g.apply(spec, Spec{}, false); err != nil {
		g.Delete()
		return nil, fmt.Errorf("cgroup v1: create %s: %w", name, err)
	}
	g.spec = spec
	return g, nil
}

// create makes the group's directories (those that exist are taken as
// they are: existed says so).
func (m *v1Manager) create(name string, spec Spec) (g *v1Group, existed bool, err error) {
	if err := validName(name); err != nil {
		return nil, false, err
	}
	if spec.CPUs != "" && !m.avail.Usable(Cpuset) {
		return nil, false, fmt.Errorf("cgroup: CPU pinning requested but %s", m.avail[Cpuset])
	}
	g = &v1Group{m: m, dirs: map[string]string{}}
	for _, s := range v1Subsystems {
		if m.avail.Usable(s.judge) && s.judge != Cpuset {
			g.dirs[s.judge] = filepath.Join(m.root, s.v1, m.parents[s.v1], name)
			g.order = append(g.order, g.dirs[s.judge])
		}
	}
	if m.avail.Usable(Cpuset) {
		g.cpuset = filepath.Join(m.root, "cpuset", m.parents["cpuset"], name)
	}
	for _, d := range g.order {
		err := os.Mkdir(d, 0o755)
		if errors.Is(err, fs.ErrExist) {
			existed = true
		} else if err != nil {
			g.Delete() // what was created so far
			return nil, false, fmt.Errorf("cgroup v1: create %s: %w", name, err)
		}
	}
	return g, existed, nil
}

type v1Group struct {
	m     *v1Manager
	dirs  map[string]string // judge controller name -> directory, cpuset aside; never changed
	order []string          // the directories, in creation order
	// cpuset is the group's cpuset directory, made for the first pinned
	// run; a kept group keeps it, unused by unpinned runs.
	cpuset     string
	cpusetMade bool
	pinned     bool // the run is pinned: AddProc puts it in the cpuset
	spec       Spec // the limits in force
	base       v1Base
	ctl        *ctl // a kept group's files held open
	// empty: Procs found no process and none was added since, so none
	// can be there (Reset needs not read the lists again).
	empty atomic.Bool
}

// v1Base are the counters a kept group cannot reset, as they were at the
// last Reset.
type v1Base struct {
	user, system uint64 // cpuacct.stat, ticks
	oomKills     uint64 // memory.oom_control oom_kill
}

// apply writes the limits of spec that differ from prev (all of them
// when force: a group of unknown limits).
func (g *v1Group) apply(spec, prev Spec, force bool) error {
	if d, ok := g.dirs[Memory]; ok && (force || spec.MemoryBytes != prev.MemoryBytes) {
		if err := g.m.setMemory(d, spec.MemoryBytes, prev.MemoryBytes, force); err != nil {
			return err
		}
	}
	if d, ok := g.dirs[Pids]; ok && (force || spec.Pids != prev.Pids) {
		if err := writeFile(filepath.Join(d, "pids.max"), limitValue(spec.Pids, "max")); err != nil {
			return err
		}
	}
	if spec.CPUs != "" && (force || spec.CPUs != prev.CPUs || !g.cpusetMade) {
		return g.pin(spec.CPUs)
	}
	if spec.CPUs == "" {
		g.pinned = false // the directory, if any, stays for Delete
	}
	return nil
}

// limitValue is the file's value for a limit, 0 being none.
func limitValue(n int64, none string) string {
	if n <= 0 {
		return none
	}
	return strconv.FormatInt(n, 10)
}

// setMemory writes the memory limit and, with swap accounting, the same
// limit for memory+swap (no swap). The kernel keeps memsw >= memory at
// every write: a rise writes memsw first, a fall memory first, and over
// unknown limits memsw is lifted first.
func (m *v1Manager) setMemory(d string, next, prev int64, unknown bool) error {
	mem, sw := filepath.Join(d, "memory.limit_in_bytes"), filepath.Join(d, "memory.memsw.limit_in_bytes")
	v := limitValue(next, "-1")
	if !m.memsw { // swap accounting is off: the host has no swap to use either
		return writeFile(mem, v)
	}
	if unknown {
		if err := writeFile(sw, "-1"); err != nil {
			return err
		}
	}
	order := []string{mem, sw}
	if !unknown && (next <= 0 || (prev > 0 && next > prev)) {
		order = []string{sw, mem}
	}
	for _, f := range order {
		if err := writeFile(f, v); err != nil {
			return err
		}
	}
	return nil
}

// pin makes the cpuset directory (memory nodes from the parent, filled
// by Open) and writes the CPUs.
func (g *v1Group) pin(cpus string) error {
	d := g.cpuset
	if !g.cpusetMade {
		err := os.Mkdir(d, 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		g.cpusetMade = true
		g.order = append(g.order, d)
		mems, err := readControl(filepath.Join(filepath.Dir(d), "cpuset.mems"))
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(d, "cpuset.mems"), string(trimNL(mems))); err != nil {
			return err
		}
	}
	g.pinned = true
	return writeFile(filepath.Join(d, "cpuset.cpus"), cpus)
}

// joinDirs are the directories a process of the run joins, in creation
// order, and mark the group as no longer known empty: AddProc's and
// joinFiles'.
func (g *v1Group) joinDirs() []string {
	g.empty.Store(false)
	dirs := make([]string, 0, len(g.order))
	for _, d := range g.order {
		if d == g.cpuset && !g.pinned {
			continue // a kept group's cpuset, not for this unpinned run
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// joinFiles are the `tasks` files of joinDirs (JoinFiles says why not
// cgroup.procs).
func (g *v1Group) joinFiles() []string {
	dirs := g.joinDirs()
	for i, d := range dirs {
		dirs[i] = filepath.Join(d, "tasks")
	}
	return dirs
}

// AddProc writes the pid into each controller's cgroup.procs.
func (g *v1Group) AddProc(pid int) error {
	p := strconv.Itoa(pid)
	for _, d := range g.joinDirs() {
		if err := g.ctl.write(filepath.Join(d, "cgroup.procs"), p); err != nil {
			return fmt.Errorf("cgroup v1: add %d to %s: %w", pid, d, err)
		}
	}
	return nil
}

func (g *v1Group) CPUUsage() (time.Duration, error) {
	d, ok := g.dirs[CPU]
	if !ok {
		return 0, fmt.Errorf("cgroup v1: no cpuacct controller")
	}
	ns, err := g.ctl.readUint(filepath.Join(d, "cpuacct.usage"))
	return time.Duration(ns), err
}

func (g *v1Group) Stats() (Stats, error) {
	var st Stats
	if d, ok := g.dirs[CPU]; ok {
		ns, err := g.ctl.readUint(filepath.Join(d, "cpuacct.usage"))
		if err != nil {
			return st, err
		}
		st.CPU = time.Duration(ns)
		keys, _ := g.ctl.readKeys(filepath.Join(d, "cpuacct.stat"))
		u, s := since(keys["user"], g.base.user), since(keys["system"], g.base.system)
		// cpuacct.stat is in ticks; split the exact total in the same ratio.
		if u+s > 0 {
			st.User = time.Duration(float64(st.CPU) * float64(u) / float64(u+s))
			st.System = st.CPU - st.User
		} else {
			st.User = st.CPU
		}
	}
	if d, ok := g.dirs[Memory]; ok {
		peak, err := g.ctl.readUint(filepath.Join(d, "memory.max_usage_in_bytes"))
		if err != nil {
			return st, err
		}
		st.MemoryPeak = int64(peak)
		oom, _, _ := g.ctl.readKey(filepath.Join(d, "memory.oom_control"), "oom_kill")
		st.OOMKills = since(oom, g.base.oomKills)
	}
	return st, nil
}

// since is a counter's growth from its baseline (0 if it went back: a
// group that was replaced under the same name).
func since(n, base uint64) uint64 {
	if n < base {
		return 0
	}
	return n - base
}

func (g *v1Group) Procs() ([]int, error) {
	seen := map[int]bool{}
	var out []int
	for _, d := range g.order {
		pids, err := g.ctl.readProcs(filepath.Join(d, "cgroup.procs"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, p := range pids {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	g.empty.Store(len(out) == 0)
	return out, nil
}

// Delete removes every directory of the group; rmdir fails with EBUSY
// while a process remains. A directory already gone is fine, so a Delete
// that failed half-way can be repeated.
func (g *v1Group) Delete() error {
	var errs []error
	for _, d := range g.order {
		if err := syscall.Rmdir(d); err != nil && err != syscall.ENOENT {
			errs = append(errs, &fs.PathError{Op: "rmdir", Path: d, Err: err})
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("cgroup v1: remove: %w", errors.Join(errs...))
	}
	g.ctl.close()
	return nil
}

// hold opens the files read or written around every run of a kept
// group. cgroup.procs is written through a held descriptor but read
// anew: v1 serves a second read of one open file from the process list
// it made for the first (kept a second), a stale one.
func (g *v1Group) hold() {
	g.ctl = &ctl{}
	files := map[string]int{}
	for _, d := range g.order {
		files[filepath.Join(d, "cgroup.procs")] = unix.O_WRONLY
	}
	if d, ok := g.dirs[Memory]; ok {
		files[filepath.Join(d, "memory.usage_in_bytes")] = unix.O_RDONLY
		files[filepath.Join(d, "memory.max_usage_in_bytes")] = unix.O_RDWR
		files[filepath.Join(d, "memory.oom_control")] = unix.O_RDONLY
	}
	if d, ok := g.dirs[CPU]; ok {
		files[filepath.Join(d, "cpuacct.usage")] = unix.O_RDWR
		files[filepath.Join(d, "cpuacct.stat")] = unix.O_RDONLY
	}
	g.ctl.hold(files)
}

// Keep creates or takes over the group, then resets it.
func (m *v1Manager) Keep(name string, spec Spec) (Kept, error) {
	return keepNamed(func() (keepable, bool, error) {
		g, existed, err := m.create(name, spec)
		if err == nil && g.cpuset != "" {
			if _, err := os.Stat(g.cpuset); err == nil { // a leftover's: Delete removes it
				g.cpusetMade, existed = true, true
				g.order = append(g.order, g.cpuset)
			}
		}
		return g, existed, err
	}, spec)
}

func (g *v1Group) keep(spec Spec, unknown bool) error {
	g.hold()
	return g.reset(spec, unknown)
}

func (g *v1Group) Reset(spec Spec) error { return g.reset(spec, false) }

// reset: v1 can zero the memory peak (to the usage now) and cpuacct.usage;
// the user/system ticks and the OOM kills only grow, and the next Stats
// subtracts what they are now. The limits are written only where they
// change: they are system calls on every run's path.
func (g *v1Group) reset(spec Spec, unknown bool) error {
	if spec.CPUs != "" && !g.m.avail.Usable(Cpuset) {
		return fmt.Errorf("cgroup: CPU pinning requested but %s", g.m.avail[Cpuset])
	}
	if err := checkEmpty(g); err != nil {
		return err
	}
	mem, hasMem := g.dirs[Memory]
	if hasMem {
		used, err := g.ctl.readUint(filepath.Join(mem, "memory.usage_in_bytes"))
		if err != nil {
			return err
		}
		if used > ResidualMax {
			return fmt.Errorf("%w: %d KiB still charged to %s", ErrNotReusable, used>>10, mem)
		}
	}
	if err := g.apply(spec, g.spec, unknown); err != nil {
		return fmt.Errorf("cgroup v1: reset %s: %w", g.order[0], err)
	}
	g.spec = spec
	return g.rebase(mem, hasMem)
}

// rebase zeroes what can be zeroed and notes the baselines of the rest.
func (g *v1Group) rebase(mem string, hasMem bool) error {
	if hasMem {
		if err := g.ctl.write(filepath.Join(mem, "memory.max_usage_in_bytes"), "0"); err != nil {
			return err
		}
		oom, _, err := g.ctl.readKey(filepath.Join(mem, "memory.oom_control"), "oom_kill")
		if err != nil {
			return err
		}
		g.base.oomKills = oom
	}
	if d, ok := g.dirs[CPU]; ok {
		if err := g.ctl.write(filepath.Join(d, "cpuacct.usage"), "0"); err != nil {
			return err
		}
		keys, err := g.ctl.readKeys(filepath.Join(d, "cpuacct.stat"))
		if err != nil {
			return err
		}
		g.base.user, g.base.system = keys["user"], keys["system"]
	}
	return nil
}
