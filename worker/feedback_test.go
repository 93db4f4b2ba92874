package worker

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// The precedence: the job, then the package, then the worker's default,
// then samples.
func TestEffectiveFeedback(t *testing.T) {
	const s, a, n = problem.FeedbackSamples, problem.FeedbackAll, problem.FeedbackNone
	for _, tc := range []struct {
		job, pkg, worker, want problem.FeedbackPolicy
	}{
		{"", "", "", s},
		{"", "", n, n},
		{"", a, n, a},   // the package beats the worker
		{n, a, a, n},    // the job beats both
		{a, n, n, a},    // also when it shows more
		{s, "", a, s},   // and when it names the default
		{"", n, "", n},  // a package alone
		{a, "", "", a},  // a job alone
		{"", s, a, s},   // a package naming the default still beats the worker
		{"", "", s, s},  // the worker naming the default
		{n, n, n, n},    // agreement
		{"", "", "", s}, // nothing set anywhere
	} {
		if got := EffectiveFeedback(tc.job, tc.pkg, tc.worker); got != tc.want {
			t.Errorf("job %q, package %q, worker %q: %q, want %q", tc.job, tc.pkg, tc.worker, got, tc.want)
		}
	}
}

func TestDecodeJobFeedbackPolicy(t *testing.T) {
	job := func(policy string) []byte {
		return []byte(`{"v":1,"submission_id":"s-1","problem":"aplusb","language":"cpp","files":{"a.cpp":""},"feedback_policy":` + policy + `}`)
	}
	for _, p := range []string{"samples", "all", "none", ""} {
		j, err := DecodeJob(job(`"`+p+`"`), 0)
		if err != nil || string(j.FeedbackPolicy) != p {
			t.Errorf("%q: %v, policy %q", p, err, j.FeedbackPolicy)
		}
	}
	for _, bad := range []string{`"secret"`, `"All"`, `"jury"`, `" all"`, `"` + strings.Repeat("x", 10000) + `"`} {
		j, err := DecodeJob(job(bad), 0)
		var pe *PoisonError
		if !errors.As(err, &pe) || pe.Verdict != verdict.SE ||
			!strings.HasPrefix(pe.Msg, "job feedback_policy: invalid feedback policy") || !strings.HasSuffix(pe.Msg, "want samples, all or none") || len(pe.Msg) > 200 {
			t.Errorf("%.40s: %v, want a short SE poison naming feedback_policy", bad, err)
		}
		if j.SubmissionID != "s-1" {
			t.Errorf("%.40s: the error result would go to %q", bad, j.SubmissionID)
		}
	}
	// Not a string: the whole job is malformed, and says so.
	if _, err := DecodeJob(job(`["all"]`), 0); err == nil || !strings.Contains(err.Error(), "malformed job") {
		t.Errorf("a list as the policy: %v", err)
	}
}

// A worker whose default is not a policy refuses to start.
func TestNewRefusesInvalidFeedback(t *testing.T) {
	_, nc, _ := embeddedJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, bad := range []problem.FeedbackPolicy{"everything", "SAMPLES", "samples,all"} {
		_, err := New(ctx, nc, NotJudging(), Config{Mode: ModeCapacityTest, Feedback: bad, EnsureInfra: true})
		if !errors.Is(err, problem.ErrFeedbackPolicy) || !strings.Contains(err.Error(), string(bad)) {
			t.Errorf("%q: %v, want ErrFeedbackPolicy naming the value", bad, err)
		}
	}
	w, err := New(ctx, nc, NotJudging(), Config{Mode: ModeCapacityTest, EnsureInfra: true})
	if err != nil || w.cfg.Feedback != problem.FeedbackSamples {
		t.Fatalf("no policy set: %v, default %q", err, w.cfg.Feedback)
	}
}

// Inline tests marked sample become data/sample tests.
func TestInlineSamples(t *testing.T) {
	p, err := WriteInline(filepath.Join(t.TempDir(), "inline"), &protocol.InlineProblem{Tests: []protocol.InlineTest{
		{Name: "big", Input: "1\n", Answer: "1\n"},
		{Name: "ex", Input: "2\n", Answer: "2\n", Sample: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range p.Tests {
		got = append(got, tc.Name+"="+map[bool]string{true: "sample", false: "secret"}[tc.Group.Sample()])
	}
	if strings.Join(got, ",") != "sample/002-ex=sample,secret/001-big=secret" {
		t.Errorf("tests %v", got)
	}
}

// Results that end a job before its problem is loaded carry a policy too
// (the job's when valid, else the worker's default): the bridge hides
// the error of a result without one.
func TestEarlyResultsCarryPolicy(t *testing.T) {
	js, ctx, wnc := aplusbStore(t)
	w, err := New(ctx, wnc, NotJudging(), Config{Name: "cap-fb", Mode: ModeCapacityTest, EnsureInfra: true, Feedback: problem.FeedbackNone,
		CacheDir: t.TempDir(), InlineDir: t.TempDir(), Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	subj := protocol.Subjects{Prefix: "docket"}
	job := func(id, prob, policy string) []byte {
		b, _ := json.Marshal(map[string]any{"v": 1, "submission_id": id, "problem": prob, "language": "cpp",
			"files": map[string]string{"main.cpp": "int main(){}"}, "feedback_policy": policy})
		return b
	}
	want := map[string]problem.FeedbackPolicy{}
	for id, c := range map[string]struct {
		body []byte
		want problem.FeedbackPolicy
	}{
		"early-job":        {job("early-job", "aplusb", "all"), problem.FeedbackAll},
		"early-default":    {job("early-default", "aplusb", ""), problem.FeedbackNone},
		"early-bad-policy": {job("early-bad-policy", "aplusb", "secret"), problem.FeedbackNone},
		"early-missing":    {job("early-missing", "no-such-problem", "samples"), problem.FeedbackSamples},
		"early-badjson":    {[]byte(`{"v":1,"submission_id":"early-badjson",`), problem.FeedbackNone},
	} {
		if _, err := js.Publish(ctx, subj.QueueJobs("default"), c.body, jetstream.WithMsgID(id)); err != nil {
			t.Fatal(err)
		}
		want[id] = c.want
	}
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx) }()
	defer func() { rcancel(); <-done }()
	rs, _ := js.Stream(ctx, protocol.ResultsStream)
	for id, policy := range want {
		var r verdict.Result
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if m, err := rs.GetLastMsgForSubject(ctx, subj.Results(id)); err == nil {
				json.Unmarshal(m.Data, &r)
				break
			}
		}
		if r.Verdict != verdict.SE || r.FeedbackPolicy != policy {
			t.Errorf("%s: verdict %q, feedback_policy %q; want SE and %q (error %q)", id, r.Verdict, r.FeedbackPolicy, policy, r.Error)
		}
	}
}
