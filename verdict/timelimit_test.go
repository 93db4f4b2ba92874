package verdict

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/verdict/problem"
)

// The slowest accepted run, counted before its language's multiplier,
// makes the limit; skipped tests do not count; the message says how.
func TestDeriveTimeLimit(t *testing.T) {
	py := &Result{Language: "python3", Limits: LimitsUsed{TimeMultiplier: 2}, Tests: []TestResult{
		{Name: "sample/1", Verdict: AC, TimeMs: 40}, {Name: "secret/1", Verdict: AC, TimeMs: 500}}}
	c := &Result{Language: "c", Limits: LimitsUsed{TimeMultiplier: 1}, Tests: []TestResult{
		{Name: "secret/1", Verdict: AC, TimeMs: 310}, {Name: "secret/2", Verdict: SK, TimeMs: 9000}}}
	var runs []SlowRun
	for sub, res := range map[string]*Result{"submissions/accepted/a.py": py, "submissions/accepted/b.c": c} {
		run, ok := SlowestRun(sub, res)
		if !ok {
			t.Fatalf("%s: no slowest run", sub)
		}
		runs = append(runs, run)
	}
	m := problem.TimeMultipliers{ACToTimeLimit: 5, TimeLimitToTLE: 2, Resolution: 1, ACKey: "time_multiplier", TLEKey: "time_safety_margin", TLEDefault: "legacy"}
	d, err := DeriveTimeLimit(m, runs)
	if err != nil {
		t.Fatal(err)
	}
	// b.c's 0.31 s beats a.py's 0.5 s, which is 0.25 s before Python's x 2.
	if d.Slowest.Submission != "submissions/accepted/b.c" || d.Slowest.Test != "secret/1" || d.Limit != 2*time.Second || d.TLELimit != 4*time.Second {
		t.Errorf("derived %+v, want b.c secret/1: 2 s, TLE at 4 s", d)
	}
	want := "time limit 2s: slowest accepted 0.310s (submissions/accepted/b.c, test secret/1) x time_multiplier 5, rounded up to 1s steps; " +
		"time_limit_exceeded submissions must time out at 4s (x time_safety_margin 2 (legacy default))"
	if d.String() != want {
		t.Errorf("message\n%s\nwant\n%s", d, want)
	}
	py.Tests[1].TimeMs = 700 // 0.35 s before the multiplier: now the slowest
	run, _ := SlowestRun("submissions/accepted/a.py", py)
	d, _ = DeriveTimeLimit(m, append(runs, run))
	if d.Slowest.Submission != "submissions/accepted/a.py" || !strings.Contains(d.String(), "0.700s (submissions/accepted/a.py, test secret/1), 0.350s before python3's time multiplier 2") {
		t.Errorf("with a.py at 0.7 s: %s", d)
	}
	if _, ok := SlowestRun("x", &Result{Tests: []TestResult{{Verdict: SK}}}); ok {
		t.Error("a result of skipped tests has a slowest run")
	}
	if _, err := DeriveTimeLimit(m, nil); !errors.Is(err, ErrNoAcceptedRun) {
		t.Errorf("no runs: %v, want ErrNoAcceptedRun", err)
	}
	m.ACToTimeLimit = 100
	if _, err := DeriveTimeLimit(m, []SlowRun{{Time: time.Minute, Multiplier: 1}}); err == nil || !strings.Contains(err.Error(), "is over 1h0m0s") {
		t.Errorf("a limit over an hour: %v", err)
	}
}
