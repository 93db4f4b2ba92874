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
)

// A job on a queue no worker ever served (a typo) is answered SE after
// UnservedWait and removed; a job on a queue whose consumer exists but
// whose workers are away keeps waiting for them.
func TestUnservedQueueAnsweredSE(t *testing.T) {
	_, _, js := embeddedJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	subj := protocol.Subjects{Prefix: "docket"}
	// A queue with a consumer and no worker: its job must stay.
	if _, err := protocol.EnsureConsumer(ctx, js, protocol.ConsumerOptions{Prefix: "docket", Queue: "idle", AckWait: 30 * time.Second, MaxDeliver: 3}); err != nil {
		t.Fatal(err)
	}
	job := func(id string) []byte {
		b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: id, Problem: "aplusb", Language: "cpp", Files: map[string]string{"main.cpp": "int main(){}"}})
		return b
	}
	published := time.Now()
	for subject, id := range map[string]string{
		subj.Job("defualt", "typo-1"): "typo-1", // a typo, the subject's form
		subj.QueueJobs("defualt2"):    "typo-3", // a typo, the first form
		"docket.jobs.a.b.c":           "typo-2", // neither form: no consumer takes it
		subj.Job("idle", "idle-1"):    "idle-1",
	} {
		if _, err := js.Publish(ctx, subject, job(id), jetstream.WithMsgID(id)); err != nil {
			t.Fatal(err)
		}
	}
	const after = 1500 * time.Millisecond
	startCapacityWorker(t, ctx, js, Config{UnservedWait: after})
	for id, queue := range map[string]string{"typo-1": `"defualt"`, "typo-2": `"a"`, "typo-3": `"defualt2"`} {
		r := waitResult(t, ctx, js, id, 20*time.Second)
		if r == nil {
			t.Fatalf("%s: no result: a job on an unserved queue waits forever", id)
		}
		if r.Verdict != verdict.SE || !strings.Contains(r.Error, "no worker serves queue "+queue) {
			t.Errorf("%s: verdict %s, error %q; want SE naming the queue %s", id, r.Verdict, r.Error, queue)
		}
		if waited := time.Since(published); waited < after {
			t.Errorf("%s answered after %v, before its %v were up", id, waited, after)
		}
	}
	time.Sleep(2 * after) // the idle queue's job outlives its time, and stays
	if r := waitResult(t, ctx, js, "idle-1", 0); r != nil {
		t.Errorf("a job on a served (idle) queue was answered: %+v", r)
	}
	s, _ := js.Stream(ctx, protocol.JobsStream)
	info, err := s.Info(ctx, jetstream.WithSubjectFilter("docket.jobs.>"))
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 || info.State.Subjects["docket.jobs.idle.idle-1"] != 1 {
		t.Errorf("jobs stream holds %d jobs on %v; want the idle queue's one only", info.State.Msgs, info.State.Subjects)
	}
}

func TestSubjectMatches(t *testing.T) {
	for _, tc := range []struct {
		filter, subject string
		want            bool
	}{
		{"docket.jobs.default", "docket.jobs.default", true},
		{"docket.jobs.default", "docket.jobs.defualt", false},
		{"docket.jobs.default", "docket.jobs.default.x", false},
		{"docket.jobs.*", "docket.jobs.cpp", true},
		{"docket.jobs.*", "docket.jobs.a.b", false},
		{"docket.jobs.>", "docket.jobs.a.b", true},
		{"docket.jobs.>", "docket.jobs", false},
		{">", "docket.jobs.x", true},
		{"docket.*.default", "docket.jobs.default", true},
	} {
		if got := subjectMatches(tc.filter, tc.subject); got != tc.want {
			t.Errorf("%s ~ %s: %v, want %v", tc.filter, tc.subject, got, tc.want)
		}
	}
}
