package verdict

import (
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

func TestInteractiveVerdictRules(t *testing.T) {
	ms := time.Millisecond
	acc := interactorSide{status: sandbox.OK, verdict: TestResult{Verdict: AC, Score: 1}}
	rej := interactorSide{status: sandbox.RE, verdict: TestResult{Verdict: WA, Feedback: "too many guesses"}}
	fail := interactorSide{status: sandbox.RE, verdict: TestResult{Verdict: SE, Feedback: "fail: bad input"}}
	tle := interactorSide{status: sandbox.TLE, detail: "TLE (cpu_time)"}
	at := func(s interactorSide, d time.Duration) interactorSide { s.wall = d; return s }
	for _, tc := range []struct {
		name    string
		sub     Verdict
		subWall time.Duration
		in      interactorSide
		want    Verdict
		source  string
	}{
		{"both accept", AC, 10 * ms, at(acc, 11*ms), AC, SourceInteractor},
		{"interactor rejects a clean exit", AC, 10 * ms, at(rej, 9*ms), WA, SourceInteractor},
		{"reject wins over the RE its exit caused", RE, 12 * ms, at(rej, 9*ms), WA, SourceInteractor},
		{"reject wins over a TLE after it", TLE, 2000 * ms, at(rej, 9*ms), WA, SourceInteractor},
		{"a TLE before the interactor decided stands", TLE, 1000 * ms, at(rej, 1001*ms), TLE, "cpu_time"},
		{"submission crash, interactor accepts anyway", RE, 5 * ms, at(acc, 6*ms), RE, "signal"},
		{"interactor fails after a crash: the crash", RE, 5 * ms, at(fail, 6*ms), RE, "signal"},
		{"interactor fails on a clean run: SE", AC, 5 * ms, at(fail, 6*ms), SE, SourceJudge},
		{"deadlock: the submission's wall limit", TLE, 3000 * ms, at(tle, 3005*ms), TLE, "cpu_time"},
		{"interactor over its limit alone: SE", AC, 5 * ms, at(tle, 30000*ms), SE, SourceJudge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := map[Verdict]string{TLE: "cpu_time", RE: "signal", AC: ""}[tc.sub]
			got := interactiveVerdict(TestResult{Verdict: tc.sub, VerdictSource: src, Score: 1}, tc.subWall, tc.in)
			if got.Verdict != tc.want || got.VerdictSource != tc.source {
				t.Errorf("got %s (%s), want %s (%s)", got.Verdict, got.VerdictSource, tc.want, tc.source)
			}
			if got.Verdict != AC && got.Score != 0 && got.Verdict != RE && got.Verdict != TLE {
				t.Errorf("a rejected test kept score %g", got.Score)
			}
		})
	}
}
