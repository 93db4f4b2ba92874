package verdict

import (
	"errors"
	"fmt"
	"time"

	"github.com/docketjudge/docket/verdict/problem"
)

// SlowRun is an accepted submission's slowest test, from which a package
// that states no time limit gets one (docket problem check).
type SlowRun struct {
	Submission string // its path in the package
	Language   string
	Test       string
	Time       time.Duration // CPU time, as measured
	// Multiplier is the language's time multiplier: the run had the base
	// limit times it, so its time counts divided by it.
	Multiplier float64
}

// Base is the run's time before its language's multiplier: what the base
// time limit must cover.
func (s SlowRun) Base() time.Duration {
	if s.Multiplier <= 0 {
		return s.Time
	}
	return time.Duration(float64(s.Time) / s.Multiplier)
}

// SlowestRun is the slowest test of res, a judging of the submission sub
// (its path in the package); false when no test ran.
func SlowestRun(sub string, res *Result) (SlowRun, bool) {
	run := SlowRun{Submission: sub, Language: res.Language, Multiplier: res.Limits.TimeMultiplier}
	found := false
	for _, t := range res.Tests {
		if t.Verdict == SK {
			continue
		}
		if d := time.Duration(t.TimeMs) * time.Millisecond; !found || d > run.Time {
			run.Test, run.Time, found = t.Name, d, true
		}
	}
	return run, found
}

// DerivedLimit is a time limit computed from accepted submissions, as
// problemtools' verifyproblem computes it.
type DerivedLimit struct {
	Limit       time.Duration // the base time limit
	TLELimit    time.Duration // where time_limit_exceeded submissions must still time out
	Slowest     SlowRun
	Multipliers problem.TimeMultipliers
}

// ErrNoAcceptedRun means there is no accepted run to compute a limit from.
var ErrNoAcceptedRun = errors.New("no accepted submission ran a test to compute the time limit from")

// DeriveTimeLimit computes the limit from the slowest of runs (by their
// time before the language's multiplier) with m.
func DeriveTimeLimit(m problem.TimeMultipliers, runs []SlowRun) (DerivedLimit, error) {
	if len(runs) == 0 {
		return DerivedLimit{}, ErrNoAcceptedRun
	}
	slowest := runs[0]
	for _, r := range runs[1:] {
		if r.Base() > slowest.Base() {
			slowest = r
		}
	}
	d := DerivedLimit{Slowest: slowest, Multipliers: m, Limit: m.TimeLimit(slowest.Base())}
	if d.Limit > problem.MaxTime {
		return d, fmt.Errorf("the computed time limit %v is over %v: %s", d.Limit, problem.MaxTime, d.how())
	}
	d.TLELimit = m.TLELimit(d.Limit)
	return d, nil
}

// String says how the limit was derived, on one line.
func (d DerivedLimit) String() string {
	return fmt.Sprintf("time limit %ss: %s; time_limit_exceeded submissions must time out at %ss (x %s)",
		problem.FormatSeconds(d.Limit), d.how(), problem.FormatSeconds(d.TLELimit), d.Multipliers.TLETerm())
}

func (d DerivedLimit) how() string {
	s := d.Slowest
	m := d.Multipliers
	took := fmt.Sprintf("slowest accepted %.3fs (%s, test %s)", s.Time.Seconds(), s.Submission, s.Test)
	if s.Base() != s.Time {
		took += fmt.Sprintf(", %.3fs before %s's time multiplier %g", s.Base().Seconds(), s.Language, s.Multiplier)
	}
	return fmt.Sprintf("%s x %s, rounded up to %gs steps", took, m.ACTerm(), m.Resolution)
}
