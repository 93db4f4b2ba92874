package verdict

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/verdict/problem"
)

// echoTask is a CMS task of three tests whose answer is the input (1, 2,
// 3), compared by white-diff, with extra task.yaml lines.
func echoTask(extra string) map[string]string {
	files := map[string]string{"task.yaml": "name: e\ninfile: \"\"\noutfile: \"\"\nn_input: 3\n" + extra}
	for i := 0; i < 3; i++ {
		files[fmt.Sprintf("input/input%d.txt", i)] = fmt.Sprint(i+1, "\n")
		files[fmt.Sprintf("output/output%d.txt", i)] = fmt.Sprint(i+1, "\n")
	}
	return files
}

// samples lists each test result as name=public or name=hidden.
func samples(trs []TestResult) string {
	var out []string
	for _, tr := range trs {
		out = append(out, tr.Name+"="+map[bool]string{true: "public", false: "hidden"}[tr.Sample])
	}
	return strings.Join(out, " ")
}

// public_testcases makes those tests' details public (Sample, which the
// bridge's contestant view reads), in their events and the result, and
// no other's; they stay in their subtasks and score as any test.
func TestCMSPublicTestcases(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, echoTask("score_type: GroupMin\nscore_type_parameters: [[50, 2], [50, 1]]\npublic_testcases: \"0,2\"\nfeedback_level: full\n"))
	const want = "secret/subtask1/000=public secret/subtask1/001=hidden secret/subtask2/002=public"
	for _, c := range []struct {
		src   string
		score float64
	}{{"print(input())\n", 100}, {"n = int(input())\nprint(n if n < 3 else 0)\n", 50}, {"print(0)\n", 0}} {
		var seen []TestResult
		obs := observerFunc(func(_, _ int, r TestResult) { seen = append(seen, r) })
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"e.py": c.src}), Options{TimeLimit: 5 * time.Second, Observer: obs})
		if res.Score != c.score || res.MaxScore != 100 || samples(res.Tests) != want || samples(seen) != want {
			t.Errorf("%q: %s %g/%g %q; result %s, events %s; want %g, %s", c.src, res.Verdict, res.Score, res.MaxScore, res.Error, samples(res.Tests), samples(seen), c.score, want)
		}
	}
}

// TPS tests are all public, and feedback_level restricted (the default)
// shows a subtask that lost points up to its first lowest-scored test:
// here the second of three. The tests' events, sent before that is
// known, hide them all; the result shows the chosen ones.
func TestTPSRestrictedFeedback(t *testing.T) {
	j := testJudge(t)
	files := map[string]string{
		"problem.json":    `{"code": "e", "name": "E", "time_limit": 1, "memory_limit": 256, "task_type": "Batch"}`,
		"subtasks/1.json": `{"score": 100, "testcases": ["a", "b", "c"]}`,
	}
	for i, c := range []string{"a", "b", "c"} {
		files["tests/"+c+".in"], files["tests/"+c+".out"] = fmt.Sprint(i+1, "\n"), fmt.Sprint(i+1, "\n")
	}
	p := loadPackage(t, files)
	var seen []TestResult
	obs := observerFunc(func(_, _ int, r TestResult) { seen = append(seen, r) })
	res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"e.py": "n = int(input())\nprint(n if n < 2 else 0)\n"}), Options{TimeLimit: 5 * time.Second, Observer: obs})
	if got := samples(res.Tests); res.Score != 0 || got != "secret/subtask1/a=public secret/subtask1/b=public secret/subtask1/c=hidden" {
		t.Errorf("result: %g, %s", res.Score, got)
	}
	if got := samples(seen); got != "secret/subtask1/a=hidden secret/subtask1/b=hidden secret/subtask1/c=hidden" {
		t.Errorf("events: %s", got)
	}
}

// CMS's restricted feedback levels, on a subtask of four public tests
// and a private one (b): a subtask with all its points shows every
// public test; one that lost points shows, under restricted, the public
// tests up to the first with the lowest outcome, and under oi_restricted
// that one only; under full, every public test. The private test is
// never shown; the lowest is among the public tests only, the first of
// them when the private test alone lost the points, as in CMS.
func TestCMSRestrictedLevels(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		level   string
		results map[string]TestResult
		want    string
	}{
		{"restricted", nil, "a b d e"},
		{"oi_restricted", nil, "a b d e"},
		{"restricted", map[string]TestResult{"secret/subtask1/d": {Verdict: AC, Score: 0.5}, "secret/subtask1/e": {Verdict: WA}}, "a b d e"},
		{"oi_restricted", map[string]TestResult{"secret/subtask1/d": {Verdict: AC, Score: 0.5}, "secret/subtask1/e": {Verdict: WA}}, "e"},
		{"restricted", map[string]TestResult{"secret/subtask1/b": {Verdict: AC, Score: 0.5}, "secret/subtask1/d": {Verdict: AC, Score: 0.5}}, "a b"},
		{"oi_restricted", map[string]TestResult{"secret/subtask1/b": {Verdict: AC, Score: 0.5}, "secret/subtask1/d": {Verdict: AC, Score: 0.5}}, "b"},
		{"oi_restricted", map[string]TestResult{"secret/subtask1/b": {Verdict: TLE}, "secret/subtask1/d": {Verdict: WA}}, "b"},
		{"restricted", map[string]TestResult{"secret/subtask1/c": {Verdict: WA}}, "a"},
		{"full", map[string]TestResult{"secret/subtask1/b": {Verdict: WA}}, "a b d e"},
	} {
		p := tpsPackage(t, dir, c.level)
		var seen []TestResult
		obs := observerFunc(func(_, _ int, r TestResult) { seen = append(seen, r) })
		res := judgeWith(p, Options{Observer: obs}, c.results)
		var shown []string
		for _, tr := range res.Tests {
			if tr.Sample {
				shown = append(shown, strings.TrimPrefix(tr.Name, "secret/subtask1/"))
			}
		}
		if strings.Join(shown, " ") != c.want {
			t.Errorf("%s %v: shown %v, want %s", c.level, c.results, shown, c.want)
		}
		for _, tr := range seen {
			if tr.Sample != (c.level == "full" && !strings.HasSuffix(tr.Name, "/c")) {
				t.Errorf("%s: event of %s says sample %v", c.level, tr.Name, tr.Sample)
			}
		}
	}
}

// tpsPackage is a TPS task of five tests a..e in one subtask, all public
// but c (made private after loading, which TPS cannot say), at level.
func tpsPackage(t *testing.T, dir, level string) *problem.Problem {
	files := map[string]string{
		"problem.json":    fmt.Sprintf(`{"code": "e", "task_type": "Batch", "feedback_level": %q}`, level),
		"subtasks/1.json": `{"score": 100, "testcases": ["a", "b", "c", "d", "e"]}`,
	}
	for _, c := range "abcde" {
		files[fmt.Sprintf("tests/%c.in", c)], files[fmt.Sprintf("tests/%c.out", c)] = "1\n", "1\n"
	}
	p := loadPackage(t, files)
	for _, tc := range p.Tests {
		tc.Public = !strings.HasSuffix(tc.Name, "/c")
	}
	return p
}
