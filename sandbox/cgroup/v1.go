package cgroup

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// userHZ is the tick of cpuacct.stat (USER_HZ is 100 on every Linux ABI).
const userHZ = 100

// v1Manager: one directory per controller, each beneath docket's own
// cgroup in that controller's hierarchy (own cgroups differ per controller
// on a hybrid host: here memory sits under /process_api/<id>, pids at /).
type v1Manager struct {
	root    string            // /sys/fs/cgroup
	parents map[string]string // v1 subsystem -> parent path relative to its hierarchy
	avail   Availability
	desc    string
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

func (m *v1Manager) New(name string, spec Spec) (Group, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	var subs []cgroup1.Subsystem
	g := &v1Group{dirs: map[string]string{}}
	add := func(judge string, s cgroup1.Subsystem) {
		subs = append(subs, s)
		g.dirs[judge] = filepath.Join(m.root, string(s.Name()), m.parents[string(s.Name())], name)
	}
	if m.avail.Usable(Memory) {
		add(Memory, cgroup1.NewMemory(m.root, cgroup1.OptionalSwap()))
	}
	if m.avail.Usable(Pids) {
		add(Pids, cgroup1.NewPids(m.root))
	}
	if m.avail.Usable(CPU) {
		add(CPU, cgroup1.NewCpuacct(m.root))
	}
	if spec.CPUs != "" {
		if !m.avail.Usable(Cpuset) {
			return nil, fmt.Errorf("cgroup: CPU pinning requested but %s", m.avail[Cpuset])
		}
		add(Cpuset, cgroup1.NewCpuset(m.root))
	}
	res := &specs.LinuxResources{}
	if spec.MemoryBytes > 0 && m.avail.Usable(Memory) {
		limit, swap := spec.MemoryBytes, spec.MemoryBytes // memsw == limit: no swap
		res.Memory = &specs.LinuxMemory{Limit: &limit, Swap: &swap}
		if _, err := os.Stat(filepath.Join(m.root, "memory", "memory.memsw.limit_in_bytes")); err != nil {
			res.Memory.Swap = nil // swap accounting off: the host has no swap to use either
		}
	}
	if spec.Pids > 0 && m.avail.Usable(Pids) {
		pl := spec.Pids
		res.Pids = &specs.LinuxPids{Limit: &pl}
	}
	if spec.CPUs != "" {
		res.CPU = &specs.LinuxCPU{Cpus: spec.CPUs}
	}
	cg, err := cgroup1.New(func(n cgroup1.Name) (string, error) {
		return path.Join(m.parents[string(n)], name), nil
	}, res, cgroup1.WithHierarchy(func() ([]cgroup1.Subsystem, error) { return subs, nil }))
	if err != nil {
		// New may have created some directories before failing.
		for _, d := range g.dirs {
			os.Remove(d)
		}
		return nil, fmt.Errorf("cgroup v1: create %s: %w", name, err)
	}
	g.cg = cg
	return g, nil
}

type v1Group struct {
	cg   cgroup1.Cgroup
	dirs map[string]string // judge controller name -> directory
}

func (g *v1Group) AddProc(pid int) error { return g.cg.AddProc(uint64(pid)) }

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
		u, _, _ := readKey(filepath.Join(d, "cpuacct.stat"), "user")
		s, _, _ := readKey(filepath.Join(d, "cpuacct.stat"), "system")
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

func (g *v1Group) Delete() error { return g.cg.Delete() }
