package problem

import (
	"strings"

	"github.com/docketjudge/docket/protocol"
)

// FeedbackPolicy is the wire protocol's (package protocol); a package's
// docket.feedback names one.
type FeedbackPolicy = protocol.FeedbackPolicy

// Policies and their parsing (protocol's).
const (
	FeedbackSamples = protocol.FeedbackSamples
	FeedbackAll     = protocol.FeedbackAll
	FeedbackNone    = protocol.FeedbackNone
	DefaultFeedback = protocol.DefaultFeedback
)

// ErrFeedbackPolicy is what every invalid policy value wraps.
var ErrFeedbackPolicy = protocol.ErrFeedbackPolicy

// ParseFeedbackPolicy reads a policy by its exact name (protocol's).
func ParseFeedbackPolicy(s string) (FeedbackPolicy, error) { return protocol.ParseFeedbackPolicy(s) }

// Sample reports whether g is data/sample or a group beneath it: its tests
// are the ones a statement shows, so their details are public.
func (g *Group) Sample() bool {
	return g != nil && (g.Name == "sample" || strings.HasPrefix(g.Name, "sample/"))
}
