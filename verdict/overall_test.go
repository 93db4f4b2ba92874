package verdict

import (
	"context"
	"os"
	"testing"

	"github.com/docketjudge/docket/verdict/problem"
)

// One rule for a partially accepted submission, whichever way the points
// came: a group lost by a Kattis scoring package (accept_score, min) and
// a testlib checker's partial points give the same shape, AC with a score
// strictly between 0 and the maximum. A scoring submission with no points
// gets its first rejected test's verdict, and a judge error is never
// hidden behind points.
func TestPartialScoreRule(t *testing.T) {
	groups := tree(problem.Scoring, map[string]problem.GroupConfig{"g1": minGroup(30), "g2": minGroup(70)}, []string{"g1", "g2"}, 3)
	points := tree(problem.Scoring, map[string]problem.GroupConfig{"all": minGroup(100)}, []string{"all"}, 3)
	for _, tc := range []struct {
		name     string
		p        *problem.Problem
		verdicts map[string]TestResult
		want     Verdict
		score    float64
	}{
		{"a lost group", groups, map[string]TestResult{"secret/g2/b": {Verdict: WA}}, AC, 30},
		{"testlib points", points, map[string]TestResult{"secret/all/a": {Verdict: AC, Score: 0.5}, "secret/all/b": {Verdict: AC, Score: 0.5}}, AC, 50},
		{"a lost group, then a TLE", groups, map[string]TestResult{"secret/g2/a": {Verdict: TLE}}, AC, 30},
		{"no points", groups, map[string]TestResult{"secret/g1/c": {Verdict: TLE}, "secret/g2/a": {Verdict: WA}}, TLE, 0},
		{"points and a judge error", groups, map[string]TestResult{"secret/g2/a": {Verdict: SE, Feedback: "checker crashed"}}, SE, 30},
	} {
		r := judgeWith(tc.p, Options{}, tc.verdicts)
		if r.Verdict != tc.want || r.Score != tc.score {
			t.Errorf("%s: %s %g/%g, want %s %g", tc.name, r.Verdict, r.Score, r.MaxScore, tc.want, tc.score)
		}
		if tc.want == SE && (r.ErrorTest != "secret/g2/a" || r.Error == "") {
			t.Errorf("%s: error %q on test %q, want the SE test's", tc.name, r.Error, r.ErrorTest)
		}
	}
	// Pass-fail is unchanged: the first test not accepted decides.
	pf := tree(problem.PassFail, map[string]problem.GroupConfig{"g": {OnReject: "break", AcceptScore: 1}}, []string{"g"}, 3)
	if r := judgeWith(pf, Options{}, map[string]TestResult{"secret/g/b": {Verdict: WA}}); r.Verdict != WA || r.Score != 0 {
		t.Errorf("pass-fail with a WA: %s %g", r.Verdict, r.Score)
	}
}

// The example packages, judged for real: scoring-groups' and
// testlib-points' partially accepted submissions end alike, AC with a
// score strictly between 0 and max_score, and their wrong answers alike,
// WA with 0.
func TestPartialScoreExamples(t *testing.T) {
	j := testJudge(t)
	for _, tc := range []struct{ pkg, sub, lang string }{
		{"scoring-groups", "partially_accepted/sum32.cpp", "cpp"},
		{"testlib-points", "partially_accepted/split.cpp", "cpp"},
		{"scoring-groups", "wrong_answer/skip_last.cpp", "cpp"},
		{"testlib-points", "wrong_answer/drop_lowest.cpp", "cpp"},
	} {
		p, err := problem.Load("../problems/" + tc.pkg)
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile("../problems/" + tc.pkg + "/submissions/" + tc.sub)
		if err != nil {
			t.Fatal(err)
		}
		res := j.Judge(context.Background(), p, Submission{Language: tc.lang, Files: map[string][]byte{"main.cpp": src}}, Options{})
		partial := res.Verdict == AC && res.Score > 0 && res.Score < res.MaxScore
		wrong := res.Verdict == WA && res.Score == 0
		if want := tc.sub[:len("partially")] == "partially"; (want && !partial) || (!want && !wrong) {
			t.Errorf("%s %s: %s %g/%g (%s)", tc.pkg, tc.sub, res.Verdict, res.Score, res.MaxScore, res.Error)
		}
	}
}
