package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/verdict/problem"
)

// docket problem check computes the time limit of a package that states
// none from its accepted submissions' measured time (testdata/timemult:
// x 10, 0.1 s steps, the 2023-07 safety margin 1.5), judges the
// time-limit-exceeded one at the limit times the margin, and with
// --write-timelimit writes the limit to .timelimit, which the package
// then states. Times are compared by relation: the machines' speed swings.
func TestProblemCheckComputesTimeLimit(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	dir := filepath.Join(t.TempDir(), "timemult")
	if err := os.CopyFS(dir, os.DirFS("testdata/timemult")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "problem", "check", "--write-timelimit", dir)
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("docket problem check: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`time limit ([0-9.]+)s: slowest accepted ([0-9.]+)s \(submissions/accepted/spin\.c, test [a-z]+/[0-9]\) ` +
		`x time_multipliers\.ac_to_time_limit 10, rounded up to 0\.1s steps; time_limit_exceeded submissions must time out at ([0-9.]+)s`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no derivation of the limit from spin.c in:\n%s", out)
	}
	limit, slowest, tle := seconds(t, m[1]), seconds(t, m[2]), seconds(t, m[3])
	if slowest <= 0 {
		t.Fatalf("spin.c measured %v; it spends CPU time", slowest)
	}
	mult := problem.TimeMultipliers{ACToTimeLimit: 10, TimeLimitToTLE: 1.5, Resolution: 0.1}
	if want := mult.TimeLimit(slowest); limit != want || limit < 10*slowest || limit >= 10*slowest+100*time.Millisecond {
		t.Errorf("limit %v from slowest %v, want %v: 10 x slowest rounded up to 0.1 s", limit, slowest, want)
	}
	if want := mult.TLELimit(limit); tle != want {
		t.Errorf("TLE limit %v, want %v (limit x 1.5)", tle, want)
	}
	margin := "(limit " + problem.FormatSeconds(tle) + "s, the safety margin)"
	if !regexp.MustCompile(`ok   time_limit_exceeded/forever\.c +c +TLE .*`+regexp.QuoteMeta(margin)).Match(out) ||
		!strings.Contains(string(out), "all 4 submissions got their expected verdict") {
		t.Errorf("want every submission as expected, forever.c TLE %s:\n%s", margin, out)
	}
	p, err := problem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Limits.Time != limit || p.Limits.TimeSource != ".timelimit" {
		t.Errorf("after --write-timelimit: limit %v from %q, want %v from .timelimit\n%s", p.Limits.Time, p.Limits.TimeSource, limit, out)
	}
}

func seconds(t *testing.T, b []byte) time.Duration {
	t.Helper()
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(f * float64(time.Second)).Round(time.Millisecond)
}
