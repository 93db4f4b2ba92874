package bridge

import (
	"encoding/json"
	"testing"
)

// FuzzContestantView: whatever an event or a result holds, what a
// contestant gets of it is JSON in which every test whose details the
// policy hides has empty feedback and only the fields any contestant may
// see, and in which no field outside the lists appears unless the policy
// is all.
func FuzzContestantView(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"type":"test","feedback_policy":"samples","index":2,"test":{"name":"secret/1","sample":false,"verdict":"WA","feedback":"expected 2000000000, got 2000000001","stderr":"x"}}`,
		`{"v":1,"type":"test","feedback_policy":"samples","test":{"name":"sample/1","sample":true,"verdict":"WA","feedback":"expected 3, got 4"}}`,
		`{"v":1,"type":"final","feedback_policy":"samples","result":{"feedback_policy":"samples","verdict":"SE","error":"test secret/1: jury 2","error_test":"secret/1","tests":[{"name":"secret/1","feedback":"jury 2","steps":[{"time_ms":1,"x":2}]}],"groups":[{"name":"secret","score":1,"note":"n"}]}}`,
		`{"v":1,"type":"test","feedback_policy":"samples","test":{"name":"secret/2","sample":false,"feedback":"pass 2: x","passes":[{"time_ms":1,"verdict":"AC","x":2},7,null]}}`,
		`{"v":1,"type":"final","feedback_policy":"all","result":{"feedback_policy":"none","tests":[{"name":"a","feedback":"f"}]}}`,
		`{"type":"group","feedback_policy":"none","group":{"name":"g","verdict":"AC","score":1,"max_score":1,"extra":"e"}}`,
		`{"type":"test","feedback_policy":"samples","test":{"sample":"true","feedback":"f"}}`,
		`{"type":"test","feedback_policy":"samples","feedback_policy":"all","test":{"feedback":"f"}}`,
		`{"type":"test","test":null,"result":[],"group":7}`,
		`{"feedback_policy":"none","tests":[{"feedback":"f","sample":true},1,null],"groups":{},"error":3,"error_test":"a"}`,
		`[]`, `null`, `{`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if out, err := contestantEvent(data); err == nil {
			checkEventView(t, data, out)
		}
		if out, err := contestantResult(data); err == nil {
			checkResultView(t, data, out)
		}
	})
}

func checkEventView(t *testing.T, in, out []byte) {
	ev, err := object(out)
	if err != nil {
		t.Fatalf("event %q became %q, not a JSON object: %v", in, out, err)
	}
	policy := policyOf(ev)
	if policy != feedbackAll {
		onlyFields(t, "event", out, ev, eventFields, "test", "group", "result")
	}
	if raw, ok := ev["test"]; ok {
		checkTestView(t, out, raw, policy)
	}
	if raw, ok := ev["group"]; ok && policy != feedbackAll {
		g, err := object(raw)
		if err != nil {
			t.Fatalf("group in %q is not an object", out)
		}
		onlyFields(t, "group", out, g, groupFields)
	}
	if raw, ok := ev["result"]; ok {
		checkResultView(t, in, raw)
	}
}

func checkResultView(t *testing.T, in, out []byte) {
	res, err := object(out)
	if err != nil {
		t.Fatalf("result %q became %q, not a JSON object: %v", in, out, err)
	}
	policy := policyOf(res)
	if policy == feedbackAll {
		return
	}
	onlyFields(t, "result", out, res, resultFields, "tests", "groups", "error", "error_hidden")
	var tests []json.RawMessage
	if raw, ok := res["tests"]; ok {
		if err := json.Unmarshal(raw, &tests); err != nil {
			t.Fatalf("tests in %q: %v", out, err)
		}
	}
	for _, raw := range tests {
		checkTestView(t, out, raw, policy)
	}
}

func checkTestView(t *testing.T, out, raw []byte, policy string) {
	tm, err := object(raw)
	if err != nil {
		t.Fatalf("test in %q is not an object", out)
	}
	if shown(policy, tm) {
		return
	}
	onlyFields(t, "hidden test", out, tm, testFields, "steps", "passes", "feedback", "feedback_hidden")
	if string(tm["feedback"]) != `""` || string(tm["feedback_hidden"]) != "true" {
		t.Fatalf("hidden test with feedback %s (hidden %s) in %q", tm["feedback"], tm["feedback_hidden"], out)
	}
	for _, key := range []string{"steps", "passes"} {
		var runs []map[string]json.RawMessage
		if raw, ok := tm[key]; ok {
			if err := json.Unmarshal(raw, &runs); err != nil {
				t.Fatalf("%s in %q: %v", key, out, err)
			}
		}
		for _, s := range runs {
			onlyFields(t, key, out, s, stepFields)
		}
	}
}

func onlyFields(t *testing.T, what string, out []byte, m map[string]json.RawMessage, allowed map[string]bool, more ...string) {
	t.Helper()
	for k := range m {
		ok := allowed[k]
		for _, x := range more {
			ok = ok || k == x
		}
		if !ok {
			t.Fatalf("%s field %q shown to a contestant in %q", what, k, out)
		}
	}
}
