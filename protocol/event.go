package protocol

import "time"

// EventType is an event's "type".
type EventType string

// The event types, in the order one attempt publishes them.
const (
	EventStarted EventType = "started" // a worker took the job
	EventCompile EventType = "compile" // compiled, or for an interpreted language checked
	EventTest    EventType = "test"    // one test finished
	EventGroup   EventType = "group"   // one test group finished: its score is final
	EventFinal   EventType = "final"   // the final result: every submission ends with one
)

// Event is one progress message on <prefix>.events.<submission_id>.
type Event struct {
	V            int       `json:"v"`
	SubmissionID string    `json:"submission_id"`
	Attempt      int       `json:"attempt"`
	Seq          int       `json:"seq"`
	Time         time.Time `json:"time"`
	Type         EventType `json:"type"`
	Worker       string    `json:"worker,omitempty"`
	// Problem and Language, on started: what the job names, before
	// anything is loaded, so that a watcher knows from the start what is
	// judged (the result has the ones judged).
	Problem  string         `json:"problem,omitempty"`
	Language string         `json:"language,omitempty"`
	Compile  *CompileResult `json:"compile,omitempty"`
	Test     *TestResult    `json:"test,omitempty"`
	Index    int            `json:"index,omitempty"`
	Total    int            `json:"total,omitempty"`
	Group    *GroupResult   `json:"group,omitempty"`
	Result   *Result        `json:"result,omitempty"`
	// FeedbackPolicy is the submission's effective policy, on every event
	// from compile on (started comes before the problem is loaded), so
	// that the bridge can filter any one event alone: live, replayed or
	// resumed after Last-Event-ID.
	FeedbackPolicy FeedbackPolicy `json:"feedback_policy,omitempty"`
}
