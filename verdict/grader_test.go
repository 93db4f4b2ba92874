package verdict

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/verdict/problem"
)

// A group with grading: custom gets its verdict and score from the
// package's grader (problems/custom-grader: subtask_score=30 and =70),
// and its maximum from the grader's answer when everything is accepted:
// 30 and 70 of 100, where docket's own sum would give 2 and 2 of 5
// (before: grading was not read, and the custom flags were a load error).
func TestCustomGrader(t *testing.T) {
	j := testJudge(t)
	p, err := problem.Load("../problems/custom-grader")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file, src string
		verdict   Verdict
		score     float64
		groups    string
	}{
		{"sum.py", "print(sum(map(int, input().split())))\n", AC, 100, "secret/group1 AC 30/30, secret/group2 AC 70/70"},
		{"int.py", "a, b = map(int, input().split())\nprint(a + b if abs(a) <= 1000 else 0)\n", AC, 30, "secret/group1 AC 30/30, secret/group2 WA 0/70"},
	} {
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{c.file: c.src}), Options{TimeLimit: 5 * time.Second})
		var groups []string
		for _, g := range res.Groups {
			if g.Name != "sample" && g.Name != "secret" {
				groups = append(groups, g.Name+" "+string(g.Verdict)+" "+fmtScore(g.Score)+"/"+fmtScore(g.MaxScore))
			}
		}
		if res.Verdict != c.verdict || res.Score != c.score || res.MaxScore != 100 || strings.Join(groups, ", ") != c.groups {
			t.Errorf("%s: %s %g/%g, groups %q; want %s %g/100, %q (%s)", c.file, res.Verdict, res.Score, res.MaxScore, groups, c.verdict, c.score, c.groups, res.Error)
		}
	}
}

func fmtScore(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// A grader that misbehaves is the package's fault: the result is SE,
// its error naming the grader and the group; and grading: custom
// without a grader, or an unknown grading, is a load error.
func TestCustomGraderFailures(t *testing.T) {
	j := testJudge(t)
	for _, c := range []struct{ name, grader, want string }{
		{"crash", "raise SystemExit(3)\n", "exit code 3 (want 0)"},
		{"bad output", "print('great')\n", `printed "great", not VERDICT SCORE`},
		{"judge error", "print('JE 0')\n", "the grader judged its group JE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyPackage(t, "../problems/custom-grader")
			os.WriteFile(filepath.Join(dir, "graders/grader.py"), []byte(c.grader), 0o644)
			p, err := problem.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"a.py": plainPython}), Options{TimeLimit: 5 * time.Second})
			if res.Verdict != SE || !strings.Contains(res.Error, "custom grader, group data/secret/group1: ") || !strings.Contains(res.Error, c.want) {
				t.Errorf("%s, error %q; want SE saying %q", res.Verdict, res.Error, c.want)
			}
		})
	}
	dir := copyPackage(t, "../problems/custom-grader")
	os.RemoveAll(filepath.Join(dir, "graders"))
	if _, err := problem.Load(dir); err == nil || !strings.Contains(err.Error(), "data/secret/group1: grading: custom, but the package has no grader") {
		t.Errorf("no graders/: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "data/secret/group1/testdata.yaml"), []byte("grading: magic\n"), 0o644)
	if _, err := problem.Load(dir); err == nil || !strings.Contains(err.Error(), `grading: "magic" is not default or custom`) {
		t.Errorf("grading: magic: %v", err)
	}
}

func copyPackage(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	if out, err := exec.Command("cp", "-r", src, dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return dir
}
