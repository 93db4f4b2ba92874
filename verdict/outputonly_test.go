package verdict

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// testsOf lists a result's tests as "name verdict score feedback".
func testsOf(res *Result) string {
	var out []string
	for _, t := range res.Tests {
		out = append(out, fmt.Sprintf("%s %s %g %s", t.Name, t.Verdict, t.Score, t.Feedback))
	}
	return strings.Join(out, "; ")
}

// outputTask is a CMS task of three tests (answers -5, -5, 7) whose
// task.yaml ends with extra.
func outputTask(extra string, files map[string]string) map[string]string {
	all := map[string]string{"task.yaml": "name: oo\ninfile: \"\"\noutfile: \"\"\nn_input: 3\n" + extra}
	for i, c := range [][2]string{{"-2 -3", "-5"}, {"4 -9", "-5"}, {"3 4", "7"}} {
		all[fmt.Sprintf("input/input%d.txt", i)] = c[0] + "\n"
		all[fmt.Sprintf("output/output%d.txt", i)] = c[1] + "\n"
	}
	for k, v := range files {
		all[k] = v
	}
	return all
}

// An OutputOnly task judges each test's submitted output_<codename>.txt
// by its comparator, which may give part of a test's points; a test
// whose file is missing scores 0 with CMS's message. Nothing is compiled
// and the submission has no language.
func TestOutputOnlyJudged(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, outputTask("output_only: true\n", map[string]string{"check/checker.py": cmsComparator}))
	for _, c := range []struct {
		name    string
		files   map[string]string
		verdict Verdict
		score   float64
		tests   string
	}{
		{"all right", map[string]string{"output_000.txt": "-5\n", "output_001.txt": "-5", "output_002.txt": "7\n"}, AC, 100,
			"secret/000 AC 33.333333 Output is correct; secret/001 AC 33.333333 Output is correct; secret/002 AC 33.333333 Output is correct"},
		{"partial and missing", map[string]string{"output_000.txt": "5\n", "output_001.txt": "-5\n"}, AC, 50,
			"secret/000 AC 16.666667 Output is partially correct; secret/001 AC 33.333333 Output is correct; secret/002 WA 0 File not submitted"},
		{"all wrong", map[string]string{"output_002.txt": "8\n"}, WA, 0,
			"secret/000 WA 0 File not submitted; secret/001 WA 0 File not submitted; secret/002 WA 0 Output isn't correct"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := j.Judge(context.Background(), p, toSubmission("", c.files), Options{})
			if res.Verdict != c.verdict || res.Score != c.score || res.MaxScore != 100 || testsOf(res) != c.tests ||
				res.Language != "" || !res.Compile.OK || res.Compile.Log != noCompilation {
				t.Errorf("%s %g/%g %q, compile %+v, tests:\n%s\nwant %s %g:\n%s", res.Verdict, res.Score, res.MaxScore, res.Error, res.Compile, testsOf(res), c.verdict, c.score, c.tests)
			}
		})
	}
}

// Without a comparator the outputs are compared by white-diff; a
// submission's language, if it names one, is not used: there is no
// program (a TPS OutputOnly task's files are named by its codenames).
func TestOutputOnlyWhiteDiffTPS(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, map[string]string{"problem.json": `{"code": "t", "task_type": "OutputOnly"}`,
		"tests/0-01.in": "1\n", "tests/0-01.out": "1 2\n", "tests/1-01.in": "2\n", "tests/1-01.out": "3\n"})
	res := j.Judge(context.Background(), p, toSubmission("cpp", map[string]string{"output_0-01.txt": "  1   2  \n\n", "output_1-01.txt": "4\n"}), Options{})
	want := "secret/0-01 AC 50 ; secret/1-01 WA 0 " // white-diff's messages are docket's own
	if res.Verdict != AC || res.Score != 50 || res.Language != "" || !strings.HasPrefix(testsOf(res), "secret/0-01 AC 50 ; secret/1-01 WA 0") {
		t.Errorf("%s %g %q language %q, tests %s; want AC 50, %s", res.Verdict, res.Score, res.Error, res.Language, testsOf(res), want)
	}
}

// A submission's file names are hostile: a name that is no file name, a
// name of an output file the task does not have, and a program for an
// OutputOnly task are CE, naming the file, before anything is judged.
func TestOutputOnlyRefusedNames(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, outputTask("output_only: true\n", nil))
	for _, c := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"../output_000.txt": "-5\n"}, `invalid file name "../output_000.txt"`},
		{map[string]string{"output_000.txt": "-5\n", "@opts": "x"}, `invalid file name "@opts"`},
		{map[string]string{"output_003.txt": "-5\n"}, "output_003.txt is not an output file of this task: it takes output_000.txt, output_001.txt, output_002.txt"},
		{map[string]string{"output_000.txt": "-5\n", "oo.py": "print(1)\n"}, "oo.py: this task takes output files alone"},
		{map[string]string{}, "the submission has no files"},
	} {
		res := j.Judge(context.Background(), p, toSubmission("", c.files), Options{})
		if res.Verdict != CE || !strings.Contains(res.Error, c.want) || len(res.Tests) != 0 {
			t.Errorf("%v: %s %q, %d tests; want CE %q", c.files, res.Verdict, res.Error, len(res.Tests), c.want)
		}
	}
}

// A problem that takes a program refuses output files alone, CE, saying
// so, rather than an SE for a missing language.
func TestOutputFilesForABatchTask(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, outputTask("", nil))
	res := j.Judge(context.Background(), p, toSubmission("", map[string]string{"output_000.txt": "-5\n"}), Options{})
	if res.Verdict != CE || !strings.Contains(res.Error, "this problem takes a program, not output files alone") {
		t.Errorf("%s %q, want CE", res.Verdict, res.Error)
	}
}

// A submitted output file is bounded by the output limit, as a
// program's output is: over it, its test is OLE; the others are judged.
func TestOutputOnlyOversize(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, outputTask("output_only: true\n", nil))
	big := strings.Repeat("7 ", 1<<19) + "\n" // 1 MiB and a byte
	res := j.Judge(context.Background(), p, toSubmission("", map[string]string{"output_000.txt": "-5\n", "output_002.txt": big}), Options{OutputMB: 1})
	if res.Score != 33.333333 || len(res.Tests) != 3 || res.Tests[2].Verdict != OLE ||
		!strings.Contains(res.Tests[2].Feedback, "output_002.txt holds 1048577 bytes, over the output limit of 1 MiB") {
		t.Errorf("%s %g, tests %s; want 33.333333, 002 OLE", res.Verdict, res.Score, testsOf(res))
	}
}

// batchAndOutputChecker is a CMS comparator for a BatchAndOutput task:
// white-diff's verdict, and as its message the fourth argument CMS gives
// it, "outputonly" for an output-only test, else "batch".
const batchAndOutputChecker = `import sys
inp, correct, team = (open(f).read().split() for f in sys.argv[1:4])
print(1.0 if team == correct else 0.0)
print(sys.argv[4], file=sys.stderr)
`

// A BatchAndOutput task: test 002 is output-only (its file, or 0), 001
// output-optional (its file if submitted, else the program's run), 000
// the program's run. A program is not required: without one, the tests
// that would run it score 0, as in CMS. The comparator is told which
// tests are output-only.
func TestBatchAndOutput(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, outputTask("output_only_testcases: \"2\"\noutput_optional_testcases: \"1\"\n", map[string]string{"check/checker.py": batchAndOutputChecker}))
	const wrong = "print(0)\n"
	for _, c := range []struct {
		name, lang string
		files      map[string]string
		score      float64
		tests      string
	}{
		{"program alone", "python3", map[string]string{"oo.py": plainPython}, 66.666667,
			"secret/000 AC 33.333333 batch; secret/001 AC 33.333333 batch; secret/002 WA 0 File not submitted"},
		{"program and files", "python3", map[string]string{"oo.py": wrong, "output_001.txt": "-5\n", "output_002.txt": "7\n"}, 66.666667,
			"secret/000 WA 0 batch; secret/001 AC 33.333333 batch; secret/002 AC 33.333333 outputonly"},
		{"files alone", "", map[string]string{"output_001.txt": "-5\n", "output_002.txt": "7\n"}, 66.666667,
			"secret/000 WA 0 File not submitted; secret/001 AC 33.333333 batch; secret/002 AC 33.333333 outputonly"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := j.Judge(context.Background(), p, toSubmission(c.lang, c.files), Options{TimeLimit: 5 * time.Second})
			if res.Score != c.score || testsOf(res) != c.tests || res.Language != c.lang || !res.Compile.OK {
				t.Errorf("%s %g %q language %q, tests:\n%s\nwant %g:\n%s", res.Verdict, res.Score, res.Error, res.Language, testsOf(res), c.score, c.tests)
			}
		})
	}
	// Test 000 takes no file: output_000.txt is not one of the task's.
	res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"oo.py": plainPython, "output_000.txt": "-5\n"}), Options{})
	if res.Verdict != CE || !strings.Contains(res.Error, "output_000.txt is not an output file of this task: it takes output_001.txt, output_002.txt") {
		t.Errorf("output_000.txt: %s %q", res.Verdict, res.Error)
	}
}
