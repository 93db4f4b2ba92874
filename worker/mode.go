package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
)

// Mode says what a worker does with a job once it holds it.
type Mode string

const (
	// ModeJudge is the only mode for real use: every job is judged.
	ModeJudge Mode = "judge"
	// ModeCapacityTest judges nothing. Each job still takes the whole
	// protocol path (fetch, decode, problem lookup in the store, started
	// event, result and final event with their Nats-Msg-Id, ack); only
	// the sandbox run is replaced by NotJudgedResult. It exists to measure
	// what the queue carries without the judging's cost, and its long
	// name is what an operator must type to get it: no abbreviation, no
	// default, no boolean that a stray "1" could switch on.
	ModeCapacityTest Mode = "capacity-test-no-judging"
)

// NotJudgedError is the error every result of ModeCapacityTest carries.
const NotJudgedError = "capacity test mode: not judged (docket worker ran with --capacity-test-no-judging; this is not a verdict on the submission)"

// ParseMode reads a worker mode by its exact name; empty is ModeJudge.
// Anything else is refused, so a typo never starts a worker that acks
// submissions without judging them, nor one that judges when a capacity
// test was meant.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeJudge:
		return ModeJudge, nil
	case ModeCapacityTest:
		return ModeCapacityTest, nil
	}
	return "", fmt.Errorf("unknown worker mode %q: want %q (the default) or, for capacity tests only, %q", s, ModeJudge, ModeCapacityTest)
}

// NotJudgedResult is ModeCapacityTest's fixed result. SE is docket's
// "the judge failed, not the contestant" verdict, so a backend that gets
// one by mistake shows a judge error and rejudges; it is never an AC or a
// WA that could stand. The error says why, the score is 0 of 0, and no
// test is listed.
func NotJudgedResult(id string) *verdict.Result {
	return &verdict.Result{V: protocol.Version, SubmissionID: id, Verdict: verdict.SE, Error: NotJudgedError,
		Tests: []verdict.TestResult{}, Groups: []verdict.GroupResult{}}
}

// NotJudging is ModeCapacityTest's Judger: every job's result is
// NotJudgedResult, with the policy of a result that stands for no
// judging. New accepts it only with Config.Mode ModeCapacityTest, and
// that mode only with it.
func NotJudging() Judger { return notJudging{} }

type notJudging struct{}

func (notJudging) Judge(_ context.Context, t Task) (*verdict.Result, error) {
	res := NotJudgedResult(t.Job.SubmissionID)
	res.FeedbackPolicy = t.EarlyFeedback
	return res, nil
}

// Langs is the built-in catalog: nothing is run, the language only names
// the job in events, results and metrics.
func (notJudging) Langs() *langs.Catalog { return langs.Builtin() }

// checkJudger refuses a judger that does not match the mode: a worker
// acks jobs without judging them only when asked for ModeCapacityTest by
// its name, and never judges when a capacity test was meant.
func checkJudger(j Judger, mode Mode) error {
	if j == nil {
		return errors.New("worker: a judging worker needs a judge (a sandbox slot)")
	}
	if _, none := j.(notJudging); none != (mode == ModeCapacityTest) {
		return fmt.Errorf("worker: mode %q does not match its judger (NotJudging is for %q only)", mode, ModeCapacityTest)
	}
	return nil
}
