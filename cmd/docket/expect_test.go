package main

import (
	"testing"

	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
)

// The submissions/ directories as the Kattis format defines them, under
// docket's one rule for partial scores.
func TestMeetsExpectation(t *testing.T) {
	tests := func(vs ...verdict.Verdict) []verdict.TestResult {
		var out []verdict.TestResult
		for _, v := range vs {
			out = append(out, verdict.TestResult{Verdict: v})
		}
		return out
	}
	partialWA := &verdict.Result{Verdict: verdict.AC, Score: 30, MaxScore: 100, Tests: tests(verdict.AC, verdict.WA)}
	full := &verdict.Result{Verdict: verdict.AC, Score: 100, MaxScore: 100, Tests: tests(verdict.AC)}
	zeroWA := &verdict.Result{Verdict: verdict.WA, Score: 0, MaxScore: 100, Tests: tests(verdict.WA)}
	passFailWA := &verdict.Result{Verdict: verdict.WA, Score: 0, MaxScore: 1, Tests: tests(verdict.AC, verdict.WA)}
	for _, tc := range []struct {
		name string
		res  *verdict.Result
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
		if got := meetsExpectation(tc.res, tc.kind, tc.dir, expected[tc.dir]); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
