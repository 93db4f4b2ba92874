package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3/cgroup2"
)

// v2Manager: one unified directory per run beneath a parent whose
// cgroup.subtree_control enables the controllers the runs need.
type v2Manager struct {
	mount  string // where cgroup2 is mounted
	parent string // relative to mount, e.g. /user.slice/.../docket
	avail  Availability
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
	if err := probeCreate(filepath.Join(mount, parent)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if err := m.enableControllers(opts.Parent == ""); err != nil {
		return nil, err
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

func (m *v2Manager) New(name string, spec Spec) (Group, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	res := &cgroup2.Resources{}
	if spec.MemoryBytes > 0 && m.avail.Usable(Memory) {
		max, swap, group := spec.MemoryBytes, int64(0), true
		res.Memory = &cgroup2.Memory{Max: &max, Swap: &swap, OOMGroup: &group}
		if _, err := os.Stat(filepath.Join(m.mount, m.parent, "memory.swap.max")); err != nil {
			res.Memory.Swap = nil // no swap controller: nothing to swap to either
		}
	}
	if spec.Pids > 0 && m.avail.Usable(Pids) {
		res.Pids = &cgroup2.Pids{Max: spec.Pids}
	}
	if spec.CPUs != "" {
		if !m.avail.Usable(Cpuset) {
			return nil, fmt.Errorf("cgroup: CPU pinning requested but %s", m.avail[Cpuset])
		}
		res.CPU = &cgroup2.CPU{Cpus: spec.CPUs}
	}
	rel := path.Join(m.parent, name)
	mgr, err := cgroup2.NewManager(m.mount, rel, res)
	if err != nil {
		return nil, fmt.Errorf("cgroup v2: create %s: %w", rel, err)
	}
	return &v2Group{mgr: mgr, dir: filepath.Join(m.mount, rel), hasMem: m.avail.Usable(Memory)}, nil
}

type v2Group struct {
	mgr    *cgroup2.Manager
	dir    string
	hasMem bool
}

func (g *v2Group) AddProc(pid int) error { return g.mgr.AddProc(uint64(pid)) }

func (g *v2Group) CPUUsage() (time.Duration, error) {
	us, _, err := readKey(filepath.Join(g.dir, "cpu.stat"), "usage_usec")
	return time.Duration(us) * time.Microsecond, err
}

func (g *v2Group) Stats() (Stats, error) {
	var st Stats
	f := filepath.Join(g.dir, "cpu.stat")
	us, _, err := readKey(f, "usage_usec")
	if err != nil {
		return st, err
	}
	u, _, _ := readKey(f, "user_usec")
	s, _, _ := readKey(f, "system_usec")
	st.CPU, st.User, st.System = time.Duration(us)*time.Microsecond, time.Duration(u)*time.Microsecond, time.Duration(s)*time.Microsecond
	if g.hasMem {
		peak, err := readUint(filepath.Join(g.dir, "memory.peak"))
		if err != nil {
			return st, fmt.Errorf("cgroup v2: memory.peak (kernel 5.19+): %w", err)
		}
		st.MemoryPeak = int64(peak)
		st.OOMKills, _, _ = readKey(filepath.Join(g.dir, "memory.events"), "oom_kill")
	}
	return st, nil
}

func (g *v2Group) Procs() ([]int, error) { return readProcs(filepath.Join(g.dir, "cgroup.procs")) }

func (g *v2Group) Delete() error { return g.mgr.Delete() }
