package sandbox_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

// cancelBound is how long a cancelled run may take to end: the kill is
// at once, and the teardown (cgroup, box) takes milliseconds; the rest
// is slack for a loaded test machine.
const cancelBound = 2 * time.Second

// longLimits let a run go on for minutes unless something kills it.
var longLimits = sandbox.Limits{CPUTime: 2 * time.Minute, WallTime: 3 * time.Minute, Processes: 8}

// firstWrite closes started when the target writes its first byte: the
// run is under way.
type firstWrite struct {
	once    sync.Once
	started chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.started) })
	return len(p), nil
}

// A run whose context is cancelled mid-run is killed at once, with every
// process of its tree (here a shell waiting on a background sleep): Wait
// returns within moments with an error matching ErrCanceled and
// context.Canceled, and a Result saying so.
func TestCommandContextKillsAtOnce(t *testing.T) { eachHelperPath(t, commandContextKillsAtOnce) }

func commandContextKillsAtOnce(t *testing.T, sl *sandbox.Slot) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &firstWrite{started: make(chan struct{})}
	cmd := sl.CommandContext(ctx, "/bin/sh", "-c", "echo up; sleep 60 & sleep 60; wait")
	cmd.Stdout, cmd.Limits = out, longLimits
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-out.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the target never wrote")
	}
	cancelled := time.Now()
	cancel()
	res, err := cmd.Wait()
	took := time.Since(cancelled)
	t.Logf("cancel to Wait's return: %v", took.Round(time.Millisecond))
	if took > cancelBound {
		t.Errorf("the run ended %v after its context was cancelled, want at once (< %v)", took, cancelBound)
	}
	if !errors.Is(err, sandbox.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Errorf("Wait error %v, want one matching sandbox.ErrCanceled and context.Canceled", err)
	}
	if res == nil || res.Status != sandbox.SE || res.Source != sandbox.SourceCanceled {
		t.Errorf("result %+v, want SE (%s)", res, sandbox.SourceCanceled)
	}
}

// A context already done at Start launches nothing.
func TestCommandContextDoneBeforeStart(t *testing.T) {
	sl := testSlot(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	res, err := sl.CommandContext(ctx, "/bin/true").Run()
	if res != nil || !errors.Is(err, sandbox.ErrCanceled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run: %+v, %v; want no result and an error matching ErrCanceled and DeadlineExceeded", res, err)
	}
}

// A run that ends by itself keeps its own result: a context cancelled
// afterwards changes nothing.
func TestCommandContextFinishedRun(t *testing.T) {
	sl := testSlot(t)
	ctx, cancel := context.WithCancel(context.Background())
	res, err := sl.CommandContext(ctx, "/bin/sh", "-c", "exit 3").Run()
	cancel()
	if err != nil || res.Status != sandbox.RE || res.ExitCode != 3 {
		t.Errorf("Run: %+v, %v; want RE, exit 3, no error", res, err)
	}
}

// RunPair honours both sides' contexts: an interactive pair whose
// context is cancelled mid-run ends at once, both sides killed.
func TestRunPairContext(t *testing.T) {
	sl := testSlot(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := sl.CommandContext(ctx, "/bin/sh", "-c", "sleep 60")
	b := sl.CommandContext(ctx, "/bin/sh", "-c", "sleep 60")
	a.Limits, b.Limits = longLimits, longLimits
	b.Trusted = true
	cancelled := make(chan time.Time, 1)
	time.AfterFunc(500*time.Millisecond, func() { cancelled <- time.Now(); cancel() })
	ra, rb, err := sandbox.RunPair(a, b)
	took := time.Since(<-cancelled)
	t.Logf("cancel to RunPair's return: %v", took.Round(time.Millisecond))
	if took > cancelBound {
		t.Errorf("the pair ended %v after its context was cancelled, want at once (< %v)", took, cancelBound)
	}
	if !errors.Is(err, sandbox.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Errorf("RunPair error %v, want one matching sandbox.ErrCanceled and context.Canceled", err)
	}
	for side, r := range map[string]*sandbox.Result{"a": ra, "b": rb} {
		if r == nil || r.Source != sandbox.SourceCanceled {
			t.Errorf("side %s: %+v, want Source %s", side, r, sandbox.SourceCanceled)
		}
	}
}
