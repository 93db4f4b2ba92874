package verdict

import "github.com/docketjudge/docket/verdict/problem"

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
	case "accepted", "model_solution", "correct":
		return res.Verdict == AC && (kind != problem.Scoring || res.Score == res.MaxScore)
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
