package verdict

import (
	"errors"
	"sync"
	"syscall"

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
	managerFailed          bool
	stderrs                []stderrHead
	managerOut, managerErr []byte
}

// runCommunication starts the manager, then each copy, and waits for
// all of them. All run under the context cancel ends. The first copy
// that fails while the manager runs decides the test (its outcome is 0
// whatever the manager would say), and cancel stops the rest, as it
// does when the manager fails: a copy left waiting on a FIFO no one
// will open would otherwise wait out its wall time. A manager that ends
// well leaves the copies to end on their own, within their limits.
func runCommunication(mgr *sandbox.Cmd, users []*sandbox.Cmd, cancel func()) (communicationRun, error) {
	run := communicationRun{users: make([]*sandbox.Result, len(users)), failedFirst: -1}
	if err := mgr.Start(); err != nil {
		return run, err
	}
	var mu sync.Mutex
	managerEnded := false
	errs := make([]error, len(users)+1)
	var wg sync.WaitGroup
	for i, u := range users {
		if errs[i] = u.Start(); errs[i] != nil {
			cancel()
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := u.Wait()
			mu.Lock()
			defer mu.Unlock()
			run.users[i], errs[i] = res, err
			if err == nil && copyFailed(res) && !managerEnded && run.failedFirst < 0 {
				run.failedFirst = i
				cancel()
			}
		}()
	}
	res, err := mgr.Wait()
	mu.Lock()
	managerEnded, run.manager = true, res
	if run.failedFirst < 0 && err == nil && (res.Status != sandbox.OK || res.ExitCode != 0) {
		run.managerFailed = true
		cancel()
	}
	mu.Unlock()
	wg.Wait()
	if run.failedFirst >= 0 && errors.Is(err, sandbox.ErrCanceled) {
		err = nil // stopped by the copy's failure, not the judging's end
	}
	errs[len(users)] = err
	return run, errs2(errs, run)
}

// errs2 joins the runs' errors, but a copy's cancellation that docket
// made itself (after the first failure, or the manager's).
func errs2(errs []error, run communicationRun) error {
	var out []error
	for _, e := range errs {
		if e == nil || (errors.Is(e, sandbox.ErrCanceled) && (run.failedFirst >= 0 || run.managerFailed)) {
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
