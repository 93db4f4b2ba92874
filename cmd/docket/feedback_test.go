package main

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/bridge"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/docketjudge/docket/worker"
)

// Wrong on the secret test 01-max only (a+b = 2000000000): its feedback
// is the "expected 2000000000, got 2000000001".
const cppSecretWA = "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;long long s=a+b;if(s==2000000000LL)s++;std::cout<<s<<\"\\n\";}\n"

// Wrong on every test, so on the sample first.
const cppSampleWA = "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b+1<<\"\\n\";}\n"

// TestFeedbackPolicyEndToEnd: a real worker process judges real
// submissions, and the bridge shows the results to the operator and to
// the per-submission token. The worker's default is all, the package
// aplusb-jury says none, and some jobs say otherwise: the job beats the
// package, which beats the worker.
func TestFeedbackPolicyEndToEnd(t *testing.T) {
	f := newQueueFixture(t, "10s")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	jury := filepath.Join(t.TempDir(), "aplusb-jury")
	copyTree(t, "../../problems/aplusb", jury)
	appendFile(t, filepath.Join(jury, "problem.yaml"), "docket:\n  feedback: none\n")
	if _, _, err := worker.Push(ctx, f.js, jury); err != nil {
		t.Fatal(err)
	}
	f.env = append(f.env, "DOCKET_FEEDBACK_POLICY=all")
	f.startWorker("w-feedback")

	const opToken, secret = "op-token", "feedback-secret"
	br, err := bridge.New(f.js, bridge.Config{Token: opToken, HMACSecret: []byte(secret)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(br.Handler())
	t.Cleanup(func() { br.CloseStreams(); srv.Close() })

	const all, samples, none = problem.FeedbackAll, problem.FeedbackSamples, problem.FeedbackNone
	cases := []struct {
		id, problem, src string
		job, want        problem.FeedbackPolicy
		failing          string // the test whose feedback is checked
		shown            bool   // to the per-submission token
	}{
		{"fb-worker", "aplusb", cppSecretWA, "", all, "secret/01-max", true},                // the worker's default
		{"fb-package", "aplusb-jury", cppSecretWA, "", none, "secret/01-max", false},        // the package beats the worker
		{"fb-job", "aplusb-jury", cppSecretWA, all, all, "secret/01-max", true},             // the job beats the package
		{"fb-job-samples", "aplusb", cppSecretWA, samples, samples, "secret/01-max", false}, // and the worker
		{"fb-sample", "aplusb", cppSampleWA, samples, samples, "sample/1", true},            // a sample's details are public
		{"fb-sample-none", "aplusb-jury", cppSampleWA, "", none, "sample/1", false},         // unless the policy is none
	}
	for _, c := range cases {
		b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: c.id, Problem: c.problem, Language: "cpp",
			Files: map[string]string{"main.cpp": c.src}, FeedbackPolicy: c.job})
		f.submitRaw("default", c.id, b)
	}
	get := func(path string, header string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		return string(body)
	}
	for _, c := range cases {
		r := f.result(c.id, 90*time.Second)
		fb := failingFeedback(t, c.id, r, c.failing)
		if r["feedback_policy"] != string(c.want) {
			t.Errorf("%s: feedback_policy %v, want %s", c.id, r["feedback_policy"], c.want)
		}
		for _, ev := range f.events(c.id) {
			if ev.Type != "started" && ev.FeedbackPolicy != c.want {
				t.Errorf("%s: %s event with feedback_policy %q, want %s", c.id, ev.Type, ev.FeedbackPolicy, c.want)
			}
		}
		// As the bridge's JSON writes it (the same encoder on both paths).
		enc, _ := json.Marshal(fb)
		needle := strings.Trim(string(enc), `"`)
		base := "/v1/submissions/" + c.id
		token := bridge.SubmissionToken([]byte(secret), c.id)
		op := get(base+"/events", "Bearer "+opToken) + get(base, "Bearer "+opToken)
		if !strings.Contains(op, needle) {
			t.Errorf("%s: the operator does not see %q", c.id, fb)
		}
		for _, who := range []struct{ query, header string }{{"?token=" + token, ""}, {"", "Bearer " + token}} {
			seen := get(base+"/events"+who.query, who.header) + get(base+who.query, who.header)
			if strings.Contains(seen, needle) != c.shown {
				t.Errorf("%s (policy %s): the per-submission token sees %q: %v, want %v:\n%s", c.id, c.want, fb, !c.shown, c.shown, seen)
			}
			if !c.shown && strings.Contains(seen, "2000000001") {
				t.Errorf("%s: the per-submission token sees the program's wrong number:\n%s", c.id, seen)
			}
			if !strings.Contains(seen, `"verdict":"WA"`) {
				t.Errorf("%s: the per-submission token does not see the verdict:\n%s", c.id, seen)
			}
		}
	}
}

// failingFeedback is the feedback of the result's test name, which must
// be a wrong answer with some; it checks the test's sample flag too.
func failingFeedback(t *testing.T, id string, r map[string]any, name string) string {
	t.Helper()
	tests, _ := r["tests"].([]any)
	for _, x := range tests {
		tm, _ := x.(map[string]any)
		if tm["name"] != name {
			continue
		}
		fb, _ := tm["feedback"].(string)
		if tm["verdict"] != "WA" || fb == "" || tm["sample"] != strings.HasPrefix(name, "sample/") {
			t.Fatalf("%s: test %s: %v", id, name, tm)
		}
		if name == "secret/01-max" && !strings.Contains(fb, "expected 2000000000, got 2000000001") {
			t.Fatalf("%s: feedback %q, want the issue's example", id, fb)
		}
		return fb
	}
	t.Fatalf("%s: no test %s in %v (error %v)", id, name, r["verdict"], r["error"])
	return ""
}

// Workers refuse a default feedback policy they do not know, from the
// environment or the flag, before they connect to anything.
func TestFeedbackPolicyRefusal(t *testing.T) {
	bin := docketBinary(t)
	dead := "DOCKET_NATS_URL=nats://127.0.0.1:" + freePort(t)
	for _, c := range []struct {
		args []string
		env  string
		code int
		want string
	}{
		{[]string{"worker"}, "DOCKET_FEEDBACK_POLICY=secret", exitUsage, `DOCKET_FEEDBACK_POLICY: invalid feedback policy "secret": want samples, all or none`},
		{[]string{"worker", "--feedback-policy", "ALL"}, "", exitUsage, `--feedback-policy: invalid feedback policy "ALL"`},
		{[]string{"worker", "--feedback-policy", "none"}, "DOCKET_FEEDBACK_POLICY=bogus", exitUsage, "DOCKET_FEEDBACK_POLICY: invalid"},
		{[]string{"worker", "--feedback-policy", "none"}, "", exitSystem, "no NATS"}, // past the check
		{[]string{"worker"}, "DOCKET_FEEDBACK_POLICY=all", exitSystem, "no NATS"},
		{[]string{"serve", "--data", t.TempDir()}, "DOCKET_FEEDBACK_POLICY=everything", exitUsage, "docket serve: DOCKET_FEEDBACK_POLICY: invalid"},
		{[]string{"serve", "--data", t.TempDir(), "--feedback-policy", "jury"}, "", exitUsage, "docket serve: --feedback-policy: invalid"},
	} {
		expectExit(t, bin, c.args, []string{dead, c.env}, c.code, c.want)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
