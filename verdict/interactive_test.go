package verdict

import (
	"syscall"
	"testing"

	"github.com/docketjudge/docket/sandbox"
)

// The decision table of interactive verdicts: who ended first decides,
// and a SIGPIPE death (or a Kattis validator's exit 0 after the
// submission ended) says who that was whatever the observed order.
func TestInteractiveVerdictRules(t *testing.T) {
	acc := interactorSide{status: sandbox.RE, verdict: TestResult{Verdict: AC, Score: 1}}
	rej := interactorSide{status: sandbox.RE, verdict: TestResult{Verdict: WA, Feedback: "too many guesses"}}
	pe := interactorSide{status: sandbox.RE, verdict: TestResult{Verdict: PE, Feedback: "unexpected EOF"}}
	fail := interactorSide{status: sandbox.RE, verdict: TestResult{Verdict: SE, Feedback: "fail: bad input"}}
	tle := interactorSide{status: sandbox.TLE, detail: "TLE (cpu_time)"}
	orphan := interactorSide{status: sandbox.RE, orphaned: true}
	first := func(s interactorSide) interactorSide { s.first = true; return s }
	pipe := int(syscall.SIGPIPE)
	for _, tc := range []struct {
		name   string
		sub    Verdict
		signal int
		in     interactorSide
		want   Verdict
		source string
	}{
		{"both accept", AC, 0, acc, AC, SourceInteractor},
		{"interactor rejects a clean exit", AC, 0, rej, WA, SourceInteractor},
		{"crash first, interactor then rejects the EOF: RE", RE, 0, rej, RE, "signal"},
		{"crash first, interactor then says PE: RE", RE, 0, pe, RE, "signal"},
		{"TLE first, interactor then rejects: TLE", TLE, 0, rej, TLE, "cpu_time"},
		{"MLE first, interactor then rejects: MLE", MLE, 0, rej, MLE, "memory_cgroup"},
		{"reject first wins over a later RE", RE, 0, first(rej), WA, SourceInteractor},
		{"reject first wins over a later TLE", TLE, 0, first(rej), WA, SourceInteractor},
		{"reject wins over the submission's SIGPIPE, whatever the order", RE, pipe, rej, WA, SourceInteractor},
		{"accept first, then a SIGPIPE it caused: AC", RE, pipe, first(acc), AC, SourceInteractor},
		{"accept first, then a crash of its own: RE", RE, 0, first(acc), RE, "signal"},
		{"crash first, interactor accepts anyway: RE", RE, 0, acc, RE, "signal"},
		{"interactor fails after a crash: the crash", RE, 0, fail, RE, "signal"},
		{"interactor fails on a clean run: SE", AC, 0, fail, SE, SourceJudge},
		{"interactor fails first: SE", RE, 0, first(fail), SE, SourceJudge},
		{"orphaned interactor after a clean exit: WA, not SE", AC, 0, orphan, WA, SourceInteractor},
		{"orphaned interactor, even if seen ending first: WA", AC, 0, first(orphan), WA, SourceInteractor},
		{"orphaned interactor after a crash: RE", RE, 0, orphan, RE, "signal"},
		{"orphaned interactor after a TLE: TLE", TLE, 0, orphan, TLE, "cpu_time"},
		{"deadlock: the submission's wall limit", TLE, 0, tle, TLE, "cpu_time"},
		{"interactor over its limit alone: SE", AC, 0, tle, SE, SourceJudge},
		{"interactor over its limit first: SE", TLE, 0, first(tle), SE, SourceJudge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := map[Verdict]string{TLE: "cpu_time", MLE: "memory_cgroup", RE: "signal", AC: ""}[tc.sub]
			got := interactiveVerdict(TestResult{Verdict: tc.sub, VerdictSource: src, Signal: tc.signal, Score: 1}, tc.in)
			if got.Verdict != tc.want || got.VerdictSource != tc.source {
				t.Errorf("got %s (%s), want %s (%s)", got.Verdict, got.VerdictSource, tc.want, tc.source)
			}
			if got.Verdict == WA && got.Score != 0 {
				t.Errorf("a rejected test kept score %g", got.Score)
			}
		})
	}
}
