package worker

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

func TestParseModeRefusesAllButExactNames(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeJudge, "judge": ModeJudge, "capacity-test-no-judging": ModeCapacityTest} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"capacity", "capacity-test", "CAPACITY-TEST-NO-JUDGING", " capacity-test-no-judging", "nojudge", "1", "true", "Judge"} {
		if got, err := ParseMode(in); err == nil || !strings.Contains(err.Error(), "unknown worker mode") {
			t.Errorf("ParseMode(%q) = %q, %v; want an unknown-mode error", in, got, err)
		}
	}
}

func TestNewRefusesUnknownModeAndJudgelessJudging(t *testing.T) {
	_, nc, _ := embeddedJS(t)
	ctx := context.Background()
	if _, err := New(ctx, nc, nil, Config{Mode: "capacity", Logger: zerolog.Nop()}); err == nil || !strings.Contains(err.Error(), "unknown worker mode") {
		t.Errorf("mode \"capacity\": %v, want an unknown-mode error", err)
	}
	if _, err := New(ctx, nc, nil, Config{Logger: zerolog.Nop()}); err == nil || !strings.Contains(err.Error(), "needs a judge") {
		t.Errorf("judge mode without a judge: %v, want refused", err)
	}
	if _, err := New(ctx, nc, Judging(nil), Config{Logger: zerolog.Nop()}); err == nil || !strings.Contains(err.Error(), "needs a judge") {
		t.Errorf("judge mode with Judging(nil): %v, want refused", err)
	}
	// The judger must be the mode's: no worker acks without judging
	// unless ModeCapacityTest was asked for by name, and none judges when
	// it was.
	if _, err := New(ctx, nc, NotJudging(), Config{Logger: zerolog.Nop()}); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("judge mode with NotJudging: %v, want refused", err)
	}
	if _, err := New(ctx, nc, Judging(&verdict.Judge{}), Config{Mode: ModeCapacityTest, Logger: zerolog.Nop()}); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("capacity mode with a judge: %v, want refused", err)
	}
}

// The capacity mode takes the real protocol path: a pushed problem is
// looked up in the store, a missing one still ends SE with its own error,
// bad JSON is still terminated with its error result, and every good job
// gets exactly the fixed not-judged result, a started and a final event
// with Nats-Msg-Id, and is acked (nothing left on the queue).
func TestCapacityModeAcksWithFixedResult(t *testing.T) {
	js, ctx, wnc := aplusbStore(t)
	logs := &syncWriter{}
	w, err := New(ctx, wnc, NotJudging(), Config{Name: "cap-0", Mode: ModeCapacityTest, EnsureInfra: true, AckWait: 3 * time.Second,
		CacheDir: t.TempDir(), InlineDir: t.TempDir(), Logger: zerolog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	subj := protocol.Subjects{Prefix: "docket"}
	good := publishCapacityJobs(t, ctx, js, subj)
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx) }()
	results := waitForResults(t, ctx, js, subj, append(append([]string{}, good...), "cap-missing", "cap-badjson"), 30*time.Second)
	rcancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, id := range good {
		r, ok := results[id]
		if !ok {
			t.Errorf("%s: no result", id)
			continue
		}
		if r.Verdict != verdict.SE || r.Error != NotJudgedError || r.Score != 0 || len(r.Tests) != 0 || r.Worker != "cap-0" || r.Attempt != 1 {
			t.Errorf("%s: %+v, want the fixed not-judged SE", id, r)
		}
		evs := eventsOf(t, ctx, js, subj.Events(id))
		if len(evs) != 2 || evs[0].Type != "started" || evs[1].Type != "final" || evs[1].Result == nil || evs[1].Result.Error != NotJudgedError {
			t.Errorf("%s: events %+v, want started then final", id, evs)
		}
	}
	if r := results["cap-missing"]; r.Verdict != verdict.SE || !strings.Contains(r.Error, "no-such-problem") {
		t.Errorf("missing problem: %+v, want the store's own SE error, not the fixed result", r)
	}
	if r := results["cap-badjson"]; r.Verdict != verdict.SE || r.Error == NotJudgedError || r.Error == "" {
		t.Errorf("bad JSON: %+v, want its decode error", r)
	}
	// Everything acked or terminated: nothing on the work queue.
	js2, _ := js.Stream(ctx, protocol.JobsStream)
	if info, err := js2.Info(ctx); err != nil || info.State.Msgs != 0 {
		t.Errorf("jobs stream after the run: %v %+v", err, info.State)
	}
	if !strings.Contains(logs.String(), "CAPACITY TEST MODE") {
		t.Errorf("no start-up warning in the log:\n%s", logs.String())
	}
}

// publishCapacityJobs publishes four good jobs (three of aplusb, one
// inline), one of a missing problem and one of bad JSON; it returns the
// good jobs' ids.
func publishCapacityJobs(t *testing.T, ctx context.Context, js jetstream.JetStream, subj protocol.Subjects) []string {
	t.Helper()
	publish := func(id string, body []byte) {
		if _, err := js.Publish(ctx, subj.QueueJobs("default"), body, jetstream.WithMsgID(id)); err != nil {
			t.Fatal(err)
		}
	}
	good := []string{"cap-a", "cap-b", "cap-c"}
	for _, id := range good {
		b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: id, Problem: "aplusb", Language: "cpp17", Files: map[string]string{"main.cpp": "int main(){}"}})
		publish(id, b)
	}
	inl, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: "cap-inline", Language: "python3", Files: map[string]string{"a.py": "print(3)"},
		InlineProblem: &protocol.InlineProblem{Tests: []protocol.InlineTest{{Input: "1 2\n", Answer: "3\n"}}}})
	publish("cap-inline", inl)
	missing, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: "cap-missing", Problem: "no-such-problem", Language: "cpp17", Files: map[string]string{"main.cpp": "x"}})
	publish("cap-missing", missing)
	publish("cap-badjson", []byte(`{"v":1, "submission_id": "cap-badjson", `))
	return append(good, "cap-inline")
}

// waitForResults reads the stored result of each id until all are there
// or the time is up, checking each one's Nats-Msg-Id.
func waitForResults(t *testing.T, ctx context.Context, js jetstream.JetStream, subj protocol.Subjects, ids []string, within time.Duration) map[string]verdict.Result {
	t.Helper()
	results := map[string]verdict.Result{}
	deadline := time.Now().Add(within)
	rs, _ := js.Stream(ctx, protocol.ResultsStream)
	for len(results) < len(ids) && time.Now().Before(deadline) {
		for _, id := range ids {
			if _, ok := results[id]; ok {
				continue
			}
			m, err := rs.GetLastMsgForSubject(ctx, subj.Results(id))
			if err != nil {
				continue
			}
			if got := m.Header.Get("Nats-Msg-Id"); got != id+":result" {
				t.Errorf("%s: result Nats-Msg-Id %q", id, got)
			}
			var r verdict.Result
			if err := json.Unmarshal(m.Data, &r); err != nil {
				t.Fatal(err)
			}
			results[id] = r
		}
		time.Sleep(50 * time.Millisecond)
	}
	return results
}

func eventsOf(t *testing.T, ctx context.Context, js jetstream.JetStream, subject string) []protocol.Event {
	t.Helper()
	s, err := js.Stream(ctx, protocol.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	oc, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	if err != nil {
		t.Fatal(err)
	}
	var evs []protocol.Event
	for {
		m, err := oc.Next(jetstream.FetchMaxWait(300 * time.Millisecond))
		if err != nil {
			return evs
		}
		if got, want := m.Headers().Get("Nats-Msg-Id"), ""; got == want {
			t.Errorf("%s: event without Nats-Msg-Id", subject)
		}
		var e protocol.Event
		json.Unmarshal(m.Data(), &e)
		evs = append(evs, e)
	}
}

// syncWriter collects a log that goroutines write to.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
