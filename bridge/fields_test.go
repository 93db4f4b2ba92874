package bridge

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/docketjudge/docket/protocol"
)

// TestContestantViewDecidesEveryField: each field of the protocol's
// messages is, for a contestant, kept (the field sets of feedback.go),
// filtered by a rule of its own, or hidden on purpose. A field added to a
// message without a decision here fails, and so does a kept name that no
// message has (a typo would hide the field it meant).
func TestContestantViewDecidesEveryField(t *testing.T) {
	cases := []struct {
		msg      any
		kept     map[string]bool
		filtered []string // by a rule of their own (contestantEvent, contestantResult, contestantTest)
		hidden   []string // never a contestant's unless the test's details are shown
	}{
		{protocol.Event{}, eventFields, []string{"test", "group", "result"}, nil},
		{protocol.Result{}, resultFields, []string{"tests", "groups", "error"}, nil},
		{protocol.TestResult{}, testFields, []string{"steps", "passes"}, []string{"feedback", "stderr_excerpt"}},
		{protocol.StepResult{}, stepFields, nil, nil},
		{protocol.GroupResult{}, groupFields, nil, nil},
	}
	for _, c := range cases {
		name := reflect.TypeOf(c.msg).Name()
		fields := jsonFields(reflect.TypeOf(c.msg))
		decided := map[string]bool{}
		for _, f := range append(append([]string{}, c.filtered...), c.hidden...) {
			decided[f] = true
		}
		for f := range c.kept {
			decided[f] = true
			if !fields[f] {
				t.Errorf("%s: the contestant's view keeps %q, which the message does not have", name, f)
			}
		}
		for _, f := range sortedKeys(fields) {
			if !decided[f] {
				t.Errorf("%s.%s: no decision for a contestant's view (feedback.go: keep it, filter it or hide it, and say so here)", name, f)
			}
		}
	}
}

// jsonFields are the JSON names of a struct's fields.
func jsonFields(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag != "" && tag != "-" {
			out[tag] = true
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
