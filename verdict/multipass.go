package verdict

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// nextPassFile is what a multi-pass problem's Kattis validator writes into
// its feedback directory to run the submission again, on its content.
const nextPassFile = "nextpass.in"

// multiPass judges a test of a multi-pass problem, with the contract of
// problemtools (judge/execute.py) and DOMjudge: the submission runs on the
// test's input (batch, or against the interactive validator); a validator
// that accepts and wrote feedback/nextpass.in runs it again, in a fresh
// box, on that file (the validator gets it as its input too), until it
// accepts without one or rejects. Its feedback directory persists across
// passes. Every pass has the test's full limits.
//
// Where docket differs: more passes than limits.validation_passes is the
// submission's WA (a rejection: it never settles), where problemtools and
// DOMjudge call it a judge error. A nextpass.in beside a rejection is SE,
// as in problemtools.
func (r *judging) multiPass(t *problem.Test, dir string, tr TestResult) TestResult {
	vbox := filepath.Join(dir, "validator")
	prog := r.checker
	if r.p.Interactive {
		prog = r.interactor
	}
	if err := r.judgeBox(vbox, prog, t, true); err != nil {
		return seTest(tr, err)
	}
	in := t.In
	var passes []StepResult
	for n := 1; ; n++ {
		res := r.onePass(t, in, dir, vbox, n, tr)
		passes = append(passes, StepResult{TimeMs: res.TimeMs, WallMs: res.WallMs, MemoryKB: res.MemoryKB, Verdict: res.Verdict})
		next := filepath.Join(dir, fmt.Sprintf("pass%d.in", n+1))
		asked, err := takeNextPass(vbox, next)
		switch {
		case err != nil:
			return withPasses(seTest(res, fmt.Errorf("pass %d: %w", n, err)), passes)
		case asked && res.Verdict != AC && (res.VerdictSource == SourceChecker || res.VerdictSource == SourceInteractor):
			return withPasses(seTest(res, fmt.Errorf("pass %d: the validator wrote %s but rejected", n, nextPassFile)), passes)
		case !asked || res.Verdict != AC:
			return withPasses(res, passes)
		case n >= passLimit(r.p):
			res.Verdict, res.VerdictSource, res.Score = WA, SourceJudge, 0
			res.Feedback = fmt.Sprintf("the validator asked for pass %d, more than the %d passes allowed (validation_passes)", n+1, n)
			return withPasses(res, passes)
		}
		in = next
	}
}

// passLimit is the package's validation_passes; a Problem built in code
// without one gets the format's default, never an endless loop.
func passLimit(p *problem.Problem) int {
	if p.Limits.ValidationPasses < 2 {
		return problem.DefaultValidationPasses
	}
	return p.Limits.ValidationPasses
}

// onePass runs the submission once, in a fresh box, on the input in and
// judges it with the validator of vbox.
func (r *judging) onePass(t *problem.Test, in, dir, vbox string, n int, tr TestResult) TestResult {
	box := filepath.Join(dir, fmt.Sprintf("pass%d-box", n))
	defer os.RemoveAll(box)
	if r.p.Interactive {
		return r.interactivePass(t, in, box, vbox, tr)
	}
	out := filepath.Join(dir, fmt.Sprintf("pass%d.out", n))
	var stderr stderrHead
	res, err := r.runProgram(r.prog, nil, in, out, box, &stderr)
	if err != nil {
		return seTest(tr, err)
	}
	tr = withStderr(fromSandbox(tr, res), &stderr)
	if tr.Verdict != AC {
		return tr
	}
	return r.validatePass(t, in, out, vbox, tr)
}

// validatePass runs the Kattis output validator of vbox on one pass's
// input and output; its feedback directory is the one of every pass.
func (r *judging) validatePass(t *problem.Test, in, out, vbox string, tr TestResult) TestResult {
	if err := copyFile(in, filepath.Join(vbox, "input"), 0o644); err != nil {
		return seTest(tr, err)
	}
	team, err := os.Open(out)
	if err != nil {
		return seTest(tr, err)
	}
	defer team.Close()
	var stdout, stderr bytes.Buffer
	cmd := r.trustedCommand(r.checker, vbox)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = team, &stdout, &stderr
	cmd.Args = r.checker.command(checkerMemoryMB, append([]string{"input", "answer", "feedback/"}, t.Group.Config.ValidatorFlags...)...)
	var res *sandbox.Result
	r.timed(func() { res, err = cmd.Run() })
	if err != nil {
		return seTest(tr, fmt.Errorf("validator: %w", err))
	}
	if res.Status != sandbox.OK && res.Status != sandbox.RE {
		return seTest(tr, fmt.Errorf("validator: %s (%s) %s", res.Status, res.Source, res.Error))
	}
	tr.VerdictSource = SourceChecker
	return kattisVerdict(tr, res.ExitCode, filepath.Join(vbox, "feedback"), r.p.Kind == problem.Scoring)
}

// takeNextPass moves the validator's nextpass.in, if it wrote one, out of
// its feedback directory to dst, refusing a link or a special file (the
// validator is the package's code, and every input is hostile).
func takeNextPass(vbox, dst string) (bool, error) {
	src := filepath.Join(vbox, "feedback", nextPassFile)
	if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err := copyNoFollow(src, dst); err != nil {
		return true, fmt.Errorf("%s: %w", nextPassFile, err)
	}
	return true, os.Remove(src)
}

// withPasses gives a multi-pass test its passes, and as its time and
// memory the largest of any pass (each pass has the full limits, as in
// problemtools, which reports the slowest).
func withPasses(tr TestResult, passes []StepResult) TestResult {
	tr.Passes = passes
	for _, p := range passes {
		tr.TimeMs, tr.WallMs, tr.MemoryKB = max(tr.TimeMs, p.TimeMs), max(tr.WallMs, p.WallMs), max(tr.MemoryKB, p.MemoryKB)
	}
	if len(passes) > 1 && tr.Verdict != AC {
		tr.Feedback = fmt.Sprintf("pass %d: %s", len(passes), tr.Feedback)
	}
	return tr
}
