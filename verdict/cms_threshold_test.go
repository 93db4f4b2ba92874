package verdict

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// ratioComparator is a GroupThreshold comparator: its outcome is the
// ratio of the contestant's answer to the jury's, a raw number (1 is
// exact, below it too small, above it too large), with a text for an
// answer of 0 only.
const ratioComparator = `import sys
inp, correct, team = (open(f).read().split() for f in sys.argv[1:4])
ratio = float(team[0]) / float(correct[0])
print(ratio)
if ratio == 0:
    print("translate:wrong", file=sys.stderr)
`

// ratioTask is a CMS task of three tests (answers 10, 20, 30) judged by
// ratioComparator, with task.yaml's score type lines scoring.
func ratioTask(scoring string) map[string]string {
	files := map[string]string{
		"task.yaml":        "name: r\ninfile: \"\"\noutfile: \"\"\nn_input: 3\n" + scoring,
		"check/checker.py": ratioComparator,
	}
	for i, n := range []string{"10", "20", "30"} {
		files[fmt.Sprintf("input/input%d.txt", i)] = n + "\n"
		files[fmt.Sprintf("output/output%d.txt", i)] = n + "\n"
	}
	return files
}

// timesSource prints the input times k: a ratio of k on every test.
func timesSource(k string) string { return "print(int(input()) * " + k + ")\n" }

// GroupThreshold: a subtask scores its points when every test's raw
// outcome is in (0, its threshold], else nothing. Test 001 is in both
// subtasks, judged once, and may pass one's threshold and fail the
// other's; an outcome above 1 is no comparator failure; 0 never passes
// (CMS keeps it for failed runs). Each test is AC or WA by the threshold
// of its subtask, its feedback the comparator's text or CMS's public
// outcome with the raw outcome and the threshold; the submission is AC
// when it scores at all, as for any scoring problem.
func TestCMSGroupThreshold(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, ratioTask("score_type: GroupThreshold\nscore_type_parameters: [[40, \"00[01]\", 2], [60, \"00[12]\", 1]]\n"))
	for _, c := range []struct {
		k, verdict string
		score      float64
		groups     string
		feedback   string // of secret/subtask2/001
	}{
		{"1", "AC", 100, "secret/subtask1 AC 40/40, secret/subtask2 AC 60/60", "AC Correct (outcome 1, threshold 1)"},
		{"1.5", "AC", 40, "secret/subtask1 AC 40/40, secret/subtask2 WA 0/60", "WA Not correct (outcome 1.5, threshold 1)"},
		{"0.5", "AC", 100, "secret/subtask1 AC 40/40, secret/subtask2 AC 60/60", "AC Correct (outcome 0.5, threshold 1)"},
		{"3", "WA", 0, "secret/subtask1 WA 0/40, secret/subtask2 WA 0/60", "WA Not correct (outcome 3, threshold 1)"},
		{"0", "WA", 0, "secret/subtask1 WA 0/40, secret/subtask2 WA 0/60", "WA Output isn't correct (outcome 0, threshold 1)"},
		{"-1", "WA", 0, "secret/subtask1 WA 0/40, secret/subtask2 WA 0/60", "WA Not correct (outcome -1, threshold 1)"},
	} {
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"r.py": timesSource(c.k)}), Options{TimeLimit: 5 * time.Second})
		var groups []string
		for _, g := range res.Groups {
			if strings.HasPrefix(g.Name, "secret/") {
				groups = append(groups, fmt.Sprintf("%s %s %g/%g", g.Name, g.Verdict, g.Score, g.MaxScore))
			}
		}
		fb := ""
		for _, tr := range res.Tests {
			if tr.Name == "secret/subtask2/001" {
				fb = fmt.Sprintf("%s %s", tr.Verdict, tr.Feedback)
			}
		}
		if string(res.Verdict) != c.verdict || res.Score != c.score || res.MaxScore != 100 || strings.Join(groups, ", ") != c.groups || fb != c.feedback || len(res.Tests) != 4 {
			t.Errorf("x%s: %s %g/%g %q, groups %v, 001 in subtask2 %q; want %s %g, %s, %q", c.k, res.Verdict, res.Score, res.MaxScore, res.Error, groups, fb, c.verdict, c.score, c.groups, c.feedback)
		}
	}
	// The test of subtask1 of the same run passed its threshold of 2.
	res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"r.py": timesSource("1.5")}), Options{TimeLimit: 5 * time.Second})
	if tr := res.Tests[1]; tr.Name != "secret/subtask1/001" || tr.Verdict != AC || tr.Score != 40 || tr.Feedback != "Correct (outcome 1.5, threshold 2)" {
		t.Errorf("001 in subtask1: %+v", tr)
	}
}

// Outside GroupThreshold, an outcome must still be in [0, 1]: the same
// comparator's 1.5 is the package's fault (SE), under GroupMin and Sum.
func TestCMSRawOutcomeOnlyForGroupThreshold(t *testing.T) {
	j := testJudge(t)
	for _, scoring := range []string{"score_type: GroupMin\nscore_type_parameters: [[100, 3]]\n", ""} {
		p := loadPackage(t, ratioTask(scoring))
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"r.py": timesSource("1.5")}), Options{TimeLimit: 5 * time.Second})
		if res.Verdict != SE || !strings.Contains(res.Error, "the outcome 1.5 is outside [0, 1]") {
			t.Errorf("%q: %s %q", scoring, res.Verdict, res.Error)
		}
	}
}
