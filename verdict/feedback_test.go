package verdict

import (
	"testing"

	"github.com/docketjudge/docket/verdict/problem"
)

// Every test result says whether it is a sample, whatever judged it (the
// stand-in testFn sets no Sample, as a two-step or interactive test
// builds its own result): the bridge hides a secret test's details by it.
func TestResultsMarkSamples(t *testing.T) {
	p := tree(problem.Scoring, map[string]problem.GroupConfig{"g1": minGroup(100)}, []string{"g1"}, 2)
	var seen []TestResult
	obs := observerFunc(func(_, _ int, r TestResult) { seen = append(seen, r) })
	res := judgeWith(p, Options{Observer: obs}, map[string]TestResult{"secret/g1/b": {Verdict: WA, Feedback: "expected 2000000000, got 2000000001"}})
	want := map[string]bool{"sample/1": true, "secret/g1/a": false, "secret/g1/b": false}
	if len(res.Tests) != len(want) || len(seen) != len(want) {
		t.Fatalf("%d tests, %d observed, want %d", len(res.Tests), len(seen), len(want))
	}
	for i, tr := range res.Tests {
		if tr.Sample != want[tr.Name] || seen[i].Sample != want[tr.Name] {
			t.Errorf("%s: sample %v in the result, %v in its event; want %v", tr.Name, tr.Sample, seen[i].Sample, want[tr.Name])
		}
	}
	if res.ErrorTest != "" {
		t.Errorf("a WA names no error test: %q", res.ErrorTest)
	}
}

// A judge error quoting a test's feedback names that test, so that the
// bridge can hide the message along with the test's details.
func TestErrorNamesItsTest(t *testing.T) {
	p := tree(problem.PassFail, map[string]problem.GroupConfig{"g1": minGroup(1)}, []string{"g1"}, 2)
	res := judgeWith(p, Options{}, map[string]TestResult{"secret/g1/a": {Verdict: SE, Feedback: "the checker failed (testlib fail): jury 2000000000, participant 2000000001"}})
	if res.Verdict != SE || res.ErrorTest != "secret/g1/a" || res.Error != "test secret/g1/a: the checker failed (testlib fail): jury 2000000000, participant 2000000001" {
		t.Errorf("verdict %s, error %q naming %q", res.Verdict, res.Error, res.ErrorTest)
	}
}

type observerFunc func(i, n int, r TestResult)

func (observerFunc) Compiled(CompileResult)        {}
func (f observerFunc) Test(i, n int, r TestResult) { f(i, n, r) }
