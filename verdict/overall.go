package verdict

import "github.com/docketjudge/docket/verdict/problem"

// overallVerdict is a submission's verdict from its tests and its score,
// one rule for every way a scoring problem gives points (Kattis scoring
// groups, score.txt, testlib points; docs/problems.md, "Verdict and
// score"):
//
//   - pass-fail: the first test, in judging order, that was not accepted,
//     else AC;
//   - scoring: SE when a test is SE (a judge error is never hidden behind
//     points); else AC when the submission scored above zero (partially
//     accepted when below max_score, the Kattis format's
//     partially_accepted: "overall verdict Accepted"); else the first
//     rejected test's verdict, else AC.
//
// It returns the test that decided a verdict other than AC, or nil.
func overallVerdict(kind problem.Kind, tests []TestResult, score float64) (Verdict, *TestResult) {
	first := firstRejected(tests)
	if kind != problem.Scoring {
		if first == nil {
			return AC, nil
		}
		return first.Verdict, first
	}
	for i := range tests {
		if tests[i].Verdict == SE {
			return SE, &tests[i]
		}
	}
	if score > 0 || first == nil {
		return AC, nil
	}
	return first.Verdict, first
}

// firstRejected is the first test, in judging order, that was run and not
// accepted.
func firstRejected(tests []TestResult) *TestResult {
	for i := range tests {
		if v := tests[i].Verdict; v != AC && v != SK {
			return &tests[i]
		}
	}
	return nil
}

// MaxScore is a problem's max_score, the same whatever the verdict (docs/
// protocol.md, "Result"): 1 for a pass-fail problem; for a scoring one,
// what a submission accepted on every test would score, the samples not
// counted. It does not depend on how the tests went, so a result that
// ends before any test runs (CE, SE) still says what was at stake.
func MaxScore(p *problem.Problem) float64 {
	if p.Kind != problem.Scoring {
		return 1
	}
	return round(groupMax(p.Root))
}

// groupMax is group's maximum, by the rules run.group applies to the
// maxima it gathers while judging.
func groupMax(g *problem.Group) float64 {
	var maxes []float64
	for _, t := range g.Tests {
		maxes = append(maxes, t.Worth(g))
	}
	for _, c := range g.Groups {
		m := groupMax(c)
		if c.Name == "sample" {
			m = 0 // samples are shown, not scored
		}
		maxes = append(maxes, m)
	}
	_, max := bounded(g, 0, aggregate(g, maxes))
	return max
}
