package verdict

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/docketjudge/docket/verdict/problem"
)

const time1s = time.Second

// twoStep runs the first step on the test input, hands its stdout (or a
// file it wrote in its box) to the second step, a fresh sandbox, and
// judges only the second step's output. CPU time is reported per step and
// in total.
func (r *judging) twoStep(t *problem.Test, dir string, tr TestResult) TestResult {
	ts := r.p.TwoStep
	first, second := r.prog, r.prog
	args1, args2 := ts.FirstArgs, ts.SecondArgs
	if ts.Programs {
		second = r.prog2
		args1, args2 = nil, nil
	}
	box1 := filepath.Join(dir, "box1")
	out1 := filepath.Join(dir, "output1")
	var stderr1, stderr2 stderrHead
	res1, err := r.runProgram(first, args1, t.In, out1, box1, &stderr1)
	if err != nil {
		return seTest(tr, err)
	}
	s1 := withStderr(fromSandbox(TestResult{}, res1), &stderr1)
	tr.Steps = append(tr.Steps, StepResult{TimeMs: s1.TimeMs, WallMs: s1.WallMs, MemoryKB: s1.MemoryKB, Verdict: s1.Verdict})
	if s1.Verdict != AC {
		s1.Name, s1.Group, s1.Steps = tr.Name, tr.Group, tr.Steps
		s1.Feedback = "first step: " + s1.Feedback
		return s1
	}
	handoff := out1
	if ts.HandoffFile != "" {
		// Read back without following links: the file is the
		// contestant's, a symlink could point at anything.
		handoff = filepath.Join(dir, "handoff")
		if err := copyNoFollow(filepath.Join(box1, ts.HandoffFile), handoff); err != nil {
			tr.Verdict, tr.VerdictSource, tr.Score = WA, SourceJudge, 0
			tr.Feedback = fmt.Sprintf("first step did not leave %s: %v", ts.HandoffFile, err)
			tr.TimeMs, tr.WallMs, tr.MemoryKB = s1.TimeMs, s1.WallMs, s1.MemoryKB
			return tr
		}
	}
	os.RemoveAll(box1)
	out2 := filepath.Join(dir, "output")
	res2, err := r.runProgram(second, args2, handoff, out2, filepath.Join(dir, "box2"), &stderr2)
	if err != nil {
		return seTest(tr, err)
	}
	s2 := withStderr(fromSandbox(TestResult{Name: tr.Name, Group: tr.Group, Score: 1}, res2), &stderr2)
	tr.Steps = append(tr.Steps, StepResult{TimeMs: s2.TimeMs, WallMs: s2.WallMs, MemoryKB: s2.MemoryKB, Verdict: s2.Verdict})
	s2.Steps = tr.Steps
	s2.TimeMs += s1.TimeMs
	s2.WallMs += s1.WallMs
	if s1.MemoryKB > s2.MemoryKB {
		s2.MemoryKB = s1.MemoryKB
	}
	if s2.Verdict != AC {
		s2.Feedback = "second step: " + s2.Feedback
		return s2
	}
	return r.check(t, dir, out2, s2)
}

// copyNoFollow copies a regular file, refusing links and special files.
func copyNoFollow(src, dst string) error {
	f, err := os.OpenFile(src, os.O_RDONLY|syscallNoFollow, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", filepath.Base(src))
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	_, err = out.ReadFrom(f)
	return err
}
