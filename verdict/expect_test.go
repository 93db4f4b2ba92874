package verdict

import (
	"testing"

	"github.com/docketjudge/docket/verdict/problem"
)

// The submissions/ directories as the Kattis format defines them, under
// docket's one rule for partial scores.
func TestMeetsExpectation(t *testing.T) {
	tests := func(vs ...Verdict) []TestResult {
		var out []TestResult
		for _, v := range vs {
			out = append(out, TestResult{Verdict: v})
		}
		return out
	}
	partialWA := &Result{Verdict: AC, Score: 30, MaxScore: 100, Tests: tests(AC, WA)}
	full := &Result{Verdict: AC, Score: 100, MaxScore: 100, Tests: tests(AC)}
	zeroWA := &Result{Verdict: WA, Score: 0, MaxScore: 100, Tests: tests(WA)}
	passFailWA := &Result{Verdict: WA, Score: 0, MaxScore: 1, Tests: tests(AC, WA)}
	for _, tc := range []struct {
		name string
		res  *Result
		kind problem.Kind
		dir  string
		want bool
	}{
		{"partial is partially_accepted", partialWA, problem.Scoring, "partially_accepted", true},
		{"partial is not accepted", partialWA, problem.Scoring, "accepted", false},
		{"partial with a WA test is wrong_answer", partialWA, problem.Scoring, "wrong_answer", true},
		{"partial without a TLE test is not time_limit_exceeded", partialWA, problem.Scoring, "time_limit_exceeded", false},
		{"full score is accepted", full, problem.Scoring, "accepted", true},
		{"full score is not partially_accepted", full, problem.Scoring, "partially_accepted", false},
		{"no points is wrong_answer", zeroWA, problem.Scoring, "wrong_answer", true},
		{"no points is not partially_accepted", zeroWA, problem.Scoring, "partially_accepted", false},
		{"pass-fail WA is wrong_answer", passFailWA, problem.PassFail, "wrong_answer", true},
		{"pass-fail WA is not accepted", passFailWA, problem.PassFail, "accepted", false},
	} {
		if got := MeetsExpectation(tc.res, tc.kind, tc.dir); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
