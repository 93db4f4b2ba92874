package protocol

import (
	"errors"
	"fmt"
)

// FeedbackPolicy says which tests' details (checker and comparison
// messages, judge messages: anything derived from a test's data) a
// contestant's view of a result shows. The jury's view (the operator
// token, the backend's results stream) always has everything; the policy
// only tells the bridge what to strip for a per-submission token.
type FeedbackPolicy string

const (
	// FeedbackSamples shows details for the tests under data/sample only,
	// as DOMjudge, Kattis and CMS do: secret answers never reach a
	// contestant. The default.
	FeedbackSamples FeedbackPolicy = "samples"
	// FeedbackAll shows every test's details (practice, training).
	FeedbackAll FeedbackPolicy = "all"
	// FeedbackNone shows no test's details, samples included: verdict,
	// score, time and memory only.
	FeedbackNone FeedbackPolicy = "none"
)

// DefaultFeedback is the policy when neither the job, nor the package,
// nor the worker sets one.
const DefaultFeedback = FeedbackSamples

// ErrFeedbackPolicy is what every invalid policy value wraps.
var ErrFeedbackPolicy = errors.New("invalid feedback policy")

// ParseFeedbackPolicy reads a policy by its exact name. The empty string
// is "not set" and returns "" without an error, so that each level of
// the precedence can leave the choice to the next.
func ParseFeedbackPolicy(s string) (FeedbackPolicy, error) {
	switch p := FeedbackPolicy(s); p {
	case "", FeedbackSamples, FeedbackAll, FeedbackNone:
		return p, nil
	}
	// The value is quoted cut short: it may come from a job, and the
	// message goes into a result that must stay small.
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return "", fmt.Errorf("%w %q: want samples, all or none", ErrFeedbackPolicy, s)
}
