package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
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
		if err := probeCreate(full); err != nil {
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
// with plain mkdir and write calls (containerd's cgroup1 would also do,
// on Delete, a walk with an lstat of every file of every directory, about
// 0.1 ms a run).
func (m *v1Manager) New(name string, spec Spec) (Group, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	if spec.CPUs != "" && !m.avail.Usable(Cpuset) {
		return nil, fmt.Errorf("cgroup: CPU pinning requested but %s", m.avail[Cpuset])
	}
	g := &v1Group{dirs: map[string]string{}}
	type file struct{ dir, name, value string }
	var files []file
	add := func(judge, sub string) string {
		d := filepath.Join(m.root, sub, m.parents[sub], name)
		g.dirs[judge] = d
		g.order = append(g.order, d)
		return d
	}
	if m.avail.Usable(Memory) {
		d := add(Memory, "memory")
		if spec.MemoryBytes > 0 {
			v := strconv.FormatInt(spec.MemoryBytes, 10)
			files = append(files, file{d, "memory.limit_in_bytes", v})
			if m.memsw { // memsw == limit: no swap
				files = append(files, file{d, "memory.memsw.limit_in_bytes", v})
			} // else swap accounting is off: the host has no swap to use either
		}
	}
	if m.avail.Usable(Pids) {
		d := add(Pids, "pids")
		if spec.Pids > 0 {
			files = append(files, file{d, "pids.max", strconv.FormatInt(spec.Pids, 10)})
		}
	}
	if m.avail.Usable(CPU) {
		add(CPU, "cpuacct")
	}
	if spec.CPUs != "" {
		// A new v1 cpuset is empty: memory nodes from the parent (filled
		// by Open), CPUs from the spec.
		d := add(Cpuset, "cpuset")
		mems, err := os.ReadFile(filepath.Join(filepath.Dir(d), "cpuset.mems"))
		if err != nil {
			return nil, fmt.Errorf("cgroup v1: create %s: %w", name, err)
		}
		files = append(files, file{d, "cpuset.mems", string(trimNL(mems))}, file{d, "cpuset.cpus", spec.CPUs})
	}
	fail := func(err error) (Group, error) {
		g.Delete() // what was created so far
		return nil, fmt.Errorf("cgroup v1: create %s: %w", name, err)
	}
	for _, d := range g.order {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fail(err)
		}
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(f.dir, f.name), f.value); err != nil {
			return fail(err)
		}
	}
	return g, nil
}

type v1Group struct {
	dirs  map[string]string // judge controller name -> directory
	order []string          // the directories, in creation order
}

// AddProc writes the pid into each controller's cgroup.procs.
func (g *v1Group) AddProc(pid int) error {
	p := strconv.Itoa(pid)
	for _, d := range g.order {
		if err := writeFile(filepath.Join(d, "cgroup.procs"), p); err != nil {
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
	ns, err := readUint(filepath.Join(d, "cpuacct.usage"))
	return time.Duration(ns), err
}

func (g *v1Group) Stats() (Stats, error) {
	var st Stats
	if d, ok := g.dirs[CPU]; ok {
		ns, err := readUint(filepath.Join(d, "cpuacct.usage"))
		if err != nil {
			return st, err
		}
		st.CPU = time.Duration(ns)
		keys, _ := readKeys(filepath.Join(d, "cpuacct.stat"))
		u, s := keys["user"], keys["system"]
		// cpuacct.stat is in ticks; split the exact total in the same ratio.
		if u+s > 0 {
			st.User = time.Duration(float64(st.CPU) * float64(u) / float64(u+s))
			st.System = st.CPU - st.User
		} else {
			st.User = st.CPU
		}
	}
	if d, ok := g.dirs[Memory]; ok {
		peak, err := readUint(filepath.Join(d, "memory.max_usage_in_bytes"))
		if err != nil {
			return st, err
		}
		st.MemoryPeak = int64(peak)
		st.OOMKills, _, _ = readKey(filepath.Join(d, "memory.oom_control"), "oom_kill")
	}
	return st, nil
}

func (g *v1Group) Procs() ([]int, error) {
	seen := map[int]bool{}
	var out []int
	for _, d := range g.dirs {
		pids, err := readProcs(filepath.Join(d, "cgroup.procs"))
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		for _, p := range pids {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
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
	return nil
}
