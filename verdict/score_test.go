package verdict

import (
	"context"
	"testing"

	"github.com/docketjudge/docket/verdict/problem"
)

// tree builds data/{sample,secret/<groups>} with n tests per group.
func tree(kind problem.Kind, groups map[string]problem.GroupConfig, order []string, n int) *problem.Problem {
	p := &problem.Problem{Kind: kind}
	base := problem.GroupConfig{OnReject: "break", AcceptScore: 1}
	p.Root = &problem.Group{Name: "", Config: base}
	sample := &problem.Group{Name: "sample", Config: base}
	sample.Tests = []*problem.Test{{Name: "sample/1", Group: sample}}
	secret := &problem.Group{Name: "secret", Config: base}
	for _, g := range order {
		cfg := groups[g]
		grp := &problem.Group{Name: "secret/" + g, Config: cfg}
		for i := 0; i < n; i++ {
			grp.Tests = append(grp.Tests, &problem.Test{Name: grp.Name + "/" + string(rune('a'+i)), Group: grp})
		}
		secret.Groups = append(secret.Groups, grp)
	}
	p.Root.Groups = []*problem.Group{sample, secret}
	for _, g := range append([]*problem.Group{sample}, secret.Groups...) {
		p.Tests = append(p.Tests, g.Tests...)
	}
	return p
}

// judgeWith runs the group logic with fixed per-test verdicts.
func judgeWith(p *problem.Problem, opt Options, verdicts map[string]TestResult) *Result {
	r := &judging{p: p, opt: opt, res: &Result{Tests: []TestResult{}}}
	r.testFn = func(_ context.Context, t *problem.Test) TestResult {
		tr, ok := verdicts[t.Name]
		if !ok {
			tr = TestResult{Verdict: AC, Score: 1}
		}
		tr.Name, tr.Group = t.Name, t.Group.Name
		if tr.Score == 0 && tr.Verdict == AC {
			tr.Score = 1
		}
		return tr
	}
	r.judgeTests(context.Background())
	return r.res
}

func minGroup(score float64) problem.GroupConfig {
	return problem.GroupConfig{OnReject: "break", AcceptScore: score, GraderFlags: []string{"min"}}
}

func TestScoringGroups(t *testing.T) {
	p := tree(problem.Scoring, map[string]problem.GroupConfig{"g1": minGroup(30), "g2": minGroup(70)}, []string{"g1", "g2"}, 3)
	all := judgeWith(p, Options{}, nil)
	if all.Verdict != AC || all.Score != 100 || all.MaxScore != 100 {
		t.Errorf("all accepted: %s %g/%g", all.Verdict, all.Score, all.MaxScore)
	}
	// Partially accepted: AC overall with the points earned; the failed
	// group and test keep their WA (overallVerdict).
	partial := judgeWith(p, Options{}, map[string]TestResult{"secret/g2/b": {Verdict: WA}})
	if partial.Verdict != AC || partial.Score != 30 || partial.MaxScore != 100 {
		t.Errorf("g2 failed: %s %g/%g, want AC 30/100", partial.Verdict, partial.Score, partial.MaxScore)
	}
	// on_reject: break skips the rest of the failed group only.
	var skipped, judgedAfter int
	for _, tr := range partial.Tests {
		if tr.Name == "secret/g2/c" && tr.Verdict == SK {
			skipped++
		}
	}
	if skipped != 1 {
		t.Errorf("the test after a rejection in a break group was not skipped: %+v", partial.Tests)
	}
	_ = judgedAfter
	groups := map[string]GroupResult{}
	for _, g := range partial.Groups {
		groups[g.Name] = g
	}
	if groups["secret/g1"].Score != 30 || groups["secret/g2"].Score != 0 || groups["secret/g2"].MaxScore != 70 || groups["secret/g2"].Verdict != WA {
		t.Errorf("group scores: %+v", partial.Groups)
	}
	// A failed sample costs no points in a scoring problem.
	s := judgeWith(p, Options{}, map[string]TestResult{"sample/1": {Verdict: WA}})
	if s.Score != 100 {
		t.Errorf("a failed sample changed the score: %g", s.Score)
	}
}

func TestSumGroupWithPartialChecker(t *testing.T) {
	cfg := problem.GroupConfig{OnReject: "continue", AcceptScore: 10, GraderFlags: []string{"sum"}}
	p := tree(problem.Scoring, map[string]problem.GroupConfig{"g": cfg}, []string{"g"}, 4)
	r := judgeWith(p, Options{}, map[string]TestResult{
		"secret/g/a": {Verdict: AC, Score: 0.5}, // a checker's partial points
		"secret/g/b": {Verdict: WA},
	})
	// 5 + 0 + 10 + 10, and on_reject: continue judged c and d
	if r.Score != 25 || r.MaxScore != 40 {
		t.Errorf("sum with partial: %g/%g", r.Score, r.MaxScore)
	}
	for _, tr := range r.Tests {
		if tr.Verdict == SK {
			t.Errorf("on_reject: continue skipped %s", tr.Name)
		}
	}
}

func TestRangeClamps(t *testing.T) {
	lo, hi := 0.0, 15.0
	cfg := problem.GroupConfig{OnReject: "continue", AcceptScore: 10, Range: &[2]float64{lo, hi}}
	p := tree(problem.Scoring, map[string]problem.GroupConfig{"g": cfg}, []string{"g"}, 3)
	r := judgeWith(p, Options{}, nil)
	if r.Score != 15 || r.MaxScore != 15 {
		t.Errorf("range 0 15 over 3x10: %g/%g", r.Score, r.MaxScore)
	}
}

func TestPassFailStopsAtFirstFailure(t *testing.T) {
	p := tree(problem.PassFail, map[string]problem.GroupConfig{"g": {OnReject: "break", AcceptScore: 1}}, []string{"g"}, 4)
	r := judgeWith(p, Options{}, map[string]TestResult{"secret/g/b": {Verdict: TLE}, "secret/g/c": {Verdict: WA}})
	if r.Verdict != TLE || r.Score != 0 || r.MaxScore != 1 {
		t.Errorf("verdict %s score %g/%g", r.Verdict, r.Score, r.MaxScore)
	}
	for _, tr := range r.Tests {
		if (tr.Name == "secret/g/c" || tr.Name == "secret/g/d") && tr.Verdict != SK {
			t.Errorf("%s after the first failure: %s, want SK", tr.Name, tr.Verdict)
		}
	}
	all := judgeWith(p, Options{RunAll: true}, map[string]TestResult{"secret/g/b": {Verdict: TLE}, "secret/g/c": {Verdict: WA}})
	if all.Verdict != TLE {
		t.Errorf("run-all verdict %s, want the first failure TLE", all.Verdict)
	}
	for _, tr := range all.Tests {
		if tr.Verdict == SK && tr.Name != "secret/g/d" {
			continue
		}
	}
	if all.Tests[3].Verdict != WA {
		t.Errorf("run-all did not run secret/g/c: %+v", all.Tests[3])
	}
}
