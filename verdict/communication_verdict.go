package verdict

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// communicationVerdict decides a Communication test as CMS's
// Communication task type does, in this order:
//   - a copy that failed (RE, TLE, MLE, OLE) while the manager ran: its
//     verdict, outcome 0;
//   - every copy ended well and the manager, still running a moment
//     later, waited for them (to open a FIFO, or for an answer): WA;
//   - a manager that failed (a non-zero exit, a signal, its limits): SE,
//     the package's fault;
//   - a copy that failed after the manager ended: its verdict, outcome 0,
//     but a copy killed by SIGPIPE because the manager rejected and
//     hung up takes the manager's rejection (WA);
//   - the copies' CPU times together reaching the time limit: TLE (each
//     copy has the limit on its own too);
//   - otherwise the manager's outcome and message, read as a CMS
//     comparator's.
//
// The test's time and memory are the copies' together (CMS adds them),
// its wall time the longest; steps has each copy's own.
func (r *judging) communicationVerdict(tr TestResult, run communicationRun) TestResult {
	tr = copiesMeasured(tr, run.users)
	if i := run.failedFirst; i >= 0 {
		return r.copyVerdict(tr, run, i)
	}
	if run.orphaned {
		tr.Verdict, tr.Score, tr.VerdictSource = WA, 0, SourceManager
		tr.Feedback = "the program ended before the manager was done with it"
		return tr
	}
	m := run.manager
	if run.managerFailed {
		return seTest(tr, fmt.Errorf("manager: %s (%s) exit code %d %s %s", m.Status, m.Source, m.ExitCode, m.Error, oneLineOf(string(run.managerErr))))
	}
	mv := cmsVerdict(tr, 0, run.managerOut, run.managerErr, r.p.Kind == problem.Scoring)
	mv.VerdictSource = SourceManager
	if mv.Verdict == SE {
		mv.Feedback = "manager: " + mv.Feedback
		return mv
	}
	for i, res := range run.users {
		if res.Status == sandbox.OK && res.ExitCode == 0 {
			continue
		}
		if res.Signal == int(syscall.SIGPIPE) && mv.Verdict != AC {
			return mv // the manager rejected and hung up: its verdict
		}
		return r.copyVerdict(tr, run, i)
	}
	if time.Duration(tr.TimeMs)*time.Millisecond >= r.tl {
		tr.Verdict, tr.Score, tr.VerdictSource = TLE, 0, sandbox.SourceCPU
		tr.Feedback = fmt.Sprintf("the processes' CPU times add up to %d ms, the time limit is %d ms", tr.TimeMs, r.tl.Milliseconds())
		return tr
	}
	return mv
}

// copiesMeasured sets the test's measurements from its copies' runs.
func copiesMeasured(tr TestResult, users []*sandbox.Result) TestResult {
	tr.TimeMs, tr.WallMs, tr.MemoryKB = 0, 0, 0
	for _, res := range users {
		tr.TimeMs += res.CPUTime.Milliseconds()
		tr.WallMs = max(tr.WallMs, res.WallTime.Milliseconds())
		tr.MemoryKB += res.Memory >> 10
		s := fromSandbox(TestResult{}, res)
		tr.Steps = append(tr.Steps, StepResult{TimeMs: s.TimeMs, WallMs: s.WallMs, MemoryKB: s.MemoryKB, Verdict: s.Verdict})
	}
	return tr
}

// copyVerdict is the verdict of copy i's failed run, with the test's
// measurements, outcome 0.
func (r *judging) copyVerdict(tr TestResult, run communicationRun, i int) TestResult {
	res := heapExhausted(r.prog.lang, run.users[i])
	v := withStderr(fromSandbox(TestResult{}, res), &run.stderrs[i])
	if v.Verdict == AC {
		v.Verdict = RE // a non-zero exit
	}
	tr.Verdict, tr.VerdictSource, tr.ExitCode, tr.Signal = v.Verdict, v.VerdictSource, v.ExitCode, v.Signal
	tr.StderrExcerpt, tr.Score = v.StderrExcerpt, 0
	tr.Feedback = v.Feedback
	if len(run.users) > 1 {
		tr.Feedback = strings.TrimSuffix(fmt.Sprintf("process %d: %s", i, v.Feedback), ": ")
	}
	return tr
}
