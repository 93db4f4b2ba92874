package worker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// testJudge is a judge on a slot of a fresh full sandbox, closed with
// the test; the test skips, saying why, without root. Its uids (65100,
// 65101) are no other test's: the sandbox and verdict tests and the
// burst benchmark use their own.
func testJudge(t *testing.T) *verdict.Judge {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("judging needs the full sandbox, which needs root")
	}
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 65100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	slot, err := sb.AcquireSlot()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(slot.Release)
	return &verdict.Judge{Slot: slot, Langs: langs.Builtin(), WorkDir: t.TempDir(), CacheDir: t.TempDir()}
}

// aplusbJob is a job for problems/aplusb with one of its submissions.
func aplusbJob(t *testing.T, id, lang, file string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../problems/aplusb/submissions", file))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: id, Problem: "aplusb", Language: lang,
		Files: map[string]string{filepath.Base(file): string(src)}})
	return b
}

// A judging worker judges real submissions of problems/aplusb in the
// sandbox: each gets its verdict, exactly one result and one final
// event (the last of its events, after its progress), and is acked.
func TestJudgingWorkerVerdicts(t *testing.T) {
	j := testJudge(t)
	js, ctx, wnc := aplusbStore(t)
	w, err := New(ctx, wnc, Judging(j), Config{Name: "judge-0", EnsureInfra: true, CacheDir: t.TempDir(), InlineDir: t.TempDir(), Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	subj := protocol.Subjects{Prefix: "docket"}
	want := map[string]verdict.Verdict{"j-ac": verdict.AC, "j-wa": verdict.WA, "j-ce": verdict.CE}
	for id, body := range map[string][]byte{
		"j-ac": aplusbJob(t, "j-ac", "python3", "accepted/main.py"),
		"j-wa": aplusbJob(t, "j-wa", "c", "wrong_answer/minus.c"),
		"j-ce": aplusbJob(t, "j-ce", "cpp", "compile_error/syntax.cpp"),
	} {
		if _, err := js.Publish(ctx, subj.QueueJobs("default"), body, jetstream.WithMsgID(id)); err != nil {
			t.Fatal(err)
		}
	}
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx) }()
	for id, v := range want {
		r := waitResult(t, ctx, js, id, 50*time.Second)
		if r == nil {
			t.Fatalf("%s: no result", id)
		}
		if r.Verdict != v || r.Problem != "aplusb" || r.Worker != "judge-0" || r.Attempt != 1 || r.FeedbackPolicy != problem.DefaultFeedback {
			t.Errorf("%s: %s (%q) problem %q worker %q attempt %d policy %q; want %s from judge-0, attempt 1, %q",
				id, r.Verdict, r.Error, r.Problem, r.Worker, r.Attempt, r.FeedbackPolicy, v, problem.DefaultFeedback)
		}
		if v != verdict.CE && len(r.Tests) == 0 {
			t.Errorf("%s: no tests in the result", id)
		}
	}
	rcancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for id := range want {
		checkOneFinal(t, ctx, js, id)
	}
	s, _ := js.Stream(ctx, protocol.JobsStream)
	if info, err := s.Info(ctx); err != nil || info.State.Msgs != 0 {
		t.Errorf("jobs stream after the run: %v %+v", err, info.State)
	}
}

// checkOneFinal fails the test unless the submission has one stored
// result and its events end with their one final event, after a started
// event and its progress.
func checkOneFinal(t *testing.T, ctx context.Context, js jetstream.JetStream, id string) {
	t.Helper()
	subj := protocol.Subjects{Prefix: "docket"}
	rs, _ := js.Stream(ctx, protocol.ResultsStream)
	info, err := rs.Info(ctx, jetstream.WithSubjectFilter(subj.Results(id)))
	if err != nil || info.State.Subjects[subj.Results(id)] != 1 {
		t.Errorf("%s: results stored %v (%v), want 1", id, info.State.Subjects, err)
	}
	evs := eventsOf(t, ctx, js, subj.Events(id))
	finals := 0
	for _, e := range evs {
		if e.Type == protocol.EventFinal {
			finals++
		}
	}
	if finals != 1 || len(evs) < 3 || evs[0].Type != protocol.EventStarted || evs[len(evs)-1].Type != protocol.EventFinal {
		var types []string
		for _, e := range evs {
			types = append(types, string(e.Type))
		}
		t.Errorf("%s: events %s; want started, progress, one final last", id, strings.Join(types, ","))
	}
}

// NotJudging, the capacity test's judger, answers with the fixed
// not-judged result and the early policy, whatever the problem, and
// resolves languages against the built-in catalog.
func TestNotJudgingFixedResult(t *testing.T) {
	p := &problem.Problem{ID: "aplusb", Feedback: problem.FeedbackAll}
	job := &protocol.Job{SubmissionID: "nj-1", Problem: "aplusb", Language: "cpp17"}
	res, err := NotJudging().Judge(context.Background(), Task{Job: job, Problem: p, Feedback: problem.FeedbackAll, EarlyFeedback: problem.FeedbackNone})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.SE || res.Error != NotJudgedError || res.SubmissionID != "nj-1" || res.Score != 0 || res.MaxScore != 0 ||
		len(res.Tests) != 0 || res.Tests == nil || res.Problem != "" || res.FeedbackPolicy != problem.FeedbackNone {
		t.Errorf("NotJudging result %+v; want the fixed not-judged SE with the early policy", res)
	}
	if l, err := NotJudging().Langs().Lookup("cpp17"); err != nil || l.ID == "" {
		t.Errorf("NotJudging's catalog: cpp17 %v, %v", l, err)
	}
}
