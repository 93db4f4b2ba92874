package worker

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go/jetstream"
)

// TestJobSubjectForms: a queue's consumer made by an earlier docket (one
// filter, <prefix>.jobs.<queue>) is updated in place by a new worker and
// its waiting job is answered; jobs on <prefix>.jobs.<queue>.<id> are
// taken; a job whose subject names another submission than its
// submission_id is answered SE under its submission_id.
func TestJobSubjectForms(t *testing.T) {
	_, _, js := embeddedJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	subj := protocol.Subjects{Prefix: "docket"}
	// The earlier docket's consumer: the same but for its one filter.
	old := protocol.ConsumerConfig(protocol.ConsumerOptions{Prefix: "docket", Queue: "default", AckWait: 30 * time.Second, MaxDeliver: 5})
	old.FilterSubjects, old.FilterSubject = nil, subj.QueueJobs("default")
	if _, err := js.CreateOrUpdateConsumer(ctx, protocol.JobsStream, old); err != nil {
		t.Fatal(err)
	}
	publish := func(subject, id string) {
		t.Helper()
		body, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: id, Problem: "aplusb", Language: "cpp", Files: map[string]string{"a.cpp": ""}})
		if _, err := js.Publish(ctx, subject, body, jetstream.WithMsgID(id)); err != nil {
			t.Fatal(err)
		}
	}
	publish(subj.QueueJobs("default"), "old-form")
	startCapacityWorker(t, ctx, js, Config{})
	publish(subj.Job("default", "new-form"), "new-form")
	publish(subj.Job("default", "named-in-subject"), "in-payload")

	for _, id := range []string{"old-form", "new-form"} {
		// Taken and answered (the problem is not in the store: SE).
		if r := waitResult(t, ctx, js, id, 20*time.Second); r == nil || r.Worker != "cap-answer" || !strings.Contains(r.Error, "problem not found") {
			t.Errorf("%s: result %+v, want the worker's answer", id, r)
		}
	}
	r := waitResult(t, ctx, js, "in-payload", 20*time.Second)
	if r == nil || r.Verdict != protocol.SE || !strings.Contains(r.Error, `names submission "named-in-subject"`) {
		t.Errorf("mismatched subject: result %+v, want SE naming both ids", r)
	}
	c, err := js.Consumer(ctx, protocol.JobsStream, protocol.ConsumerName("default"))
	if err != nil {
		t.Fatal(err)
	}
	if f := c.CachedInfo().Config.FilterSubjects; len(f) != 2 || c.CachedInfo().Config.FilterSubject != "" {
		t.Errorf("consumer filter after the update: %q %v, want both forms", c.CachedInfo().Config.FilterSubject, f)
	}
}

// TestWorkerRefusesBadQueueNames: a queue is one subject token.
func TestWorkerRefusesBadQueueNames(t *testing.T) {
	_, nc, _ := embeddedJS(t)
	for _, q := range []string{"contest.a", "a b", "*", ">"} {
		if _, err := New(context.Background(), nc, NotJudging(), Config{Mode: ModeCapacityTest, Queue: q, CacheDir: t.TempDir(), InlineDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "queue") {
			t.Errorf("queue %q: %v, want refused", q, err)
		}
	}
}
