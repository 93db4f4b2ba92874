package verdict

import (
	"slices"

	"github.com/docketjudge/docket/verdict/problem"
)

// expectedVerdicts maps the Kattis submissions/ directory names to
// verdicts.
var expectedVerdicts = map[string]Verdict{
	"accepted":              AC,
	"wrong_answer":          WA,
	"time_limit_exceeded":   TLE,
	"run_time_error":        RE,
	"memory_limit_exceeded": MLE,
	"output_limit_exceeded": OLE,
	"compile_error":         CE,
	"presentation_error":    PE,
	"partially_accepted":    AC, // with a score strictly between 0 and the maximum
	// A TPS task's solutions/<category>/.
	"model_solution":     AC,
	"correct":            AC,
	"partially_correct":  AC, // as partially_accepted
	"incorrect":          WA,
	"time_limit":         TLE,
	"runtime_error":      RE,
	"memory_limit":       MLE,
	"protocol_violation": WA, // a grader that finds a violation scores 0
	// A Polygon solution's tag (MeetsExpectation has their rules).
	"main":                            AC,
	"wrong-answer":                    WA,
	"presentation-error":              PE,
	"time-limit-exceeded":             TLE,
	"memory-limit-exceeded":           MLE,
	"time-limit-exceeded-or-accepted": TLE,
	"time-limit-exceeded-or-memory-limit-exceeded": TLE,
	"rejected": WA,
	"failed":   RE,
}

// polygonRule is a Polygon tag's rule: every test is accepted or gets
// one of the verdicts allowed, and with need at least one test does.
type polygonRule struct {
	allowed []Verdict
	need    bool
}

// polygonRules are Polygon's tags with a rule on the tests' verdicts
// (main, accepted and rejected have simpler ones).
var polygonRules = map[string]polygonRule{
	"wrong-answer":                    {[]Verdict{WA}, true},
	"presentation-error":              {[]Verdict{PE}, true},
	"time-limit-exceeded":             {[]Verdict{TLE}, true},
	"memory-limit-exceeded":           {[]Verdict{MLE}, true},
	"failed":                          {[]Verdict{RE}, true},
	"time-limit-exceeded-or-accepted": {[]Verdict{TLE}, false},
	"time-limit-exceeded-or-memory-limit-exceeded": {[]Verdict{TLE, MLE}, true},
}

// meetsPolygonRule checks the tests' verdicts against rule: skipped
// tests count for nothing; a result with no tests (CE, SE) never meets.
func meetsPolygonRule(res *Result, rule polygonRule) bool {
	if res.Verdict == CE || res.Verdict == SE || len(res.Tests) == 0 {
		return false
	}
	seen := false
	for _, t := range res.Tests {
		switch {
		case t.Verdict == AC || t.Verdict == SK:
		case slices.Contains(rule.allowed, t.Verdict):
			seen = true
		default:
			return false
		}
	}
	return seen || !rule.need
}

// ExpectedVerdict is the verdict the submissions/ directory dir
// promises; false for a name that is none of the format's.
func ExpectedVerdict(dir string) (Verdict, bool) {
	v, ok := expectedVerdicts[dir]
	return v, ok
}

// MeetsExpectation reports whether res is what the submissions/
// directory dir promises, as the Kattis format defines the directories
// (docs/problems.md, "Verdict and score"):
//
//   - accepted: AC, and in a scoring problem the maximum score;
//   - partially_accepted: AC with a score strictly between 0 and the
//     maximum ("overall verdict Accepted", the score not the maximum);
//   - a Polygon tag, by Polygon's rules: main and accepted as accepted;
//     rejected anything but that; wrong-answer, presentation-error,
//     time-limit-exceeded, memory-limit-exceeded and failed (a run-time
//     error) a test of that verdict and no test of another failure;
//     time-limit-exceeded-or-accepted no failure but TLE;
//     time-limit-exceeded-or-memory-limit-exceeded a TLE or MLE and no
//     other failure;
//   - a failure directory: that overall verdict; in a scoring problem
//     also a partially accepted result with a test of that verdict (the
//     format asks for "wrong answer for some test file": points earned
//     elsewhere make such a submission AC overall).
//
// A directory that is no expected verdict is never met.
func MeetsExpectation(res *Result, kind problem.Kind, dir string) bool {
	want, known := ExpectedVerdict(dir)
	if !known {
		return false
	}
	partial := res.Verdict == AC && res.Score > 0 && res.Score < res.MaxScore
	switch dir {
	case "partially_accepted", "partially_correct":
		return partial
	case "accepted", "model_solution", "correct", "main":
		return res.Verdict == AC && (kind != problem.Scoring || res.Score == res.MaxScore)
	case "rejected":
		return res.Verdict != CE && res.Verdict != SE && !(res.Verdict == AC && (kind != problem.Scoring || res.Score == res.MaxScore))
	}
	if rule, ok := polygonRules[dir]; ok {
		return meetsPolygonRule(res, rule)
	}
	if res.Verdict == want {
		return true
	}
	if kind != problem.Scoring || !partial {
		return false
	}
	for _, t := range res.Tests {
		if t.Verdict == want {
			return true
		}
	}
	return false
}
