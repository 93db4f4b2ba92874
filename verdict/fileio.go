package verdict

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/docketjudge/docket/verdict/problem"
)

// fileIOTest is a batch test of a task whose program reads its input
// from a file and writes its output to one, in its working directory (a
// CMS task's infile and outfile; either may be "", stdin or stdout then):
// the input is put in the box under its name, the output read back from
// it without following a link. A program that leaves no output file
// gets CMS's outcome for it: WA, "Evaluation didn't produce file
// output.txt".
func (r *judging) fileIOTest(t *problem.Test, dir string, tr TestResult) TestResult {
	in, out := t.In, filepath.Join(dir, "output")
	var setup []func(string) error
	if name := r.p.InputFile; name != "" {
		in = os.DevNull
		setup = append(setup, func(box string) error {
			return copyFile(t.In, filepath.Join(box, name), 0o644)
		})
	}
	stdout := out
	if r.p.OutputFile != "" {
		stdout = filepath.Join(dir, "stdout") // bounded by the output limit, then dropped
	}
	box := filepath.Join(dir, "box")
	var stderr stderrHead
	res, err := r.runProgram(r.prog, nil, in, stdout, box, &stderr, setup...)
	if err != nil {
		return seTest(tr, err)
	}
	tr = withStderr(fromSandbox(tr, res), &stderr)
	if tr.Verdict != AC {
		return tr
	}
	if name := r.p.OutputFile; name != "" {
		err := copyNoFollow(filepath.Join(box, name), out)
		if errors.Is(err, fs.ErrNotExist) {
			tr.Verdict, tr.Score, tr.VerdictSource = WA, 0, SourceStdout
			tr.Feedback = fmt.Sprintf("Evaluation didn't produce file %s", name)
			return tr
		}
		if err != nil {
			tr.Verdict, tr.Score, tr.VerdictSource = WA, 0, SourceStdout
			tr.Feedback = fmt.Sprintf("%s is not a regular file of the program's own: %v", name, err)
			return tr
		}
	}
	return r.check(t, dir, out, tr)
}
