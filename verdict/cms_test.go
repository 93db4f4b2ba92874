package verdict

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/verdict/problem"
)

// cmsComparator is a CMS comparator in Python: full marks for the sum,
// half for the sum's absolute value, none otherwise; "crash" in the
// output makes it exit 1, "noise" print no number.
const cmsComparator = `import sys
inp, correct, team = (open(f).read().split() for f in sys.argv[1:4])
if team == ["crash"]:
    sys.exit(1)
if team == ["noise"]:
    print("maybe")
    sys.exit(0)
if team == correct:
    print(1.0)
    print("translate:success", file=sys.stderr)
elif team and correct and team[0].lstrip("-") == correct[0].lstrip("-"):
    print(0.5)
    print("translate:partial", file=sys.stderr)
    print("ADMIN_MESSAGE: the sign is wrong", file=sys.stderr)
else:
    print(0.0)
    print("translate:wrong", file=sys.stderr)
`

// A CMS task's comparator decides each test's outcome in [0, 1], and Sum
// scores each test its points times its outcome: a half outcome is AC
// for half the points, with CMS's message; a comparator that fails is
// SE, never the contestant's fault.
func TestCMSComparator(t *testing.T) {
	j := testJudge(t)
	files := map[string]string{"task.yaml": "name: neg\ninfile: \"\"\noutfile: \"\"\nn_input: 2\n", "check/checker.py": cmsComparator}
	for i, in := range []string{"-2 -3", "4 -9"} {
		files[fmt.Sprintf("input/input%d.txt", i)] = in + "\n"
	}
	files["output/output0.txt"], files["output/output1.txt"] = "-5\n", "-5\n"
	p := loadPackage(t, files)
	for _, c := range []struct {
		src      string
		verdict  Verdict
		score    float64
		feedback string
		errText  string
	}{
		{plainPython, AC, 100, "Output is correct", ""},
		{"print(abs(sum(map(int, input().split()))))\n", AC, 50, "Output is partially correct", ""},
		{"print(7)\n", WA, 0, "Output isn't correct", ""},
		{"print('crash')\n", SE, 0, "", "comparator: exit code 1"},
		{"print('noise')\n", SE, 0, "", `comparator: the outcome "maybe"`},
	} {
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"neg.py": c.src}), Options{TimeLimit: 5 * time.Second})
		if res.Verdict != c.verdict || res.Score != c.score || res.MaxScore != 100 || len(res.Tests) != 2 ||
			!strings.Contains(res.Tests[0].Feedback+res.Error, c.feedback) || !strings.Contains(res.Error, c.errText) {
			t.Errorf("%q: %s %g/%g, error %q, tests %+v; want %s %g, %q", c.src, res.Verdict, res.Score, res.MaxScore, res.Error, res.Tests, c.verdict, c.score, c.feedback)
		}
	}
	// GroupMul: one subtask of both tests, each half right: 100 × ½ × ½.
	files["task.yaml"] += "score_type: GroupMul\nscore_type_parameters: [[100, 2]]\n"
	p = loadPackage(t, files)
	res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"neg.py": "print(abs(sum(map(int, input().split()))))\n"}), Options{TimeLimit: 5 * time.Second})
	if res.Verdict != AC || res.Score != 25 || res.MaxScore != 100 {
		t.Errorf("GroupMul: %s %g/%g %s", res.Verdict, res.Score, res.MaxScore, res.Error)
	}
}

// The submission of a CMS task is named as its submission format names
// it, <task name>.<ext>, which the compile log says: the task's Python
// grader imports it by that name whatever the contestant called it.
func TestCMSSubmissionNamed(t *testing.T) {
	j := testJudge(t)
	p, err := problem.Load("../problems/cms-plus")
	if err != nil {
		t.Fatal(err)
	}
	res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"mine.py": "def sum(a, b):\n    return a + b\n"}), Options{TimeLimit: 5 * time.Second})
	if res.Verdict != AC || res.Score != 100 || !strings.Contains(res.Compile.Log, "mine.py is named plus.py in the box") {
		t.Errorf("%s %g: %s %q", res.Verdict, res.Score, res.Error, res.Compile.Log)
	}
}

// A CMS task's program reads input.txt and writes output.txt in its
// working directory (CMS's default, infile and outfile): the input is
// in the box, the output read back; no output file (printing to stdout
// instead, or a link, which is never copied back) is WA with CMS's
// message; infile alone leaves the output on stdout.
func TestCMSFileIO(t *testing.T) {
	j := testJudge(t)
	files := map[string]string{"task.yaml": "name: f\nn_input: 1\n", "input/input0.txt": "2 3\n", "output/output0.txt": "5\n"}
	p := loadPackage(t, files)
	const readFile = "a, b = map(int, open('input.txt').read().split())\n"
	for _, c := range []struct {
		name, src string
		verdict   Verdict
		feedback  string
	}{
		{"files", readFile + "open('output.txt', 'w').write(str(a + b) + '\\n')\n", AC, ""},
		{"stdout instead", readFile + "print(a + b)\n", WA, "Evaluation didn't produce file output.txt"},
		{"a link", readFile + "import os\nos.symlink('/etc/passwd', 'output.txt')\n", WA, "Evaluation didn't produce file output.txt"},
		{"stdin instead", "a, b = map(int, input().split())\nopen('output.txt', 'w').write(str(a + b))\n", RE, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"f.py": c.src}), Options{TimeLimit: 5 * time.Second})
			if res.Verdict != c.verdict || len(res.Tests) != 1 || !strings.Contains(res.Tests[0].Feedback, c.feedback) {
				t.Errorf("%s: %s %+v; want %s %q", c.name, res.Verdict, res.Tests, c.verdict, c.feedback)
			}
		})
	}
	files["task.yaml"] = "name: f\nn_input: 1\noutfile: \"\"\n"
	p = loadPackage(t, files)
	res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"f.py": readFile + "print(a + b)\n"}), Options{TimeLimit: 5 * time.Second})
	if res.Verdict != AC || res.Score != 100 {
		t.Errorf("infile, stdout: %s %g %+v", res.Verdict, res.Score, res.Tests)
	}
}

// A test in several subtasks (CMS's patterns allow it, TPS tasks do it
// all the time) is judged once and counted in each: test 001 is in both
// subtasks, the runs are the compile check and two tests, and a wrong
// 001 costs both subtasks.
func TestCMSTestInSeveralSubtasks(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, map[string]string{
		"task.yaml":          "name: s\ninfile: \"\"\noutfile: \"\"\nn_input: 2\nscore_type: GroupMin\nscore_type_parameters: [[40, \"000|001\"], [60, \"001\"]]\n",
		"input/input0.txt":   "1 1\n",
		"output/output0.txt": "2\n",
		"input/input1.txt":   "1000 1000\n",
		"output/output1.txt": "2000\n",
	})
	for _, c := range []struct {
		src    string
		score  float64
		groups string
	}{
		{plainPython, 100, "secret/subtask1 40/40, secret/subtask2 60/60"},
		{"a, b = map(int, input().split())\nprint(a + b if a < 10 else 0)\n", 0, "secret/subtask1 0/40, secret/subtask2 0/60"},
	} {
		var timing Timing
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"s.py": c.src}), Options{TimeLimit: 5 * time.Second, Timing: &timing})
		var groups []string
		for _, g := range res.Groups {
			if strings.HasPrefix(g.Name, "secret/") {
				groups = append(groups, fmt.Sprintf("%s %g/%g", g.Name, g.Score, g.MaxScore))
			}
		}
		if res.Score != c.score || strings.Join(groups, ", ") != c.groups || len(res.Tests) != 3 || timing.Runs != 3 {
			t.Errorf("%s %g, groups %v, %d tests, %d runs; want %g, %s, 3 tests (001 twice), 3 runs", res.Verdict, res.Score, groups, len(res.Tests), timing.Runs, c.score, c.groups)
		}
	}
}
