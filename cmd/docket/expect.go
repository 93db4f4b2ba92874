package main

import (
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
)

// meetsExpectation reports whether res is what the submissions/
// directory dir (its verdict want, from expected) promises, as the Kattis
// format defines the directories (docs/problems.md, "Verdict and score"):
//
//   - accepted: AC, and in a scoring problem the maximum score;
//   - partially_accepted: AC with a score strictly between 0 and the
//     maximum ("overall verdict Accepted", the score not the maximum);
//   - a failure directory: that overall verdict; in a scoring problem
//     also a partially accepted result with a test of that verdict (the
//     format asks for "wrong answer for some test file": points earned
//     elsewhere make such a submission AC overall).
func meetsExpectation(res *verdict.Result, kind problem.Kind, dir string, want verdict.Verdict) bool {
	partial := res.Verdict == verdict.AC && res.Score > 0 && res.Score < res.MaxScore
	switch dir {
	case "partially_accepted":
		return partial
	case "accepted":
		return res.Verdict == verdict.AC && (kind != problem.Scoring || res.Score == res.MaxScore)
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
