package verdict

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/verdict/problem"
)

// Every example problem under problems/ (listed when the test runs: a
// new package is covered without a change here) is judged in process,
// as docket problem check judges it: each program of its submissions/
// gets what its directory promises (MeetsExpectation), with the real
// sandbox, compilers, checkers and interactors. A package without
// submissions/ fails, as the check does. The packages are judged side by
// side, each on a slot of its own, as many at once as go test's -parallel
// (the number of CPUs): one by one they took 221 s on 2 cores, most of it
// waiting (the user and system time was 81 s).
func TestExampleSubmissions(t *testing.T) {
	sb := testSandbox(t)
	dirs, err := filepath.Glob("../problems/*/problem.yaml")
	cms, _ := filepath.Glob("../problems/*/task.yaml")    // CMS task folders
	tps, _ := filepath.Glob("../problems/*/problem.json") // TPS task folders
	pg, _ := filepath.Glob("../problems/*/problem.xml")   // Polygon packages
	if dirs = append(append(append(dirs, cms...), tps...), pg...); err != nil || len(dirs) == 0 || len(cms) == 0 || len(tps) == 0 || len(pg) == 0 {
		t.Fatalf("no example problems, or no CMS task, TPS task or Polygon package, under ../problems: %v", err)
	}
	for _, y := range dirs {
		dir := filepath.Dir(y)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			checkExamples(t, slotJudge(t, sb), dir)
		})
	}
}

// checkExamples judges the submissions/ of the package in dir.
func checkExamples(t *testing.T, j *Judge, dir string) {
	p, err := problem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	subs, err := problem.ExampleSubmissions(dir)
	if err != nil || len(subs) == 0 {
		t.Fatalf("submissions/: %d programs, %v", len(subs), err)
	}
	if err := j.Prepare(p); err != nil {
		t.Fatalf("the package's own programs: %v", err)
	}
	if _, err := j.BuildTests(context.Background(), p); err != nil {
		t.Fatalf("the package's tests: %v", err)
	}
	for _, s := range subs {
		if _, known := ExpectedVerdict(s.Expect); !known {
			t.Logf("%s: %q is no expected verdict; docket problem check skips it too", s.Rel, s.Expect)
			continue
		}
		sub, err := ReadSubmission(j.Langs, s.Language, []string{s.Path})
		if err != nil {
			t.Errorf("%s: %v", s.Rel, err)
			continue
		}
		start := time.Now()
		res := j.Judge(context.Background(), p, sub, Options{})
		if !MeetsExpectation(res, p.Kind, s.Expect) {
			t.Errorf("%s (%s): %s, score %g/%g in %v, want %s: %s", s.Rel, sub.Language, res.Verdict, res.Score, res.MaxScore,
				time.Since(start).Round(time.Millisecond), s.Expect, missed(res))
		}
	}
}

// missed says why a result missed its expectation: its error, the
// compiler's log, or the first test that failed.
func missed(res *Result) string {
	if res.Error != "" {
		return res.Error
	}
	if !res.Compile.OK {
		return strings.TrimSpace(res.Compile.Log)
	}
	for _, t := range res.Tests {
		if t.Verdict != AC && t.Verdict != SK {
			return "test " + t.Name + " " + string(t.Verdict) + " " + t.Feedback
		}
	}
	return "every test passed"
}
