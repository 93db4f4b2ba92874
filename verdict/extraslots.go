package verdict

import (
	"sync"

	"github.com/docketjudge/docket/sandbox"
)

// extraSlots lends a judging's tests the further sandbox slots that a
// Communication test's second and later processes run in: each process
// of the submission has a slot of its own (its own uid, cgroup and
// network namespace), as each has a sandbox of its own in CMS, so that
// two copies of the program can reach each other only through the
// manager. The slots are claimed on first use, lent to one test at a
// time (the judging's lanes share the pool), and released with the
// judging.
type extraSlots struct {
	mu   sync.Mutex
	free []*sandbox.Slot
	all  []*sandbox.Slot
}

// take lends n slots of sb, claiming more when none is free.
func (e *extraSlots) take(sb *sandbox.Sandbox, n int) ([]*sandbox.Slot, error) {
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
func (e *extraSlots) give(slots []*sandbox.Slot) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.free = append(e.free, slots...)
}

// release gives every claimed slot back to the sandbox, once the
// judging is over.
func (e *extraSlots) release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range e.all {
		s.Release()
	}
	e.all, e.free = nil, nil
}
