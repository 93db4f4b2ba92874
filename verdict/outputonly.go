package verdict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/docketjudge/docket/verdict/problem"
)

// A CMS OutputOnly task's submission is output files, one per test,
// output_<codename>.txt; a BatchAndOutput task's is a program and such
// files for some tests (problem.OutputRule). A submitted file plays the
// program's output: it reaches the comparison or the comparator as a
// batch test's output does (check). It is data: never written into a
// box the submission runs in, never compiled, never run.

// noCompilation is the compile log of a submission of output files alone.
const noCompilation = "No compilation needed: the submission is output files"

// notSubmitted is CMS's message for a test whose output file is not in
// the submission (and that has no program to run instead).
const notSubmitted = "File not submitted"

// splitOutputs separates the files of a submission to p, a task that
// takes output files: its output files (named as p names them) and the
// program's. A name that is not a file name, a name of the form of an
// output file that is none of p's, or a program for an OutputOnly task
// is an error, the contestant's (CE).
func splitOutputs(p *problem.Problem, files map[string][]byte) (outs, prog map[string][]byte, err error) {
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("the submission has no files")
	}
	if err := validNames(files); err != nil {
		return nil, nil, err
	}
	known := map[string]bool{}
	for _, n := range p.OutputFiles() {
		known[n] = true
	}
	outs, prog = map[string][]byte{}, map[string][]byte{}
	for _, n := range sortedKeys(files) {
		switch {
		case known[n]:
			outs[n] = files[n]
		case problem.IsOutputFileName(n):
			return nil, nil, fmt.Errorf("%s is not an output file of this task: it takes %s", n, describeOutputs(p.OutputFiles()))
		case p.OutputOnly:
			return nil, nil, fmt.Errorf("%s: this task takes output files alone (%s), no program", n, describeOutputs(p.OutputFiles()))
		default:
			prog[n] = files[n]
		}
	}
	return outs, prog, nil
}

// describeOutputs names a task's output files for a message: the first
// and last of many.
func describeOutputs(names []string) string {
	switch {
	case len(names) == 0:
		return "no output file"
	case len(names) > 3:
		return fmt.Sprintf("%s, ..., %s", names[0], names[len(names)-1])
	}
	return strings.Join(names, ", ")
}

// judgeWithOutputs judges a submission to a task that takes output
// files: with a program, as any submission (its language compiles the
// program's files alone); without, no language and no compilation.
func (j *Judge) judgeWithOutputs(ctx context.Context, p *problem.Problem, sub Submission, opt Options) *Result {
	res := emptyResult(p, sub)
	outs, prog, err := splitOutputs(p, sub.Files)
	if err != nil {
		return failed(res, CE, err.Error())
	}
	sub.Files = prog
	if len(prog) > 0 {
		return j.judgeProgram(ctx, p, sub, opt, res, outs)
	}
	(&judging{j: j, p: p, opt: opt, res: res}).limits()
	return j.judgeFiles(ctx, p, nil, sub, opt, res, outs)
}

// outputTest judges test t from the submitted output file when the test
// takes one and it is there; else, when the test has no program to run
// (it requires the file, or the submission has no program), it scores 0
// as CMS scores it. ok false: the test runs the program.
func (r *judging) outputTest(t *problem.Test, tr TestResult) (TestResult, bool) {
	if t.OutputFile != "" {
		if b, ok := r.submitted[t.OutputFile]; ok {
			return r.submittedTest(t, b, tr), true
		}
	}
	if t.Output == problem.OutputRequired || r.prog == nil {
		tr.Verdict, tr.Score, tr.VerdictSource, tr.Feedback = WA, 0, SourceJudge, notSubmitted
		return tr, true
	}
	return tr, false
}

// submittedTest checks the submitted output b of test t: over the output
// limit it is OLE, as a program's output would be; else it is written
// to the host file the comparison or the comparator reads.
func (r *judging) submittedTest(t *problem.Test, b []byte, tr TestResult) TestResult {
	if limit := int64(r.outMB) << 20; int64(len(b)) > limit {
		tr.Verdict, tr.Score, tr.VerdictSource = OLE, 0, SourceJudge
		tr.Feedback = fmt.Sprintf("%s holds %d bytes, over the output limit of %d MiB", t.OutputFile, len(b), r.outMB)
		return tr
	}
	dir := filepath.Join(r.ws, fmt.Sprintf("t%d", r.stats.seq.Add(1)))
	if err := os.Mkdir(dir, 0o711); err != nil {
		return seTest(tr, err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "output")
	if err := os.WriteFile(out, b, 0o600); err != nil {
		return seTest(tr, err)
	}
	tr.Verdict = AC // as a run that ended well: the check decides
	return r.check(t, dir, out, tr)
}

// comparatorArgs are the arguments a CMS comparator gets after input,
// answer and output: a BatchAndOutput task's says whether the test is
// output-only ("outputonly") or not ("batch"), as CMS's does.
func (r *judging) comparatorArgs(t *problem.Test) []string {
	args := []string{"input", "answer", "output"}
	switch {
	case !r.p.BatchAndOutput:
		return args
	case t.Output == problem.OutputRequired:
		return append(args, "outputonly")
	}
	return append(args, "batch")
}
