package verdict

import (
	"sync"

	"github.com/docketjudge/docket/sandbox"
)

// ExtraSlots lends a judging's tests the further sandbox slots that a
// Communication test's processes run in: each copy of the program has a
// slot of its own (its own uid, cgroup and network namespace), as each
// has a sandbox of its own in CMS, so that two copies can reach each
// other only through the manager, which runs on the judging's own slot.
// Slots are claimed on first use and lent to one test at a time (a
// judging's lanes share them); a Judge's ExtraSlots keep them from one
// judging to the next, with what each slot keeps ready for its next run
// (a space made ahead, its cgroups), until Release.
type ExtraSlots struct {
	mu   sync.Mutex
	free []*sandbox.Slot
	all  []*sandbox.Slot
}

// take lends n slots of sb, claiming more when none is free.
func (e *ExtraSlots) take(sb *sandbox.Sandbox, n int) ([]*sandbox.Slot, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*sandbox.Slot
	for len(out) < n {
		if k := len(e.free); k > 0 {
			out, e.free = append(out, e.free[k-1]), e.free[:k-1]
			continue
		}
		s, err := sb.AcquireSlot()
		if err != nil {
			e.free = append(e.free, out...)
			return nil, err
		}
		e.all = append(e.all, s)
		out = append(out, s)
	}
	return out, nil
}

// give returns slots that take lent.
func (e *ExtraSlots) give(slots []*sandbox.Slot) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.free = append(e.free, slots...)
}

// Release gives every claimed slot back to the sandbox, once no judging
// uses them.
func (e *ExtraSlots) Release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range e.all {
		s.Release()
	}
	e.all, e.free = nil, nil
}
