package verdict

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// lanes runs a judging's tests on several slots at once (Judge.Lanes)
// while the judging itself still takes their results one at a time, in
// the package's order: it decides skips, scores and events exactly as it
// does alone. Each slot has a goroutine that claims the next test no one
// has claimed, at most window tests past the one the judging waits on,
// and runs it in its own copy of the judging. A test the judging then
// skips (after a failure) was run for nothing; nothing more.
type lanes struct {
	order   []*problem.Test // every test, in the order the judging reaches them
	index   map[*problem.Test]int
	results []laneResult // by position in order
	window  int          // tests started past the one the judging waits on

	ctx    context.Context // the lanes' runs: the judging's, ended by close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	cond    *sync.Cond
	next    int  // the first test not yet claimed
	reached int  // the test the judging waits on
	closed  bool // the judging is over: claim nothing more
}

// laneResult is one test's result, ready when done is closed.
type laneResult struct {
	done chan struct{}
	tr   TestResult
}

// startLanes starts the lanes of a judging whose Judge has any and
// routes its tests through them; nil (the judging runs its tests itself)
// without.
func (r *judging) startLanes() *lanes {
	if r.j == nil || len(r.j.Lanes) == 0 {
		return nil
	}
	a := &lanes{index: map[*problem.Test]int{}}
	a.cond = sync.NewCond(&a.mu)
	a.order = testOrder(r.p.Root, nil)
	a.results = make([]laneResult, len(a.order))
	for i, t := range a.order {
		a.index[t] = i
		a.results[i].done = make(chan struct{})
	}
	a.ctx, a.cancel = context.WithCancel(r.ctx)
	slots := append([]*sandbox.Slot{r.slot}, r.j.Lanes...)
	a.window = len(slots) - 1
	for n, s := range slots {
		lane := *r // its own slot, output file and context; the rest shared
		lane.slot, lane.ctx = s, a.ctx
		lane.outputs = newTestOutputs(filepath.Join(r.ws, fmt.Sprintf("output-%d", n)))
		a.wg.Add(1)
		go a.run(&lane)
	}
	r.testFn = a.take
	return a
}

// testOrder lists g's tests as judging.group reaches them: its own, then
// each subgroup's.
func testOrder(g *problem.Group, acc []*problem.Test) []*problem.Test {
	if g == nil {
		return acc
	}
	acc = append(acc, g.Tests...)
	for _, c := range g.Groups {
		acc = testOrder(c, acc)
	}
	return acc
}

// run is one lane: it judges the tests it claims until none is left.
func (a *lanes) run(lane *judging) {
	defer a.wg.Done()
	defer lane.outputs.close()
	for {
		i, ok := a.claim()
		if !ok {
			return
		}
		a.results[i].tr = lane.test(a.ctx, a.order[i])
		close(a.results[i].done)
	}
}

// claim waits until the next test is within the window and gives its
// position; false once the judging is over or every test is claimed.
func (a *lanes) claim() (int, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for !a.closed && a.next < len(a.order) && a.next > a.reached+a.window {
		a.cond.Wait()
	}
	if a.closed || a.next >= len(a.order) {
		return 0, false
	}
	a.next++
	return a.next - 1, true
}

// take is the judging's testFn: t's result, from whichever lane ran it.
// Tests the judging skipped to reach t are never started, if no lane has
// started them yet.
func (a *lanes) take(ctx context.Context, t *problem.Test) TestResult {
	i, ok := a.index[t]
	if !ok { // not in the tree the lanes walk: cannot happen, but never hang
		return seTest(TestResult{Name: t.Name, Group: t.Group.Name}, fmt.Errorf("test %s is not in the package's tree", t.Name))
	}
	a.mu.Lock()
	a.reached = i
	a.next = max(a.next, i)
	a.cond.Broadcast()
	a.mu.Unlock()
	select {
	case <-a.results[i].done:
		return a.results[i].tr
	case <-ctx.Done(): // abandoned: the caller sees ctx's error
		return TestResult{Name: t.Name, Group: t.Group.Name, Verdict: SK, VerdictSource: SourceJudge}
	}
}

// close ends the lanes: nothing more is claimed, runs still going (of
// tests the judging skipped) are killed, and close returns once every
// lane is idle, so that the judging's directory can go.
func (a *lanes) close() {
	a.mu.Lock()
	a.closed = true
	a.cond.Broadcast()
	a.mu.Unlock()
	a.cancel()
	a.wg.Wait()
}
