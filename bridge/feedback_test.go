package bridge

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// What a judged submission's tests said. The secret test's feedback is
// the example: its "got" number appears nowhere else, so finding
// it in a contestant's answer is a leak.
const (
	secretFeedback = "line 1: expected 2000000000, got 2000000001"
	secretLeak     = "2000000001"
	sampleFeedback = "line 1: expected 3, got 4"
	// Fields a later worker might add with a test's data in them: a
	// contestant sees them only where the policy shows the test's details.
	extraLeak   = "LEAKED-EXTRA"
	sampleExtra = "SAMPLE-EXTRA"
)

// judgedTest is one test result as a worker writes it.
func judgedTest(name string, sample bool, verdict, feedback string) map[string]any {
	group := "secret"
	if sample {
		group = "sample"
	}
	extra := extraLeak + " " + secretLeak
	if sample {
		extra = sampleExtra
	}
	return map[string]any{"name": name, "group": group, "sample": sample, "verdict": verdict, "time_ms": 7, "wall_ms": 9,
		"memory_kb": 1300, "exit_code": 0, "signal": 0, "verdict_source": "stdout", "feedback": feedback, "score": 0,
		"stdout_excerpt": extra,
		"steps":          []any{map[string]any{"time_ms": 3, "wall_ms": 4, "memory_kb": 1200, "verdict": "AC", "note": extra}},
		"passes":         []any{map[string]any{"time_ms": 5, "wall_ms": 6, "memory_kb": 1100, "verdict": "AC", "note": extra}}}
}

// judged publishes the events and the result of a submission judged
// under policy ("" publishes no policy at all, as a worker before it did):
// a sample test with a wrong answer, then a secret one. It returns the
// stream sequences of its events.
func (e *env) judged(id, policy string) []uint64 {
	e.t.Helper()
	withPolicy := func(m map[string]any) map[string]any {
		if policy != "" {
			m["feedback_policy"] = policy
		}
		m["input_excerpt"] = extraLeak // an event field no bridge knows
		return m
	}
	sample := judgedTest("sample/1", true, "WA", sampleFeedback)
	secret := judgedTest("secret/01-max", false, "WA", secretFeedback)
	group := map[string]any{"name": "secret", "verdict": "WA", "score": 0, "max_score": 100, "note": extraLeak}
	res := withPolicy(map[string]any{"v": 1, "submission_id": id, "problem": "aplusb", "verdict": "WA", "score": 0, "max_score": 100,
		"time_ms": 7, "memory_kb": 1300, "compile": map[string]any{"ok": true, "log": "warning: unused variable"},
		"tests": []any{sample, secret}, "groups": []any{group}, "worker": "w-test", "attempt": 1, "error": ""})
	res["answer_excerpt"] = extraLeak
	seqs := []uint64{
		e.publish(id, "started", map[string]any{"worker": "w-test"}),
		e.publish(id, "compile", withPolicy(map[string]any{"compile": map[string]any{"ok": true, "log": "warning: unused variable"}})),
		e.publish(id, "test", withPolicy(map[string]any{"index": 1, "total": 2, "test": sample})),
		e.publish(id, "test", withPolicy(map[string]any{"index": 2, "total": 2, "test": secret})),
		e.publish(id, "group", withPolicy(map[string]any{"group": group})),
		e.publish(id, "final", withPolicy(map[string]any{"result": res})),
	}
	data, _ := json.Marshal(res)
	e.publishRaw(e.b.subjects().Results(id), data)
	return seqs
}

// streamBody reads a whole events stream of a finished submission (the
// bridge ends it after the final event).
func (e *env) streamBody(path string, headers ...string) string {
	e.t.Helper()
	resp := e.request(http.MethodGet, path, headers...)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		e.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	return string(body)
}

// views is what one kind of token reads of a submission.
type views struct {
	events, result string
}

func (e *env) read(id string, headers ...string) views {
	e.t.Helper()
	path := "/v1/submissions/" + id
	if len(headers) == 1 && strings.HasPrefix(headers[0], "?") {
		q := headers[0]
		return views{events: e.streamBody(path + "/events" + q), result: e.resultBody(path + q)}
	}
	return views{events: e.streamBody(path+"/events", headers...), result: e.resultBody(path, headers...)}
}

func (e *env) resultBody(path string, headers ...string) string {
	e.t.Helper()
	code, body := e.status(path, headers...)
	if code != http.StatusOK {
		e.t.Fatalf("GET %s: %d %s", path, code, body)
	}
	return body
}

func tokenQuery(id string) string { return "?token=" + SubmissionToken([]byte(testSecret), id) }
func tokenHeader(id string) string {
	return "Authorization: Bearer " + SubmissionToken([]byte(testSecret), id)
}
func (v views) has(s string) bool {
	return strings.Contains(v.events, s) && strings.Contains(v.result, s)
}
func (v views) hasAny(s string) bool {
	return strings.Contains(v.events, s) || strings.Contains(v.result, s)
}

// sseData is every data line of an SSE body, decoded.
func sseData(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("data line %q: %v", d, err)
			}
			out = append(out, m)
		}
	}
	return out
}

// The case under the default policy: a wrong answer on a secret
// test. The operator sees its feedback everywhere; the per-submission
// token, given either way, sees it nowhere (events, result lookup), and
// sees the sample test's feedback.
func TestSecretFeedbackHiddenFromContestant(t *testing.T) {
	e := newEnv(t, nil)
	id := "s-secret"
	e.judged(id, "samples")

	op := e.read(id, opAuth)
	for _, s := range []string{secretFeedback, sampleFeedback, extraLeak} {
		if !op.has(s) {
			t.Errorf("the operator does not see %q:\nevents %s\nresult %s", s, op.events, op.result)
		}
	}
	for name, v := range map[string]views{"?token=": e.read(id, tokenQuery(id)), "Authorization": e.read(id, tokenHeader(id))} {
		for _, leak := range []string{secretLeak, extraLeak, "expected 2000000000"} {
			if v.hasAny(leak) {
				t.Errorf("per-submission token (%s) sees %q:\nevents %s\nresult %s", name, leak, v.events, v.result)
			}
		}
		for _, s := range []string{sampleFeedback, sampleExtra, "warning: unused variable"} {
			if !v.has(s) {
				t.Errorf("per-submission token (%s) does not see %q (sample feedback, compile log):\nevents %s\nresult %s", name, s, v.events, v.result)
			}
		}
		checkContestantEvents(t, sseData(t, v.events))
	}
}

// checkContestantEvents checks the shape of a contestant's events under
// samples: everything but the secret test's details is there.
func checkContestantEvents(t *testing.T, evs []map[string]any) {
	t.Helper()
	var types []string
	for _, ev := range evs {
		types = append(types, fmt.Sprint(ev["type"]))
	}
	if got := strings.Join(types, ","); got != "started,compile,test,test,group,final" {
		t.Fatalf("event types %s", got)
	}
	secret := evs[3]["test"].(map[string]any)
	if secret["name"] != "secret/01-max" || secret["verdict"] != "WA" || secret["time_ms"] != 7.0 || secret["memory_kb"] != 1300.0 ||
		secret["feedback"] != "" || secret["feedback_hidden"] != true || secret["sample"] != false {
		t.Errorf("the secret test as a contestant sees it: %v", secret)
	}
	if steps, _ := secret["steps"].([]any); len(steps) != 1 || steps[0].(map[string]any)["time_ms"] != 3.0 {
		t.Errorf("the secret test's steps: %v", secret["steps"])
	}
	if passes, _ := secret["passes"].([]any); len(passes) != 1 || passes[0].(map[string]any)["time_ms"] != 5.0 {
		t.Errorf("the secret test's passes: %v", secret["passes"])
	}
	sample := evs[2]["test"].(map[string]any)
	if sample["feedback"] != sampleFeedback || sample["feedback_hidden"] != nil {
		t.Errorf("the sample test as a contestant sees it: %v", sample)
	}
	if g := evs[4]["group"].(map[string]any); g["score"] != 0.0 || g["max_score"] != 100.0 || g["verdict"] != "WA" {
		t.Errorf("group %v", g)
	}
	res := evs[5]["result"].(map[string]any)
	if res["verdict"] != "WA" || res["max_score"] != 100.0 || res["feedback_policy"] != "samples" {
		t.Errorf("final result %v", res)
	}
	if tests := res["tests"].([]any); len(tests) != 2 || tests[1].(map[string]any)["feedback_hidden"] != true || tests[0].(map[string]any)["feedback"] != sampleFeedback {
		t.Errorf("final result's tests %v", tests)
	}
}

// Every way into the event history: a contestant that resumes after any
// event, by header or by query, or that follows the events live, gets no
// secret details either.
func TestSecretFeedbackHiddenOnResumeAndLive(t *testing.T) {
	e := newEnv(t, nil)
	id := "s-resume"
	live := e.openSSE(id + tokenQuery(id)) // before anything is published
	seqs := e.judged(id, "samples")

	var got []string
	for range seqs {
		m := live.next()
		got = append(got, m.Data)
	}
	live.ended()
	for _, d := range got {
		if strings.Contains(d, secretLeak) || strings.Contains(d, extraLeak) {
			t.Errorf("live event leaks: %s", d)
		}
	}
	if !strings.Contains(strings.Join(got, "\n"), sampleFeedback) {
		t.Error("the live events lack the sample's feedback")
	}

	for _, after := range append([]uint64{0}, seqs[:len(seqs)-1]...) {
		for _, how := range []struct {
			path    string
			headers []string
		}{
			{"/v1/submissions/" + id + "/events" + tokenQuery(id), []string{fmt.Sprintf("Last-Event-ID: %d", after)}},
			{"/v1/submissions/" + id + "/events" + tokenQuery(id) + fmt.Sprintf("&last_event_id=%d", after), nil},
			{"/v1/submissions/" + id + "/events", []string{tokenHeader(id), fmt.Sprintf("Last-Event-ID: %d", after)}},
		} {
			body := e.streamBody(how.path, how.headers...)
			if strings.Contains(body, secretLeak) || strings.Contains(body, extraLeak) {
				t.Errorf("resumed after %d (%s %q): leaks:\n%s", after, how.path, how.headers, body)
			}
			if !strings.Contains(body, "event: final") {
				t.Errorf("resumed after %d: no final event:\n%s", after, body)
			}
		}
	}
	// The operator resuming gets the details.
	if body := e.streamBody("/v1/submissions/"+id+"/events", opAuth, fmt.Sprintf("Last-Event-ID: %d", seqs[2])); !strings.Contains(body, secretFeedback) {
		t.Errorf("the operator resuming lacks the secret feedback:\n%s", body)
	}
}

// Each policy, as the per-submission token sees it; the operator always
// sees everything. No policy at all (a worker before feedback_policy
// existed) and a policy this bridge does not know show nothing.
func TestFeedbackPolicies(t *testing.T) {
	e := newEnv(t, nil)
	for i, tc := range []struct {
		policy         string
		sample, secret bool
	}{
		{"samples", true, false},
		{"all", true, true},
		{"none", false, false},
		{"", false, false},
		{"secret-only", false, false},
		{"ALL", false, false},
	} {
		id := fmt.Sprintf("s-policy-%d", i)
		e.judged(id, tc.policy)
		op := e.read(id, opAuth)
		if !op.has(secretFeedback) || !op.has(sampleFeedback) || !op.has(extraLeak) {
			t.Errorf("policy %q: the operator does not see everything:\n%s\n%s", tc.policy, op.events, op.result)
		}
		c := e.read(id, tokenQuery(id))
		for what, want := range map[string]bool{sampleFeedback: tc.sample, sampleExtra: tc.sample, secretLeak: tc.secret, extraLeak: tc.secret} {
			if want && !c.has(what) || !want && c.hasAny(what) {
				t.Errorf("policy %q: the per-submission token sees %q: events %v, result %v; want %v:\n%s\n%s",
					tc.policy, what, strings.Contains(c.events, what), strings.Contains(c.result, what), want, c.events, c.result)
			}
		}
		// Whatever is hidden, the verdict, scores, time and memory are not.
		for _, s := range []string{`"verdict":"WA"`, `"max_score":100`, `"time_ms":7`, `"memory_kb":1300`, `"name":"secret/01-max"`} {
			if !c.has(s) {
				t.Errorf("policy %q: the per-submission token lacks %s", tc.policy, s)
			}
		}
	}
}

// A judge error that quotes a test (a checker that failed on a secret
// test, saying what the jury's answer is) is that test's feedback.
func TestErrorQuotingHiddenTest(t *testing.T) {
	e := newEnv(t, nil)
	const quote = "test secret/01-max: the checker failed (testlib fail): jury has 2000000000, participant 2000000001"
	for _, tc := range []struct {
		id, policy, errorTest, err string
		shown                      bool
	}{
		{"s-err-secret", "samples", "secret/01-max", quote, false},
		{"s-err-none", "none", "sample/1", "test sample/1: checker says 2000000001", false},
		{"s-err-sample", "samples", "sample/1", "test sample/1: checker says 2000000001", true},
		{"s-err-all", "all", "secret/01-max", quote, true},
		{"s-err-unknown-test", "samples", "secret/99", "test secret/99: 2000000001", false},
		{"s-err-no-test", "none", "", "language cobol is unknown: 2000000001 languages known", true}, // not a test's: shown
		{"s-err-quoted", "samples", "", "test secret/01-max: the checker failed: 2000000001", false}, // quoted without error_test
		{"s-err-legacy", "", "", "test secret/01-max: the checker failed: 2000000001", false},        // a worker before policies
		{"s-err-legacy-other", "", "", "language cobol is unknown: 2000000001", false},               // any error, then
		{"s-err-odd-policy", "jury", "", "language cobol is unknown: 2000000001", false},
	} {
		res := map[string]any{"v": 1, "submission_id": tc.id, "verdict": "SE", "score": 0, "max_score": 1, "feedback_policy": tc.policy,
			"tests":  []any{judgedTest("sample/1", true, "AC", ""), judgedTest("secret/01-max", false, "SE", quote)},
			"groups": []any{}, "error": tc.err}
		if tc.errorTest != "" {
			res["error_test"] = tc.errorTest
		}
		if tc.policy == "" {
			delete(res, "feedback_policy")
		}
		e.publish(tc.id, "final", map[string]any{"result": res, "feedback_policy": tc.policy})
		data, _ := json.Marshal(res)
		e.publishRaw(e.b.subjects().Results(tc.id), data)

		if op := e.read(tc.id, opAuth); !op.has(tc.err) {
			t.Errorf("%s: the operator lacks the error", tc.id)
		}
		c := e.read(tc.id, tokenHeader(tc.id))
		var res2 struct {
			Verdict     string `json:"verdict"`
			Error       string `json:"error"`
			ErrorHidden bool   `json:"error_hidden"`
		}
		json.Unmarshal([]byte(c.result), &res2)
		if tc.shown && (res2.Error != tc.err || res2.ErrorHidden) || !tc.shown && (c.hasAny(secretLeak) || res2.Error != hiddenError || !res2.ErrorHidden) {
			t.Errorf("%s: the per-submission token gets error %q (hidden %v), want shown=%v:\n%s\n%s", tc.id, res2.Error, res2.ErrorHidden, tc.shown, c.events, c.result)
		}
		if res2.Verdict != "SE" || !strings.Contains(c.events, `"verdict":"SE"`) {
			t.Errorf("%s: the verdict is hidden too: %s", tc.id, c.result)
		}
	}
}

// Stored data that cannot be filtered is not shown to a contestant; the
// operator still gets it as stored.
func TestUnfilterableDataNotShownToContestant(t *testing.T) {
	e := newEnv(t, nil)
	id := "s-odd"
	e.publishRaw(e.b.subjects().Results(id), []byte(`["expected 2000000000, got 2000000001"]`))
	if code, body := e.status("/v1/submissions/"+id, tokenHeader(id)); code != http.StatusBadGateway || strings.Contains(body, secretLeak) || !strings.Contains(body, `"error"`) {
		t.Errorf("a result that is not an object, per-submission token: %d %s, want 502 with an error and no data", code, body)
	}
	if code, body := e.status("/v1/submissions/"+id, opAuth); code != http.StatusOK || !strings.Contains(body, secretLeak) {
		t.Errorf("the same, operator: %d %s", code, body)
	}

	// Odd shapes inside an event: the odd part is left out, the rest shown.
	id = "s-odd-events"
	e.publish(id, "test", map[string]any{"feedback_policy": "samples", "index": 1, "test": "expected 2000000000, got 2000000001"})
	e.publish(id, "test", map[string]any{"feedback_policy": "samples", "index": 2, "test": []any{secretFeedback}})
	e.publish(id, "test", map[string]any{"feedback_policy": "samples", "index": 3, "test": map[string]any{"name": "secret/1", "sample": "true", "feedback": secretFeedback}})
	e.publish(id, "test", map[string]any{"feedback_policy": []any{"all"}, "index": 4, "test": map[string]any{"name": "secret/1", "feedback": secretFeedback}})
	e.publish(id, "final", map[string]any{"feedback_policy": "samples", "result": map[string]any{"feedback_policy": "samples", "verdict": "WA",
		"tests": map[string]any{"feedback": secretFeedback}, "groups": "2000000001", "error": 2000000001, "error_test": "secret/1"}})
	body := e.streamBody("/v1/submissions/"+id+"/events", tokenHeader(id))
	evs := sseData(t, body)
	if strings.Contains(body, secretLeak) || len(evs) != 5 {
		t.Fatalf("odd events, per-submission token: %d events:\n%s", len(evs), body)
	}
	if evs[2]["test"].(map[string]any)["feedback_hidden"] != true || evs[4]["result"].(map[string]any)["verdict"] != "WA" {
		t.Errorf("odd events: %s", body)
	}
}
