package verdict

import (
	"context"
	"testing"

	"github.com/docketjudge/docket/verdict/problem"
)

// groupRecorder is an Observer that also hears of groups.
type groupRecorder struct{ groups []GroupResult }

func (g *groupRecorder) Compiled(CompileResult)    {}
func (g *groupRecorder) Test(int, int, TestResult) {}
func (g *groupRecorder) Group(gr GroupResult)      { g.groups = append(g.groups, gr) }

// Every finished group reaches a GroupObserver: the same entries, in the
// same order, as the result's groups.
func TestGroupObserverHearsEveryGroup(t *testing.T) {
	p := tree(problem.Scoring, map[string]problem.GroupConfig{"g1": minGroup(30), "g2": minGroup(70)}, []string{"g1", "g2"}, 3)
	rec := &groupRecorder{}
	res := judgeWith(p, Options{Observer: rec}, map[string]TestResult{"secret/g2/b": {Verdict: WA}})
	if len(rec.groups) == 0 || len(rec.groups) != len(res.Groups) {
		t.Fatalf("observer heard %d groups, the result has %d: %+v", len(rec.groups), len(res.Groups), rec.groups)
	}
	for i := range res.Groups {
		if rec.groups[i] != res.Groups[i] {
			t.Errorf("group %d: heard %+v, result %+v", i, rec.groups[i], res.Groups[i])
		}
	}
	byName := map[string]GroupResult{}
	for _, g := range rec.groups {
		byName[g.Name] = g
	}
	if g := byName["secret/g2"]; g.Verdict != WA || g.Score != 0 || g.MaxScore != 70 {
		t.Errorf("secret/g2 heard as %+v, want WA 0/70", g)
	}
	if g := byName["secret/g1"]; g.Verdict != AC || g.Score != 30 || g.MaxScore != 30 {
		t.Errorf("secret/g1 heard as %+v, want AC 30/30", g)
	}
}

// MaxScore, computed from the package alone, is the max_score that
// judging computes, whatever the tests' verdicts, for every way of
// aggregating.
func TestMaxScoreWithoutJudging(t *testing.T) {
	lo, hi, seventy := 0.0, 15.0, 70.0
	for name, p := range map[string]*problem.Problem{
		"min groups":  tree(problem.Scoring, map[string]problem.GroupConfig{"g1": minGroup(30), "g2": minGroup(70)}, []string{"g1", "g2"}, 3),
		"sum":         tree(problem.Scoring, map[string]problem.GroupConfig{"g": {OnReject: "continue", AcceptScore: 10}}, []string{"g"}, 4),
		"range":       tree(problem.Scoring, map[string]problem.GroupConfig{"g": {OnReject: "continue", AcceptScore: 10, Range: &[2]float64{lo, hi}}}, []string{"g"}, 3),
		"max_score":   tree(problem.Scoring, map[string]problem.GroupConfig{"g": {OnReject: "break", AcceptScore: 3, MaxScore: &seventy}}, []string{"g"}, 3),
		"pass-fail":   tree(problem.PassFail, map[string]problem.GroupConfig{"g": {OnReject: "break", AcceptScore: 1}}, []string{"g"}, 4),
		"third-score": tree(problem.Scoring, map[string]problem.GroupConfig{"g": {OnReject: "continue", AcceptScore: 1.0 / 3}}, []string{"g"}, 2),
	} {
		want := MaxScore(p)
		if want <= 0 {
			t.Errorf("%s: MaxScore %g", name, want)
		}
		for _, verdicts := range []map[string]TestResult{nil, {"secret/g/a": {Verdict: WA}, "secret/g1/a": {Verdict: TLE}}} {
			if got := judgeWith(p, Options{}, verdicts).MaxScore; got != want {
				t.Errorf("%s: judging says max_score %g, MaxScore %g", name, got, want)
			}
		}
	}
}

// A result that ends before any test runs still carries the problem's
// max_score, and the limits once the language is known.
func TestEarlyResultsCarryMaxScoreAndLimits(t *testing.T) {
	j := testJudge(t)
	for _, tc := range []struct {
		pkg      string
		max      float64
		lang     string
		files    map[string][]byte
		verdict  Verdict
		limits   bool
		language string
	}{
		{"aplusb", 1, "cpp17", map[string][]byte{"main.cpp": []byte("int main( {")}, CE, true, "cpp"},
		{"aplusb", 1, "cpp", map[string][]byte{"-o": []byte("x")}, CE, true, "cpp"},
		{"scoring-groups", 100, "'; DROP TABLE", map[string][]byte{"a.cpp": []byte("x")}, SE, false, ""},
		{"scoring-groups", 100, "c++", map[string][]byte{"a.cpp": []byte("int main( {")}, CE, true, "cpp"},
	} {
		p, err := problem.Load("../problems/" + tc.pkg)
		if err != nil {
			t.Fatal(err)
		}
		res := j.Judge(context.Background(), p, Submission{ID: "s", Language: tc.lang, Files: tc.files}, Options{})
		if res.Verdict != tc.verdict || res.MaxScore != tc.max || res.Score != 0 || res.Problem != tc.pkg || res.Language != tc.language {
			t.Errorf("%s %q: %s %g/%g, problem %q, language %q; want %s 0/%g on %s in %q (%s)",
				tc.pkg, tc.lang, res.Verdict, res.Score, res.MaxScore, res.Problem, res.Language, tc.verdict, tc.max, tc.pkg, tc.language, res.Error)
		}
		if known := res.Limits.TimeMs > 0 && res.Limits.MemoryMB > 0 && res.Limits.WallMs > 0; known != tc.limits {
			t.Errorf("%s %q: limits %+v, want known=%v", tc.pkg, tc.lang, res.Limits, tc.limits)
		}
	}
}
