package verdict

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/compare"
	"github.com/docketjudge/docket/verdict/feedback"
	"github.com/docketjudge/docket/verdict/problem"
)

// feedbackCap bounds the feedback text kept per test.
const feedbackCap = 4 << 10

// Checker limits: the problem author's code is trusted, but still bounded.
const (
	checkerTime     = 30 * time.Second
	checkerMemoryMB = 2048
)

// test judges one test. A batch test compared by the default comparison
// needs nothing on the host but its output, a file every such test of
// the judging writes in turn; the other kinds get a directory each.
func (r *judging) test(ctx context.Context, t *problem.Test) TestResult {
	tr := TestResult{Name: t.Name, Group: t.Group.Name, Score: 1}
	if t.Output != problem.OutputNone || r.prog == nil {
		if tr, done := r.outputTest(t, tr); done {
			return tr
		}
	}
	fileIO := r.p.InputFile != "" || r.p.OutputFile != ""
	if !r.p.MultiPass && !r.p.Interactive && r.p.TwoStep == nil && r.checker == nil && !fileIO && r.p.Communication == nil {
		return r.comparedTest(t, tr)
	}
	dir := filepath.Join(r.ws, fmt.Sprintf("t%d", r.stats.seq.Add(1)))
	if err := os.Mkdir(dir, 0o711); err != nil {
		return seTest(tr, err)
	}
	defer os.RemoveAll(dir)
	switch {
	case r.p.Communication != nil:
		return r.communication(t, dir, tr)
	case r.p.MultiPass:
		return r.multiPass(t, dir, tr)
	case r.p.Interactive:
		return r.interactive(t, dir, tr)
	case r.p.TwoStep != nil:
		return r.twoStep(t, dir, tr)
	case fileIO:
		return r.fileIOTest(t, dir, tr)
	}
	return r.batchTest(t, filepath.Join(dir, "output"), dir, tr)
}

// batchTest runs the submission on the test's input, its output into
// out, and checks it (a checker works in dir).
func (r *judging) batchTest(t *problem.Test, out, dir string, tr TestResult) TestResult {
	var stderr stderrHead
	res, err := r.runProgram(r.prog, nil, t.In, out, "", &stderr)
	if err != nil {
		return seTest(tr, err)
	}
	tr = withStderr(fromSandbox(tr, res), &stderr)
	if tr.Verdict != AC {
		return tr
	}
	return r.check(t, dir, out, tr)
}

// comparedTest is batchTest for a test checked by the default
// comparison, its output in one of the slot's files made ahead.
func (r *judging) comparedTest(t *problem.Test, tr TestResult) TestResult {
	out, err := r.outputs.take()
	if err != nil {
		return seTest(tr, err)
	}
	defer r.outputs.done(out)
	var stderr stderrHead
	res, err := r.runProgramTo(r.prog, nil, t.In, out, "", &stderr)
	out.Close()
	if err != nil {
		return seTest(tr, err)
	}
	tr = withStderr(fromSandbox(tr, res), &stderr)
	if tr.Verdict != AC {
		return tr
	}
	return r.check(t, "", out.Name(), tr)
}

func seTest(tr TestResult, err error) TestResult {
	tr.Verdict, tr.VerdictSource, tr.Feedback, tr.Score = SE, SourceJudge, err.Error(), 0
	return tr
}

// runProgram runs the submission (b) on stdin from inPath with stdout
// into outPath (a host file outside the box: RLIMIT_FSIZE caps it) in a
// fresh box: a host directory box, which stays for the caller to read (a
// two-step handoff), or with box "" one made from the program's directory
// in the run's own space, with nothing on the host to make or remove.
func (r *judging) runProgram(b *built, args []string, inPath, outPath, box string, stderr *stderrHead, setup ...func(box string) error) (*sandbox.Result, error) {
	out, err := newOutput(outPath)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	return r.runProgramTo(b, args, inPath, out, box, stderr, setup...)
}

// runProgramTo is runProgram with its output file made: out. A host
// box gets the program, then whatever setup puts there (a CMS task's
// input file).
func (r *judging) runProgramTo(b *built, args []string, inPath string, out *os.File, box string, stderr *stderrHead, setup ...func(box string) error) (*sandbox.Result, error) {
	cmd := r.command()
	if box == "" {
		cmd.BoxFrom = b.dir
	} else {
		if err := mkBox(box, r.slot.UID); err != nil {
			return nil, err
		}
		if err := populate(box, b); err != nil {
			return nil, err
		}
		for _, f := range setup {
			if err := f(box); err != nil {
				return nil, err
			}
		}
		cmd.Box = box
	}
	in, err := os.Open(inPath)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	cmd.Args = b.command(r.memMB, args...)
	cmd.Env, cmd.Binds = b.lang.Env, binds(b.lang)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, stderr
	cmd.Limits = r.runLimits(b)
	var res *sandbox.Result
	r.timed(func() { res, err = cmd.Run() })
	return heapExhausted(b.lang, res), err
}

// submissionStderrCap is how much of a submission's stderr the sandbox
// passes on (to a stderrHead, which keeps the excerpt). The rest is
// drained and dropped without ending the run, so a program flooding
// stderr only burns its time (TLE), never OLE.
const submissionStderrCap = 64 << 10

func (r *judging) runLimits(b *built) sandbox.Limits {
	out := int64(r.outMB) << 20
	l := sandbox.Limits{
		CPUTime: r.tl, WallTime: r.wall, Memory: int64(r.memMB+b.lang.MemoryReserveMB) << 20,
		Processes: b.lang.Processes, Threads: b.lang.Threads, OpenFiles: b.lang.OpenFiles,
		Stdout: out, Stderr: submissionStderrCap, TruncateStderr: true, FileSize: out, Disk: int64(r.diskMB) << 20,
	}
	if b.lang.AddressSpaceLimit {
		l.AddressSpace = l.Memory
	}
	return l
}

// fromSandbox maps a run's status to a test verdict.
func fromSandbox(tr TestResult, res *sandbox.Result) TestResult {
	tr.TimeMs, tr.WallMs, tr.MemoryKB = res.CPUTime.Milliseconds(), res.WallTime.Milliseconds(), res.Memory>>10
	tr.ExitCode, tr.Signal, tr.VerdictSource = res.ExitCode, res.Signal, res.Source
	switch res.Status {
	case sandbox.OK:
		tr.Verdict = AC
	case sandbox.TLE:
		tr.Verdict = TLE
	case sandbox.MLE:
		tr.Verdict = MLE
	case sandbox.OLE:
		tr.Verdict = OLE
	case sandbox.RE:
		tr.Verdict = RE
	default:
		tr.Verdict, tr.Feedback = SE, res.Error
	}
	if tr.Verdict != AC {
		tr.Score = 0
	}
	return tr
}

// check judges an output: the default comparison, a Kattis output
// validator or a testlib checker.
func (r *judging) check(t *problem.Test, dir, out string, tr TestResult) TestResult {
	if r.checker == nil {
		opt, err := compare.ParseFlags(t.Group.Config.ValidatorFlags)
		if err != nil {
			return seTest(tr, fmt.Errorf("validator_flags: %w", err))
		}
		team, err := os.Open(out)
		if err != nil {
			return seTest(tr, err)
		}
		defer team.Close()
		ans, err := os.Open(t.Ans)
		if err != nil {
			return seTest(tr, err)
		}
		defer ans.Close()
		o, err := compare.Compare(team, ans, opt)
		if err != nil {
			return seTest(tr, err)
		}
		tr.VerdictSource = SourceStdout
		if !o.Accepted {
			tr.Verdict, tr.Feedback, tr.Score = WA, o.Message, 0
		}
		return tr
	}
	box := filepath.Join(dir, "check")
	if err := mkBox(box, r.slot.TrustedUID); err != nil {
		return seTest(tr, err)
	}
	if err := populate(box, r.checker); err != nil {
		return seTest(tr, err)
	}
	for src, name := range map[string]string{t.In: "input", t.Ans: "answer", out: "output"} {
		if src == "" {
			os.WriteFile(filepath.Join(box, name), nil, 0o644)
			continue
		}
		if err := copyFile(src, filepath.Join(box, name), 0o644); err != nil {
			return seTest(tr, err)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd := r.trustedCommand(r.checker, box)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	kattis := r.p.Checker.Protocol == problem.Kattis
	switch {
	case r.p.Checker.Protocol == problem.CMS:
		cmd.Args = r.checker.command(checkerMemoryMB, r.comparatorArgs(t)...)
	case kattis:
		fb := filepath.Join(box, "feedback")
		if err := mkBox(fb, r.slot.TrustedUID); err != nil {
			return seTest(tr, err)
		}
		team, err := os.Open(out)
		if err != nil {
			return seTest(tr, err)
		}
		defer team.Close()
		cmd.Stdin = team
		cmd.Args = r.checker.command(checkerMemoryMB, append([]string{"input", "answer", "feedback/"}, t.Group.Config.ValidatorFlags...)...)
	default:
		cmd.Args = r.checker.command(checkerMemoryMB, "input", "output", "answer")
	}
	var res *sandbox.Result
	var err error
	r.timed(func() { res, err = cmd.Run() })
	if err != nil {
		return seTest(tr, fmt.Errorf("checker: %w", err))
	}
	if res.Status != sandbox.OK && res.Status != sandbox.RE {
		return seTest(tr, fmt.Errorf("checker: %s (%s) %s", res.Status, res.Source, res.Error))
	}
	tr.VerdictSource = SourceChecker
	if r.p.Checker.Protocol == problem.CMS && r.p.CMSRawOutcomes {
		return cmsRawVerdict(tr, res.ExitCode, stdout.Bytes(), stderr.Bytes())
	}
	if r.p.Checker.Protocol == problem.CMS {
		return cmsVerdict(tr, res.ExitCode, stdout.Bytes(), stderr.Bytes(), r.p.Kind == problem.Scoring)
	}
	if kattis {
		return kattisVerdict(tr, res.ExitCode, filepath.Join(box, "feedback"), r.p.Kind == problem.Scoring)
	}
	return testlibVerdict(tr, res.ExitCode, append(stderr.Bytes(), stdout.Bytes()...), r.p.Kind == problem.Scoring)
}

// trustedCommand is a run of the problem's own program b (a checker,
// validator, interactor or custom grader) in box: under the slot's
// trusted uid, with b's language's environment and binds and the
// checkers' limits, which the caller may widen.
func (r *judging) trustedCommand(b *built, box string) *sandbox.Cmd {
	return r.trustedCommandContext(r.ctx, b, box)
}

// trustedCommandContext is trustedCommand killed when ctx ends.
func (r *judging) trustedCommandContext(ctx context.Context, b *built, box string) *sandbox.Cmd {
	cmd := r.slot.CommandContext(ctx, "")
	cmd.Trusted = true
	cmd.Box, cmd.Env, cmd.Binds = box, b.lang.Env, binds(b.lang)
	cmd.Limits = r.checkerLimits()
	return cmd
}

func (r *judging) checkerLimits() sandbox.Limits {
	return sandbox.Limits{CPUTime: checkerTime, WallTime: 2 * checkerTime, Memory: checkerMemoryMB << 20,
		Processes: 16, Threads: 256, Stdout: 1 << 20, Stderr: 1 << 20, FileSize: 64 << 20}
}

// kattisVerdict reads a Kattis validator's exit code and feedback dir.
func kattisVerdict(tr TestResult, exit int, fbDir string, scoring bool) TestResult {
	fb, err := feedback.ReadKattisDir(fbDir)
	if err != nil {
		return seTest(tr, fmt.Errorf("validator feedback: %w", err))
	}
	tr.Feedback = truncate(strings.TrimSpace(firstNonEmpty(fb.TeamMessage, fb.JudgeMessage)), feedbackCap)
	switch exit {
	case 42:
		tr.Verdict = AC
		if scoring && fb.Score != nil {
			tr.Score = *fb.Score // an absolute score, scaled by accept_score 1
		}
	case 43:
		tr.Verdict, tr.Score = WA, 0
	default:
		return seTest(tr, fmt.Errorf("the output validator exited %d (expected 42 or 43): %s", exit, tr.Feedback))
	}
	return tr
}

// testlibVerdict maps a testlib checker's exit code and message.
func testlibVerdict(tr TestResult, exit int, msg []byte, scoring bool) TestResult {
	v, err := feedback.ParseTestlib(exit, msg)
	if err != nil {
		return seTest(tr, fmt.Errorf("checker: %w", err))
	}
	tr.Feedback = truncate(v.Message, feedbackCap)
	switch v.Verdict {
	case feedback.OK:
		tr.Verdict = AC
	case feedback.WA:
		tr.Verdict, tr.Score = WA, 0
	case feedback.PE, feedback.Dirt, feedback.UnexpectedEOF:
		tr.Verdict, tr.Score = PE, 0
	case feedback.Points, feedback.PartiallyCorrect:
		frac := 0.0
		if v.Points != nil {
			frac = *v.Points
		}
		if !scoring {
			// pass-fail: partial is not accepted
			if frac >= 1 {
				tr.Verdict = AC
			} else {
				tr.Verdict, tr.Score = WA, 0
			}
			return tr
		}
		tr.Verdict, tr.Score = AC, clamp(frac, 0, 1)
		if frac <= 0 {
			tr.Verdict, tr.Score = WA, 0
		}
	default:
		return seTest(tr, fmt.Errorf("the checker failed (testlib fail): %s", v.Message))
	}
	return tr
}

// cmsVerdict reads a CMS comparator's report: exit 0 and an outcome in
// [0, 1], 1 AC, 0 WA, in between AC with that fraction of the test's
// points (a pass-fail problem: WA); its message is the feedback. Another
// exit code or report is the package's fault (SE).
func cmsVerdict(tr TestResult, exit int, stdout, stderr []byte, scoring bool) TestResult {
	if exit != 0 {
		return seTest(tr, fmt.Errorf("comparator: exit code %d (want 0): %s", exit, oneLineOf(string(stderr))))
	}
	c, err := feedback.ParseCMS(stdout, stderr)
	if err != nil {
		return seTest(tr, fmt.Errorf("comparator: %w", err))
	}
	tr.Feedback = truncate(firstNonEmpty(c.Text, feedback.CMSMessage(c.Outcome)), feedbackCap)
	switch {
	case c.Outcome >= 1:
		tr.Verdict, tr.Score = AC, 1
	case c.Outcome > 0 && scoring:
		tr.Verdict, tr.Score = AC, c.Outcome
	default:
		tr.Verdict, tr.Score = WA, 0
	}
	return tr
}

// cmsRawVerdict reads a GroupThreshold task's comparator: exit 0 and
// any finite outcome, kept as the Score of an accepted test for each of
// its subtasks' thresholds to judge (thresholded); its message is the
// feedback. Another exit code or report is the package's fault (SE).
func cmsRawVerdict(tr TestResult, exit int, stdout, stderr []byte) TestResult {
	if exit != 0 {
		return seTest(tr, fmt.Errorf("comparator: exit code %d (want 0): %s", exit, oneLineOf(string(stderr))))
	}
	c, err := feedback.ParseCMSRaw(stdout, stderr)
	if err != nil {
		return seTest(tr, fmt.Errorf("comparator: %w", err))
	}
	tr.Verdict, tr.Score, tr.Feedback = AC, c.Outcome, truncate(c.Text, feedbackCap)
	return tr
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}
