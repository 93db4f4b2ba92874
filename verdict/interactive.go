package verdict

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// interactive runs the submission and the interactor connected
// stdin<->stdout, each in its own sandbox and measured on its own.
//
// Who failed first decides: an interactor that rejects wins over the
// submission's RE or TLE that its exit caused (the submission read EOF or
// hit a broken pipe after the interactor had already decided); a
// submission that crashed or ran out of time before the interactor decided
// gets its own verdict; one that stops talking (forgot to flush) leaves
// both waiting, and its wall-time limit ends the pair as TLE.
func (r *run) interactive(t *problem.Test, dir string, tr TestResult) TestResult {
	sbox := filepath.Join(dir, "box")
	if err := mkBox(sbox, r.j.Slot.UID); err != nil {
		return seTest(tr, err)
	}
	if err := populate(sbox, r.prog); err != nil {
		return seTest(tr, err)
	}
	ibox := filepath.Join(dir, "interactor")
	if err := mkBox(ibox, r.j.Slot.TrustedUID); err != nil {
		return seTest(tr, err)
	}
	if err := populate(ibox, r.interactor); err != nil {
		return seTest(tr, err)
	}
	if err := copyFile(t.In, filepath.Join(ibox, "input"), 0o644); err != nil {
		return seTest(tr, err)
	}
	ans := filepath.Join(ibox, "answer")
	if t.Ans != "" {
		if err := copyFile(t.Ans, ans, 0o644); err != nil {
			return seTest(tr, err)
		}
	} else {
		os.WriteFile(ans, nil, 0o644)
	}
	kattis := r.p.Interactor.Protocol == problem.Kattis
	sub := r.j.Slot.Command("")
	sub.Args = r.prog.command(r.memMB)
	sub.Box, sub.Env, sub.Binds = sbox, r.prog.lang.Env, binds(r.prog.lang)
	sub.Stderr = discard{}
	sub.Limits = r.runLimits(r.prog)

	var istderr bytes.Buffer
	inter := r.j.Slot.Command("")
	inter.Trusted = true
	inter.Box, inter.Env, inter.Binds = ibox, r.interactor.lang.Env, binds(r.interactor.lang)
	inter.Stderr = &istderr
	lim := r.checkerLimits()
	// The interactor waits for the submission: its wall time must cover
	// the submission's.
	if w := sub.Limits.WallTime + 2*time1s; lim.WallTime < w {
		lim.WallTime = w
	}
	inter.Limits = lim
	if kattis {
		fb := filepath.Join(ibox, "feedback")
		if err := mkBox(fb, r.j.Slot.TrustedUID); err != nil {
			return seTest(tr, err)
		}
		inter.Args = r.interactor.command(checkerMemoryMB, append([]string{"input", "answer", "feedback/"}, t.Group.Config.ValidatorFlags...)...)
	} else {
		os.WriteFile(filepath.Join(ibox, "tout"), nil, 0o644)
		chownIf(filepath.Join(ibox, "tout"), r.j.Slot.TrustedUID)
		inter.Args = r.interactor.command(checkerMemoryMB, "input", "tout", "answer")
	}
	var rs, ri *sandbox.Result
	var err error
	r.timed(func() { rs, ri, err = sandbox.RunPair(sub, inter) })
	if err != nil {
		return seTest(tr, fmt.Errorf("interactive run: %w", err))
	}
	rs = heapExhausted(r.prog.lang, rs)
	tr = fromSandbox(tr, rs)
	side := interactorSide{status: ri.Status, wall: ri.Ended.Sub(rs.Started), detail: fmt.Sprintf("%s (%s) %s", ri.Status, ri.Source, ri.Error)}
	if ri.Status == sandbox.OK || ri.Status == sandbox.RE {
		if kattis {
			side.verdict = kattisVerdict(TestResult{Score: 1}, ri.ExitCode, filepath.Join(ibox, "feedback"), r.p.Kind == problem.Scoring)
		} else {
			side.verdict = testlibVerdict(TestResult{Score: 1}, ri.ExitCode, istderr.Bytes(), r.p.Kind == problem.Scoring)
		}
	}
	return interactiveVerdict(tr, rs.Ended.Sub(rs.Started), side)
}

// interactorSide is what the interactor's run decided.
type interactorSide struct {
	status  sandbox.Status // how its own run ended
	wall    time.Duration  // when it ended, from the submission's start
	verdict TestResult     // its verdict, when status is OK or RE (exit codes)
	detail  string
}

// interactiveVerdict combines the submission's run (sub, ended at subWall)
// with the interactor's: the rules of the package comment above.
func interactiveVerdict(sub TestResult, subWall time.Duration, in interactorSide) TestResult {
	subFailed := sub.Verdict != AC
	if in.status != sandbox.OK && in.status != sandbox.RE {
		// The interactor hit its own limit: if the submission failed
		// first, that stands; otherwise it is the judge's problem.
		if subFailed && subWall <= in.wall {
			return sub
		}
		return seTest(sub, fmt.Errorf("interactor: %s", in.detail))
	}
	iv := in.verdict
	sub.Feedback = iv.Feedback
	switch {
	case iv.Verdict == SE:
		if subFailed {
			// A crashed submission can make an interactor fail; the
			// submission's own verdict is the truth then.
			return sub
		}
		return seTest(sub, fmt.Errorf("%s", iv.Feedback))
	case iv.Verdict != AC:
		// The interactor rejected. That wins over an RE or a broken pipe
		// it caused by exiting; only a limit the submission hit before the
		// interactor decided stands.
		if subFailed && subWall < in.wall && (sub.Verdict == TLE || sub.Verdict == MLE || sub.Verdict == OLE) {
			return sub
		}
		sub.Verdict, sub.VerdictSource, sub.Score = iv.Verdict, SourceInteractor, 0
	default:
		if subFailed {
			return sub
		}
		sub.Verdict, sub.VerdictSource, sub.Score = AC, SourceInteractor, iv.Score
	}
	return sub
}
