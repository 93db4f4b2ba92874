package verdict

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// interactive runs the submission and the interactor connected
// stdin<->stdout, each in its own sandbox and measured on its own. Who
// ended first decides (interactiveVerdict).
func (r *judging) interactive(t *problem.Test, dir string, tr TestResult) TestResult {
	ibox := filepath.Join(dir, "interactor")
	kattis := r.p.Interactor.Protocol == problem.Kattis
	if err := r.judgeBox(ibox, r.interactor, t, kattis); err != nil {
		return seTest(tr, err)
	}
	return r.interactivePass(t, t.In, filepath.Join(dir, "box"), ibox, tr)
}

// judgeBox prepares the box of the problem's own program (a validator or
// an interactor): its files, the answer, and the feedback directory of
// the Kattis protocol or the testlib interactor's tout. A multi-pass test
// keeps it, feedback and all, from pass to pass.
func (r *judging) judgeBox(box string, prog *built, t *problem.Test, kattis bool) error {
	if err := mkBox(box, r.slot.TrustedUID); err != nil {
		return err
	}
	if err := populate(box, prog); err != nil {
		return err
	}
	ans := filepath.Join(box, "answer")
	if t.Ans != "" {
		if err := copyFile(t.Ans, ans, 0o644); err != nil {
			return err
		}
	} else if err := os.WriteFile(ans, nil, 0o644); err != nil {
		return err
	}
	if kattis {
		return mkBox(filepath.Join(box, "feedback"), r.slot.TrustedUID)
	}
	tout := filepath.Join(box, "tout")
	if err := os.WriteFile(tout, nil, 0o644); err != nil {
		return err
	}
	chownIf(tout, r.slot.TrustedUID)
	return nil
}

// interactivePass runs the submission in a fresh box sbox against the
// interactor of ibox (judgeBox) on the input in: one interactive test,
// or one pass of a multi-pass one.
func (r *judging) interactivePass(t *problem.Test, in, sbox, ibox string, tr TestResult) TestResult {
	if err := mkBox(sbox, r.slot.UID); err != nil {
		return seTest(tr, err)
	}
	if err := populate(sbox, r.prog); err != nil {
		return seTest(tr, err)
	}
	if err := copyFile(in, filepath.Join(ibox, "input"), 0o644); err != nil {
		return seTest(tr, err)
	}
	kattis := r.p.Interactor.Protocol == problem.Kattis
	sub := r.command()
	sub.Args = r.prog.command(r.memMB)
	sub.Box, sub.Env, sub.Binds = sbox, r.prog.lang.Env, binds(r.prog.lang)
	var stderr stderrHead
	sub.Stderr = &stderr
	sub.Limits = r.runLimits(r.prog)

	var istderr bytes.Buffer
	inter := r.trustedCommand(r.interactor, ibox)
	inter.Stderr = &istderr
	// The interactor waits for the submission: its wall time must cover
	// the submission's.
	if w := sub.Limits.WallTime + 2*time1s; inter.Limits.WallTime < w {
		inter.Limits.WallTime = w
	}
	if kattis {
		inter.Args = r.interactor.command(checkerMemoryMB, append([]string{"input", "answer", "feedback/"}, t.Group.Config.ValidatorFlags...)...)
	} else {
		inter.Args = r.interactor.command(checkerMemoryMB, "input", "tout", "answer")
	}
	var rs, ri *sandbox.Result
	var err error
	r.timed(func() { rs, ri, err = sandbox.RunPair(sub, inter) })
	if err != nil {
		return seTest(tr, fmt.Errorf("interactive run: %w", err))
	}
	rs = heapExhausted(r.prog.lang, rs)
	tr = withStderr(fromSandbox(tr, rs), &stderr)
	return interactiveVerdict(tr, r.interactorSide(ri, rs.First, kattis, ibox, istderr.Bytes()))
}

// interactorSide reads the interactor's run: how it ended, whether it
// ended first, and its verdict when it exited with a code of its protocol.
func (r *judging) interactorSide(ri *sandbox.Result, subFirst, kattis bool, ibox string, stderr []byte) interactorSide {
	side := interactorSide{status: ri.Status, first: ri.First, detail: fmt.Sprintf("%s (%s) %s", ri.Status, ri.Source, ri.Error)}
	// A SIGPIPE death is caused by the submission having closed its
	// stdin (it exited) before; a Kattis validator exiting 0 after the
	// submission ended found it gone too (42 and 43 are its answers).
	sigpipe := ri.Signal == int(syscall.SIGPIPE)
	side.orphaned = sigpipe || (kattis && ri.Status == sandbox.OK && subFirst)
	if side.orphaned || (ri.Status != sandbox.OK && ri.Status != sandbox.RE) {
		return side
	}
	scoring := r.p.Kind == problem.Scoring
	if kattis {
		side.verdict = kattisVerdict(TestResult{Score: 1}, ri.ExitCode, filepath.Join(ibox, "feedback"), scoring)
	} else {
		side.verdict = testlibVerdict(TestResult{Score: 1}, ri.ExitCode, stderr, scoring)
	}
	return side
}

// interactorSide is what the interactor's run decided.
type interactorSide struct {
	status sandbox.Status // how its own run ended
	first  bool           // it ended before the submission did
	// orphaned: it died of SIGPIPE, or a Kattis validator exited 0,
	// because the submission had already exited.
	orphaned bool
	verdict  TestResult // its verdict, when status is OK or RE (exit codes)
	detail   string
}

// interactiveVerdict combines the submission's run with the interactor's:
// who failed first decides. The same as problemtools (support/interactive
// reports which side wait() saw first; judge/execute.py follows a
// validator that rejected first, else the submission's TLE or RTE, else
// the validator) and DOMjudge (runpipe's validator-exited-first: a 43
// from a validator that exited first overrides the submission's TLE and
// RTE). The order is RunPair's, which is causal. Beyond the peers: a
// SIGPIPE death is by construction the other side's doing (a submission
// killed by SIGPIPE ended after the interactor, an orphaned interactor
// after the submission), and an interactor orphaned that way is the
// submission's fault, never SE; problemtools avoids it by never closing
// the read end of the validator's output, which docket closes so that
// such a validator cannot block on a full pipe.
func interactiveVerdict(sub TestResult, in interactorSide) TestResult {
	interactorFirst := in.first
	if sub.Signal == int(syscall.SIGPIPE) {
		interactorFirst = true
	}
	if in.orphaned {
		interactorFirst = false
	}
	if interactorFirst {
		return interactorEndedFirst(sub, in)
	}
	return submissionEndedFirst(sub, in)
}

// submissionEndedFirst: a submission that failed (RE, TLE, MLE, OLE) keeps
// its verdict whatever the interactor then said about the EOF; one that
// exited 0 is judged by the interactor, and an interactor it left
// orphaned means it quit before the interaction was over: WA, never SE.
func submissionEndedFirst(sub TestResult, in interactorSide) TestResult {
	switch {
	case sub.Verdict != AC:
		return sub
	case in.orphaned:
		sub.Verdict, sub.VerdictSource, sub.Score = WA, SourceInteractor, 0
		sub.Feedback = "the submission exited before the interaction was over"
		return sub
	case in.status != sandbox.OK && in.status != sandbox.RE:
		return seTest(sub, fmt.Errorf("interactor: %s", in.detail))
	}
	return takeInteractorVerdict(sub, in.verdict)
}

// interactorEndedFirst: an interactor that rejected first gives WA (or
// PE) even if the submission then crashed, ran out of time or died of
// SIGPIPE; one that accepted leaves a later failure of the submission's
// own standing, except a SIGPIPE, which the interactor's exit caused.
func interactorEndedFirst(sub TestResult, in interactorSide) TestResult {
	if in.status != sandbox.OK && in.status != sandbox.RE {
		return seTest(sub, fmt.Errorf("interactor: %s", in.detail))
	}
	iv := in.verdict
	if iv.Verdict == AC && sub.Verdict != AC && sub.Signal != int(syscall.SIGPIPE) {
		return sub
	}
	return takeInteractorVerdict(sub, iv)
}

// takeInteractorVerdict gives the test the interactor's verdict, score
// and feedback; an interactor that failed (bad exit code, testlib fail)
// is the judge's problem.
func takeInteractorVerdict(sub, iv TestResult) TestResult {
	sub.Feedback = iv.Feedback
	if iv.Verdict == SE {
		return seTest(sub, fmt.Errorf("%s", iv.Feedback))
	}
	sub.Verdict, sub.VerdictSource, sub.Score = iv.Verdict, SourceInteractor, iv.Score
	return sub
}
