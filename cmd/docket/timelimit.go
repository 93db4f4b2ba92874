package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
)

// measureLimit is the base time limit accepted submissions are measured
// with when a package states none: problemtools' bound for a limit not
// yet known (5 minutes).
const measureLimit = 300 * time.Second

// deriveTimeLimit gives a Kattis package that states no time limit the
// one problemtools' verifyproblem computes: its accepted submissions are
// judged with measureLimit, and the slowest test of any, times the
// package's multiplier and rounded up to its resolution, becomes p's
// limit. It returns the derivation (nil when the package states its
// limit, or its format computes none) and false when the limit could not
// be computed, having said why.
func deriveTimeLimit(j *verdict.Judge, p *problem.Problem, subs []problem.ExampleSubmission, verbose bool) (*verdict.DerivedLimit, bool) {
	m := p.Limits.TimeMultipliers
	if p.Limits.Time != 0 || m.ACToTimeLimit == 0 {
		return nil, true
	}
	var accepted []problem.ExampleSubmission
	for _, s := range subs {
		if s.Expect == "accepted" {
			accepted = append(accepted, s)
		}
	}
	if len(accepted) == 0 {
		fmt.Fprintln(stdout, "  FAIL the package states no time limit, and has no submissions/accepted/ program to compute it from (docs/problems.md, \"Time limit from accepted submissions\")")
		return nil, false
	}
	step("the package states no time limit: measuring %d accepted submissions with a %ss limit to compute it (%s)",
		len(accepted), problem.FormatSeconds(measureLimit), m)
	p.Limits.Time, p.Limits.TimeSource = measureLimit, "docket problem check, measuring"
	runs, ok := measureAccepted(j, p, accepted, verbose)
	if !ok {
		fmt.Fprintf(stdout, "  FAIL the time limit is not computed: an accepted submission was not accepted with a limit of %ss\n", problem.FormatSeconds(measureLimit))
		return nil, false
	}
	d, err := verdict.DeriveTimeLimit(m, runs)
	if err != nil {
		fmt.Fprintln(stdout, "  FAIL", err)
		return nil, false
	}
	fmt.Fprintln(stdout, d)
	p.Limits.Time, p.Limits.TimeSource = d.Limit, "computed from submissions/accepted/"
	return &d, true
}

// measureAccepted judges the accepted submissions and returns the slowest
// test of each; false when one was not accepted.
func measureAccepted(j *verdict.Judge, p *problem.Problem, accepted []problem.ExampleSubmission, verbose bool) ([]verdict.SlowRun, bool) {
	var runs []verdict.SlowRun
	ok := true
	for _, s := range accepted {
		res, good := checkSubmission(j, p, s, verbose, 0)
		if !good {
			ok = false
			continue
		}
		if run, ran := verdict.SlowestRun("submissions/"+s.Rel, res); ran {
			runs = append(runs, run)
		}
	}
	return runs, ok
}

// writeTimelimit writes the computed limit to the package's .timelimit,
// which docket run, a worker, DOMjudge and problemtools' statement
// tools read. It creates the file, never replacing one (nor a link):
// a package with a .timelimit states its limit and computes none.
func writeTimelimit(dir string, d *verdict.DerivedLimit) error {
	path := filepath.Join(dir, ".timelimit")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s exists (a link or a file docket could not read); remove it to write the computed limit", path)
		}
		return err
	}
	_, err = fmt.Fprintln(f, problem.FormatSeconds(d.Limit))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
