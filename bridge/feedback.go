package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/docketjudge/docket/protocol"
)

// viewer is whom a request reads for. The jury (the operator token) gets
// the events and results exactly as the worker published them; a
// contestant (a per-submission token) gets them filtered by the
// submission's feedback policy, so that no secret test's details
// (checker and comparison messages, judge messages, anything taken from
// the test's data) reach the submission's owner.
type viewer int

const (
	jury viewer = iota
	contestant
)

// Feedback policies of the wire protocol (docs/protocol.md): the worker
// writes the submission's effective one into every event from compile on
// and into the result as feedback_policy. A missing or unknown value is
// taken as none, so that an older worker's events, or a newer worker's
// policy this bridge does not know, never show more than they should.
const (
	feedbackSamples = string(protocol.FeedbackSamples) // details of tests marked "sample": true only
	feedbackAll     = string(protocol.FeedbackAll)     // every test's details: the jury's view
	feedbackNone    = string(protocol.FeedbackNone)    // no test's details
)

// hiddenError replaces a result's error that quotes a hidden test.
const hiddenError = "judge error on a test whose details are shown to the jury only"

// The fields a contestant sees whatever the policy. They are listed, not
// the fields to remove: a field a later worker adds (an excerpt of the
// program's output, say) stays hidden from contestants until it is added
// here on purpose. Under the policy all, and for a test whose details
// are shown, everything passes.
var (
	eventFields  = fieldSet("v", "submission_id", "attempt", "seq", "time", "type", "worker", "problem", "language", "compile", "index", "total", "feedback_policy")
	resultFields = fieldSet("v", "submission_id", "problem", "problem_digest", "language", "verdict", "score", "max_score",
		"time_ms", "memory_kb", "compile", "limits", "worker", "attempt", "error_test", "feedback_policy")
	testFields  = fieldSet("name", "group", "sample", "verdict", "time_ms", "wall_ms", "memory_kb", "exit_code", "signal", "verdict_source", "score")
	stepFields  = fieldSet("time_ms", "wall_ms", "memory_kb", "verdict")
	groupFields = fieldSet("name", "verdict", "score", "max_score")
)

func fieldSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// errNotObject: stored data that is not a JSON object cannot be filtered,
// so it is not shown to a contestant at all.
var errNotObject = errors.New("not a JSON object")

var (
	rawEmpty = json.RawMessage(`""`)
	rawTrue  = json.RawMessage(`true`)
)

// object decodes raw when it is a JSON object.
func object(raw []byte) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errNotObject
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// pick copies the fields of m that keep lists.
func pick(m map[string]json.RawMessage, keep map[string]bool) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(keep))
	for k, v := range m {
		if keep[k] {
			out[k] = v
		}
	}
	return out
}

// policyOf reads m's feedback_policy; "" when it is missing or not a string.
func policyOf(m map[string]json.RawMessage) string {
	var p string
	if json.Unmarshal(m["feedback_policy"], &p) != nil {
		return ""
	}
	return p
}

// shown reports whether a test's details are a contestant's under policy.
func shown(policy string, test map[string]json.RawMessage) bool {
	switch policy {
	case feedbackAll:
		return true
	case feedbackSamples:
		return bytes.Equal(test["sample"], rawTrue)
	}
	return false
}

// contestantEvent is an event as a contestant sees it.
func contestantEvent(data []byte) ([]byte, error) {
	ev, err := object(data)
	if err != nil {
		return nil, err
	}
	policy := policyOf(ev)
	out := ev
	if policy != feedbackAll {
		out = pick(ev, eventFields)
	}
	if raw, ok := ev["test"]; ok {
		if t, err := contestantTest(raw, policy); err == nil {
			out["test"] = t
		}
	}
	if raw, ok := ev["group"]; ok {
		if g, err := contestantGroup(raw, policy); err == nil {
			out["group"] = g
		}
	}
	if raw, ok := ev["result"]; ok {
		// The result carries its own policy (the same, from a worker).
		if r, err := contestantResult(raw); err == nil {
			out["result"] = r
		}
	}
	return json.Marshal(out)
}

// contestantResult is a result as a contestant sees it.
func contestantResult(data []byte) ([]byte, error) {
	res, err := object(data)
	if err != nil {
		return nil, err
	}
	policy := policyOf(res)
	if policy == feedbackAll {
		return data, nil
	}
	out := pick(res, resultFields)
	tests, shownTests, ok := contestantTests(res["tests"], policy)
	if ok {
		out["tests"] = tests
	}
	if groups, ok := contestantGroups(res["groups"], policy); ok {
		out["groups"] = groups
	}
	if raw, ok := res["error"]; ok {
		out["error"] = raw
		if errorHidden(res, raw, policy, shownTests) {
			out["error"], _ = json.Marshal(hiddenError)
			out["error_hidden"] = rawTrue
		}
	}
	return json.Marshal(out)
}

// contestantTests filters a result's tests; ok is false when raw is not
// an array (the field is then left out). shownTests maps each test name
// to whether the details of every test of that name are shown.
func contestantTests(raw json.RawMessage, policy string) (out json.RawMessage, shownTests map[string]bool, ok bool) {
	shownTests = map[string]bool{}
	var tests []json.RawMessage
	if json.Unmarshal(raw, &tests) != nil || tests == nil {
		return nil, shownTests, false
	}
	kept := make([]json.RawMessage, 0, len(tests))
	for _, t := range tests {
		ct, err := contestantTest(t, policy)
		if err != nil {
			continue
		}
		kept = append(kept, ct)
		m, _ := object(t)
		var name string
		json.Unmarshal(m["name"], &name)
		prev, seen := shownTests[name]
		shownTests[name] = shown(policy, m) && (prev || !seen)
	}
	out, _ = json.Marshal(kept)
	return out, shownTests, true
}

// contestantGroups filters a result's groups; ok as for contestantTests.
func contestantGroups(raw json.RawMessage, policy string) (json.RawMessage, bool) {
	var groups []json.RawMessage
	if json.Unmarshal(raw, &groups) != nil || groups == nil {
		return nil, false
	}
	kept := make([]json.RawMessage, 0, len(groups))
	for _, g := range groups {
		if cg, err := contestantGroup(g, policy); err == nil {
			kept = append(kept, cg)
		}
	}
	out, _ := json.Marshal(kept)
	return out, true
}

// errorHidden reports whether a result's error (raw) is a hidden test's
// feedback: it names the test in error_test (a checker that failed on
// it), or quotes it as docket writes such errors, "test NAME: ...". A
// result without a policy this bridge knows hides any error: a worker
// from before feedback policies wrote no error_test, and its results
// stay in the stream for days. shownTests maps the result's test names
// to whether their details are shown.
func errorHidden(res map[string]json.RawMessage, raw json.RawMessage, policy string, shownTests map[string]bool) bool {
	var msg string
	if json.Unmarshal(raw, &msg) != nil {
		return true // not a string: none that docket writes
	}
	if msg == "" {
		return false
	}
	if policy != feedbackSamples && policy != feedbackNone {
		return true
	}
	var name string
	if json.Unmarshal(res["error_test"], &name) == nil && name != "" && !shownTests[name] {
		return true
	}
	for n, shown := range shownTests {
		if !shown && strings.HasPrefix(msg, "test "+n+":") {
			return true
		}
	}
	return false
}

// contestantTest is one test result as a contestant sees it: whole when
// the policy shows its details, else its measurements and verdict only,
// with "feedback" empty and "feedback_hidden": true (whether or not it
// had any feedback, so that not even that is told).
func contestantTest(raw []byte, policy string) (json.RawMessage, error) {
	t, err := object(raw)
	if err != nil {
		return nil, err
	}
	if shown(policy, t) {
		return raw, nil
	}
	out := pick(t, testFields)
	// A two-step test's steps and a multi-pass test's passes: each run's
	// measurements and verdict.
	for _, key := range []string{"steps", "passes"} {
		if runs, ok := pickRuns(t[key]); ok {
			out[key] = runs
		}
	}
	out["feedback"] = rawEmpty
	out["feedback_hidden"] = rawTrue
	return json.Marshal(out)
}

// pickRuns keeps stepFields of each run in a list of runs.
func pickRuns(raw json.RawMessage) (json.RawMessage, bool) {
	var runs []json.RawMessage
	if json.Unmarshal(raw, &runs) != nil || runs == nil {
		return nil, false
	}
	kept := make([]json.RawMessage, 0, len(runs))
	for _, s := range runs {
		if m, err := object(s); err == nil {
			b, _ := json.Marshal(pick(m, stepFields))
			kept = append(kept, b)
		}
	}
	b, _ := json.Marshal(kept)
	return b, true
}

// contestantGroup is a group's score as a contestant sees it: name,
// verdict and scores, which every policy shows.
func contestantGroup(raw []byte, policy string) (json.RawMessage, error) {
	g, err := object(raw)
	if err != nil {
		return nil, err
	}
	if policy == feedbackAll {
		return raw, nil
	}
	return json.Marshal(pick(g, groupFields))
}
