package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/docketjudge/docket/sandbox/cgroup"
	"golang.org/x/sys/unix"
)

// slotGroups are a slot's kept cgroups, by role (the untrusted run and
// the trusted one of an interactive pair, which run at once), reset
// before each run instead of created before it and removed after: a
// mkdir and an rmdir per controller off every run's path. A role has
// several, as a run's group is given back only by its teardown, which
// may still go on in the background (teardown.go) when the next run
// starts: up to maxKept, past which a run gets a group of its own.
type slotGroups struct {
	mu   sync.Mutex
	free [2][]*keptRun // idle, the last given back last
	made [2][]bool     // by index: a kept group of that name exists (idle or in use)
	off  bool          // the host cannot reset groups, or the slot is released
}

// maxKept bounds a role's kept groups: one per background teardown, the
// run starting, and one spare.
const maxKept = maxTeardowns + 2

// keptRun is a kept group, and while a run holds it, that run's: cleanup
// gives it back.
type keptRun struct {
	slot *Slot
	role int
	idx  int
	g    cgroup.Kept
	// join are g's join files (joinFiles), opened at its first run and
	// kept with it: three opens off every later run's path (one per v1
	// hierarchy). The kernel checks the opener's credentials, docket's,
	// whoever writes. joinInto says which kind they are.
	join     []*os.File
	joinInto bool
	// readyFor is the spec the group was reset for when its last run
	// gave it back (releaseKept), nil if it was not: a run of that spec
	// takes it as it is. Nothing runs in a group given back, so its
	// counters stay where the reset left them; a run of another spec
	// resets it again (its limits).
	readyFor *cgroup.Spec
}

// joinFiles are the kept group's join files for a run (see joinFiles).
func (k *keptRun) joinFiles(into bool) ([]*os.File, error) {
	if k.join != nil && k.joinInto == into {
		return k.join, nil
	}
	k.closeJoin()
	files, err := joinFiles(k.g, into)
	if err != nil {
		return nil, err
	}
	k.join, k.joinInto = files, into
	return files, nil
}

// closeJoin closes the join files, as the group goes.
func (k *keptRun) closeJoin() {
	closeAll(k.join)
	k.join = nil
}

func roleOf(trusted bool) int {
	if trusted {
		return 1
	}
	return 0
}

// keptName names a slot's kept group after its lock file (device and
// inode): two docket processes hold the same name only with the same
// lock, never at once, and a crashed worker's groups are taken over by
// the next one on the same state directory.
func (sl *Slot) keptName(role, idx int) (string, error) {
	if sl.lock == nil {
		return "", errors.New("slot released")
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(sl.lock.Fd()), &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("k%x.%x-s%d%s-%d", st.Dev, st.Ino, sl.N, [2]string{"", "t"}[role], idx), nil
}

// takeKept returns one of the role's kept groups reset for spec, or nil:
// the run then makes a group of its own, as where groups cannot be kept,
// while the role has maxKept in use, or when a reset failed.
func (sl *Slot) takeKept(trusted bool, spec cgroup.Spec) *keptRun {
	k := sl.groups.take(sl, roleOf(trusted))
	if k == nil {
		return nil
	}
	ready := k.readyFor != nil && *k.readyFor == spec
	k.readyFor = nil
	if ready {
		return k
	}
	if err := k.reset(spec); err != nil {
		sg := &sl.groups
		sg.mu.Lock()
		sg.made[k.role][k.idx] = false
		sg.off = sg.off || errors.Is(err, cgroup.ErrNotReusable)
		sg.mu.Unlock()
		return nil
	}
	return k
}

// take pops an idle group, or claims an index for a new one (k.g nil).
func (sg *slotGroups) take(sl *Slot, role int) *keptRun {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	if sg.off {
		return nil
	}
	if n := len(sg.free[role]); n > 0 {
		k := sg.free[role][n-1]
		sg.free[role] = sg.free[role][:n-1]
		return k
	}
	for i := 0; i < maxKept; i++ {
		if i == len(sg.made[role]) {
			sg.made[role] = append(sg.made[role], false)
		}
		if !sg.made[role][i] {
			sg.made[role][i] = true
			return &keptRun{slot: sl, role: role, idx: i}
		}
	}
	return nil
}

// reset resets the group for spec, or makes (or takes over) the group
// of its name when there is none or it cannot count afresh.
// ErrNotReusable from Keep means never on this host.
func (k *keptRun) reset(spec cgroup.Spec) error {
	if k.g != nil {
		err := k.g.Reset(spec)
		if err == nil {
			return nil
		}
		k.closeJoin()
		if k.g.Delete() != nil || !errors.Is(err, cgroup.ErrNotReusable) {
			return fmt.Errorf("reset: %w", err) // not ErrNotReusable: try again next run
		}
	}
	name, err := k.slot.keptName(k.role, k.idx)
	if err != nil {
		return err
	}
	k.g, err = k.slot.sb.cg.Keep(name, spec)
	return err
}

// keptEmpty reports whether the run's group is a kept one with no process
// left in it: cleanup then gives it back rather than removing it.
func (s *runState) keptEmpty() bool {
	if s.kept == nil {
		return false
	}
	pids, err := s.kept.g.Procs()
	return err == nil && len(pids) == 0
}

// releaseKept ends the run's hold on its kept group: given back when
// keep (empty, and the run's files gone), reset for a next run like this
// one off that run's path; else already removed.
func (s *runState) releaseKept(keep bool) {
	k := s.kept
	if k == nil {
		return
	}
	s.kept = nil
	if keep {
		spec := s.groupSpec
		if k.g.Reset(spec) == nil {
			k.readyFor = &spec
		}
	}
	sg := &k.slot.groups
	sg.mu.Lock()
	defer sg.mu.Unlock()
	if keep && !sg.off {
		sg.free[k.role] = append(sg.free[k.role], k)
		return
	}
	if keep {
		k.g.Delete() // the slot was released meanwhile
	}
	k.closeJoin()
	sg.made[k.role][k.idx] = false
}

// closeGroups removes the slot's idle kept groups (Release, after every
// teardown); a group still in use is removed by its run's cleanup.
func (sl *Slot) closeGroups() {
	sg := &sl.groups
	sg.mu.Lock()
	defer sg.mu.Unlock()
	sg.off = true
	for role, free := range sg.free {
		for _, k := range free {
			k.closeJoin()
			k.g.Delete()
			sg.made[role][k.idx] = false
		}
		sg.free[role] = nil
	}
}
