package verdict

import (
	"errors"
	"sync"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

// communicationRun is how a Communication test's processes ended.
type communicationRun struct {
	users   []*sandbox.Result
	manager *sandbox.Result
	// failedFirst is the copy whose failure ended the test while the
	// manager still ran (which was then stopped), or -1.
	failedFirst int
	// managerFailed: the manager ended on its own otherwise than by
	// exit 0 (the copies were then stopped).
	managerFailed bool
	// orphaned: every copy had ended well, and the manager had not
	// ended orphanGrace later (it was then stopped): it waited for what
	// no copy would send, or to open a FIFO no copy opened.
	orphaned               bool
	stderrs                []stderrHead
	managerOut, managerErr []byte
}

// commRunner runs a Communication test's processes: one goroutine per
// copy, the manager waited for by the caller's.
type commRunner struct {
	run          communicationRun
	cancel       func()
	mu           sync.Mutex
	managerEnded bool
	startFailed  bool    // a copy could not start (the test is SE)
	errs         []error // each copy's, then the manager's
	copies       sync.WaitGroup
}

// runCommunication starts the manager and each copy, all at once (each
// Start is docket's own work: the run's space, its cgroup, its helper),
// and waits for all of them. All run under the context cancel ends. The
// first copy that fails while the manager runs decides the test (its
// outcome is 0 whatever the manager would say), and cancel stops the
// rest, as it does when the manager fails: a copy left waiting on a FIFO
// no one will open would otherwise wait out its wall time. A manager
// that ends well leaves the copies to end on their own, within their
// limits; a manager still running orphanGrace after every copy ended
// well is stopped too.
func runCommunication(mgr *sandbox.Cmd, users []*sandbox.Cmd, cancel func(), orphanGrace time.Duration) (communicationRun, error) {
	c := &commRunner{cancel: cancel, errs: make([]error, len(users)+1)}
	c.run = communicationRun{users: make([]*sandbox.Result, len(users)), failedFirst: -1}
	c.copies.Add(len(users))
	for i, u := range users {
		go c.runCopy(i, u)
	}
	if err := mgr.Start(); err != nil {
		c.cancel()
		c.copies.Wait()
		return c.run, err
	}
	managerDone := make(chan struct{})
	go c.watchOrphan(managerDone, orphanGrace)
	res, err := mgr.Wait()
	c.managerEnd(res, err)
	close(managerDone)
	c.copies.Wait()
	return c.run, c.err()
}

// runCopy starts copy i and waits for it. A copy that cannot start, or
// that fails while the manager runs, stops the test.
func (c *commRunner) runCopy(i int, u *sandbox.Cmd) {
	defer c.copies.Done()
	if err := u.Start(); err != nil {
		c.mu.Lock()
		c.errs[i], c.startFailed = err, true
		c.mu.Unlock()
		c.cancel()
		return
	}
	res, err := u.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.run.users[i], c.errs[i] = res, err
	if err == nil && copyFailed(res) && !c.managerEnded && c.run.failedFirst < 0 {
		c.run.failedFirst = i
		c.cancel()
	}
}

// watchOrphan stops a manager still running grace after every copy
// ended well.
func (c *commRunner) watchOrphan(managerDone chan struct{}, grace time.Duration) {
	copiesDone := make(chan struct{})
	go func() { c.copies.Wait(); close(copiesDone) }()
	select {
	case <-managerDone:
		return
	case <-copiesDone:
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-managerDone:
	case <-t.C:
		c.mu.Lock()
		if !c.startFailed && c.run.failedFirst < 0 && !c.managerEnded {
			c.run.orphaned = true
		}
		c.mu.Unlock()
		c.cancel()
	}
}

// managerEnd records the manager's end: a failure of its own stops the
// copies.
func (c *commRunner) managerEnd(res *sandbox.Result, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.managerEnded, c.run.manager = true, res
	c.errs[len(c.errs)-1] = err
	if c.run.failedFirst < 0 && !c.run.orphaned && err == nil && (res.Status != sandbox.OK || res.ExitCode != 0) {
		c.run.managerFailed = true
		c.cancel()
	}
}

// err joins the runs' errors, but the cancellations docket made itself
// (after a copy's failure, the manager's, or an orphaned manager).
func (c *commRunner) err() error {
	ours := c.run.failedFirst >= 0 || c.run.managerFailed || c.run.orphaned
	var out []error
	for _, e := range c.errs {
		if e == nil || ours && errors.Is(e, sandbox.ErrCanceled) {
			continue
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// copyFailed: a copy ended otherwise than by exit 0, and not by the
// SIGPIPE that a manager ending first causes.
func copyFailed(res *sandbox.Result) bool {
	if res.Status == sandbox.OK && res.ExitCode == 0 {
		return false
	}
	return res.Signal != int(syscall.SIGPIPE)
}
