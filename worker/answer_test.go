package worker

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// startCapacityWorker runs a worker that judges nothing on the test's
// server: the jobs below end before judging, at decoding, where a
// judging worker and this one take the same path.
func startCapacityWorker(t *testing.T, ctx context.Context, js jetstream.JetStream, cfg Config) {
	t.Helper()
	nc := js.Conn()
	cfg.Mode, cfg.EnsureInfra, cfg.Logger = ModeCapacityTest, true, zerolog.Nop()
	cfg.CacheDir, cfg.InlineDir = t.TempDir(), t.TempDir()
	if cfg.Name == "" {
		cfg.Name = "cap-answer"
	}
	w, err := New(ctx, nc, NotJudging(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx) }()
	t.Cleanup(func() { rcancel(); <-done })
}

// waitResult polls DOCKET_RESULTS for one submission's result.
func waitResult(t *testing.T, ctx context.Context, js jetstream.JetStream, id string, within time.Duration) *verdict.Result {
	t.Helper()
	rs, err := js.Stream(ctx, protocol.ResultsStream)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m, err := rs.GetLastMsgForSubject(ctx, protocol.Subjects{Prefix: "docket"}.Results(id)); err == nil {
			var r verdict.Result
			if err := json.Unmarshal(m.Data, &r); err != nil {
				t.Fatalf("result for %s: %v", id, err)
			}
			return &r
		}
	}
	return nil
}

// deadLetters reads every dead letter stored so far.
func deadLetters(t *testing.T, ctx context.Context, js jetstream.JetStream) []protocol.DeadLetter {
	t.Helper()
	s, err := js.Stream(ctx, protocol.DeadLetterStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []protocol.DeadLetter
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			continue
		}
		var dl protocol.DeadLetter
		if err := json.Unmarshal(m.Data, &dl); err != nil {
			t.Fatalf("dead letter %d: %v", seq, err)
		}
		out = append(out, dl)
	}
	return out
}

// Every job that reaches the stream gets one final answer: under its
// submission_id, else its Nats-Msg-Id, else a dead letter carrying the
// stream sequence and the reason.
func TestEveryJobAnswered(t *testing.T) {
	_, _, js := embeddedJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	valid := func(id string) []byte {
		b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: id, Problem: "aplusb", Language: "cpp", Files: map[string]string{"main.cpp": "int main(){}"}})
		return b
	}
	pub := func(msgID string, body []byte) uint64 {
		t.Helper()
		var opts []jetstream.PublishOpt
		if msgID != "" {
			opts = append(opts, jetstream.WithMsgID(msgID))
		}
		ack, err := js.Publish(ctx, protocol.Subjects{Prefix: "docket"}.QueueJobs("default"), body, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return ack.Sequence
	}
	// Under the Nats-Msg-Id: the submission_id invalid, or unreadable.
	underMsgID := map[string]string{
		"msgid-space": "invalid submission_id \"bad id!\"",
		"msgid-dot":   "invalid submission_id \"x.y\"",
		"msgid-json":  "malformed job",
	}
	pub("msgid-space", valid("bad id!"))
	pub("msgid-dot", valid("x.y"))
	pub("msgid-json", []byte(`{"v":1,"submission_id":"bad id!",`))
	// Nowhere but the dead letters: no valid id at all.
	badID := pub("", valid("bad id!"))
	deadSeqs := map[uint64]string{
		badID: "invalid submission_id \"bad id!\"",
		pub("", []byte(`{"v":1,"submission_id":`)):   "malformed job",
		pub("also bad", []byte("\xff\xfe not json")): "malformed job",
		pub("", []byte(strings.Repeat("x", 4<<10))):  "malformed job",
	}
	startCapacityWorker(t, ctx, js, Config{})
	for id, reason := range underMsgID {
		r := waitResult(t, ctx, js, id, 30*time.Second)
		if r == nil {
			t.Errorf("%s: no result under the Nats-Msg-Id", id)
			continue
		}
		if r.Verdict != verdict.SE || !strings.HasPrefix(r.Error, reason) || r.SubmissionID != id {
			t.Errorf("%s: verdict %s, submission_id %q, error %q; want SE under the msg id, error %q...", id, r.Verdict, r.SubmissionID, r.Error, reason)
		}
	}
	var got []protocol.DeadLetter
	for deadline := time.Now().Add(30 * time.Second); len(got) < len(deadSeqs) && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		got = deadLetters(t, ctx, js)
	}
	if len(got) != len(deadSeqs) {
		t.Fatalf("%d dead letters, want %d: %+v", len(got), len(deadSeqs), got)
	}
	for _, dl := range got {
		reason, ok := deadSeqs[dl.StreamSeq]
		if !ok || dl.Stream != protocol.JobsStream || dl.Subject != "docket.jobs.default" || dl.Verdict != verdict.SE || !strings.HasPrefix(dl.Reason, reason) {
			t.Errorf("dead letter %+v: want stream seq in %v with reason %q", dl, deadSeqs, reason)
		}
		if dl.PayloadBytes == 0 || len(dl.PayloadHead) > 3*deadLetterHead || dl.Stored.IsZero() {
			t.Errorf("dead letter %d: payload %d bytes, head of %d, stored %v", dl.StreamSeq, dl.PayloadBytes, len(dl.PayloadHead), dl.Stored)
		}
	}
	for _, dl := range got {
		if dl.StreamSeq == badID && dl.SubmissionID != "bad id!" {
			t.Errorf("dead letter of the invalid id quotes submission_id %q", dl.SubmissionID)
		}
	}
	jobsEmpty(t, ctx, js)
}

// jobsEmpty waits until the jobs stream holds nothing: every job above
// was terminated, none waits for a redelivery.
func jobsEmpty(t *testing.T, ctx context.Context, js jetstream.JetStream) {
	t.Helper()
	s, err := js.Stream(ctx, protocol.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n = info.State.Msgs; n == 0 {
			return
		}
	}
	t.Errorf("%d jobs still in the stream", n)
}

// A source over the default DOCKET_MAX_SOURCE_BYTES, published raw (the
// message itself far under the server's max_payload), is CE.
func TestOversizeSourceCE(t *testing.T) {
	_, _, js := embeddedJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	big := strings.Repeat("x", DefaultMaxSource+1)
	b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: "too-big", Problem: "aplusb", Language: "cpp", Files: map[string]string{"main.cpp": big}})
	if _, err := js.Publish(ctx, protocol.Subjects{Prefix: "docket"}.QueueJobs("default"), b, jetstream.WithMsgID("too-big")); err != nil {
		t.Fatal(err)
	}
	startCapacityWorker(t, ctx, js, Config{})
	r := waitResult(t, ctx, js, "too-big", 30*time.Second)
	if r == nil || r.Verdict != verdict.CE || !strings.Contains(r.Error, "over the limit") {
		t.Fatalf("result %+v, want CE over the limit", r)
	}
}
