package sandbox

import (
	"errors"
	"fmt"
	"sync"

	"github.com/docketjudge/docket/sandbox/cgroup"
	"golang.org/x/sys/unix"
)

// slotGroups are a slot's kept cgroups, one per role (the untrusted run
// and the trusted one of an interactive pair, which run at once), reset
// before each run instead of created before it and removed after: a
// mkdir and an rmdir per controller off every run's path.
type slotGroups struct {
	mu     sync.Mutex
	groups [2]cgroup.Kept // by role; nil until made, or while in use
	busy   [2]bool        // a run of the role holds the group
	off    bool           // the host cannot reset groups, or the slot is released
}

// keptRun is a run's hold on its slot's kept group, given back by cleanup.
type keptRun struct {
	slot *Slot
	role int
	g    cgroup.Kept
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
func (sl *Slot) keptName(role int) (string, error) {
	if sl.lock == nil {
		return "", errors.New("slot released")
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(sl.lock.Fd()), &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("k%x.%x-s%d%s", st.Dev, st.Ino, sl.N, [2]string{"", "t"}[role]), nil
}

// takeKept returns the role's kept group reset for spec, or nil: the run
// then makes a group of its own, as where groups cannot be kept, while
// another run of the role holds it, or when a reset failed.
func (sl *Slot) takeKept(trusted bool, spec cgroup.Spec) *keptRun {
	sg, role := &sl.groups, roleOf(trusted)
	sg.mu.Lock()
	if sg.off || sg.busy[role] {
		sg.mu.Unlock()
		return nil
	}
	g := sg.groups[role]
	sg.groups[role], sg.busy[role] = nil, true
	sg.mu.Unlock()
	g, err := sl.resetKept(g, role, spec)
	if err != nil {
		sg.mu.Lock()
		sg.busy[role] = false
		sg.off = sg.off || errors.Is(err, cgroup.ErrNotReusable)
		sg.mu.Unlock()
		return nil
	}
	return &keptRun{slot: sl, role: role, g: g}
}

// resetKept resets g for spec, or makes (or takes over) the group when
// there is none or g cannot count afresh. ErrNotReusable from Keep means
// never on this host.
func (sl *Slot) resetKept(g cgroup.Kept, role int, spec cgroup.Spec) (cgroup.Kept, error) {
	if g != nil {
		err := g.Reset(spec)
		if err == nil {
			return g, nil
		}
		if g.Delete() != nil || !errors.Is(err, cgroup.ErrNotReusable) {
			return nil, fmt.Errorf("reset: %w", err) // not ErrNotReusable: try again next run
		}
	}
	name, err := sl.keptName(role)
	if err != nil {
		return nil, err
	}
	return sl.sb.cg.Keep(name, spec)
}

// giveBack returns the run's kept group to its slot when no process
// remains in it, and reports whether it did; if not, the caller removes
// the group as a run's own.
func (s *runState) giveBack() bool {
	k := s.kept
	if k == nil {
		return false
	}
	s.kept = nil
	pids, err := k.g.Procs()
	sg := &k.slot.groups
	sg.mu.Lock()
	defer sg.mu.Unlock()
	sg.busy[k.role] = false
	if err != nil || len(pids) > 0 || sg.off {
		return false
	}
	sg.groups[k.role] = k.g
	return true
}

// closeGroups removes the slot's kept groups (Release); a group in use
// is removed by its run's cleanup.
func (sl *Slot) closeGroups() {
	sg := &sl.groups
	sg.mu.Lock()
	defer sg.mu.Unlock()
	sg.off = true
	for i, g := range sg.groups {
		if g != nil {
			g.Delete()
			sg.groups[i] = nil
		}
	}
}
