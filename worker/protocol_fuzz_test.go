package worker

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
)

// maxErrorLen bounds an error message that goes into a final result: the
// result must fit in a NATS message however large the bad job was.
const maxErrorLen = 1024

func FuzzDecodeJob(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"submission_id":"s-42","problem":"aplusb","language":"cpp17","files":{"main.cpp":"int main(){}"},"limits":{"time_ms":2000,"memory_mb":256}}`,
		`{"v":1,"submission_id":"s-1","problem":"aplusb","problem_digest":"sha256:00","language":"py3","files":{"a.py":"print(1)","b.py":""}}`,
		`{"v":1,"submission_id":"i_1","language":"py3","files":{"a.py":"print(input())"},"inline_problem":{"tests":[{"name":"t1","input":"1\n","answer":"1\n"}],"validator_flags":"float_tolerance 1e-6","time_ms":500,"memory_mb":64}}`,
		`{"v":2,"submission_id":"s","problem":"p","language":"c","files":{"a.c":""}}`,
		`{"v":1,"submission_id":"../x","problem":"p","language":"c","files":{"a.c":""}}`,
		`{"v":1,"submission_id":"s","problem":"p/q","language":"c","files":{"a.c":""}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"c","files":{"../a.c":""}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"c","files":{"a\\b":"","c":""}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"c","files":{"main.c":"","@opts":"-wrapper /bin/sh,-c,id"}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"go","files":{"main.go":"","-toolexec=sh":""}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"c","files":{}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"c","files":{"a":""},"inline_problem":{"tests":[]}}`,
		`{"v":1,"submission_id":"s","language":"c","files":{"a":""},"inline_problem":{"tests":[]}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"c","files":{"a":""},"limits":{"time_ms":-1}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"c","files":{"a":""},"limits":{"time_ms":600001}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"","files":{"a":""}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"c","files":{"a":"0123456789012345678901234567890123456789"}}`,
		`{"V":1,"SUBMISSION_ID":"s","Problem":"p","language":"c","files":{"a":"\u0000\udc00"}}`,
		`{"v":1,"submission_id":"s","submission_id":"t","problem":"p","language":"c","files":{"a":""}}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"c","files":{"a":""},"feedback_policy":"none"}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"java","files":{"A.java":""},"entry_point":"contest.a.Sol"}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"py3","files":{"a.py":""},"entry_point":"-c"}`,
		`{"v":1,"submission_id":"s","problem":"p","language":"c","files":{"a":""},"feedback_policy":"secret"}`,
		`{"v":1,"submission_id":"s","language":"c","files":{"a":""},"inline_problem":{"tests":[{"input":"1","answer":"1","sample":true}]},"feedback_policy":"all"}`,
		`{"submission_id":"s-9","files":7}`,
		`{"v":1e400}`, `[]`, `null`, `"x"`, ``, `{`, "\xff\xfe",
	} {
		f.Add([]byte(s), 32)
	}
	f.Fuzz(func(t *testing.T, data []byte, maxSource int) {
		job, err := DecodeJob(data, maxSource)
		if job == nil {
			t.Fatalf("nil job (error %v)", err)
		}
		if err != nil {
			var pe *PoisonError
			if !errors.As(err, &pe) || (pe.Verdict != verdict.SE && pe.Verdict != verdict.CE) {
				t.Fatalf("error %T %v: want a PoisonError with SE or CE", err, err)
			}
			if pe.Msg == "" || len(pe.Msg) > maxErrorLen {
				t.Fatalf("error message of %d bytes: %.200q", len(pe.Msg), pe.Msg)
			}
			return
		}
		checkValidJob(t, job, maxSource)
		// What a valid job re-encodes to decodes to the same job.
		again, err := json.Marshal(job)
		if err != nil {
			t.Fatalf("re-encode %+v: %v", job, err)
		}
		back, err := DecodeJob(again, maxSource)
		if err != nil {
			t.Fatalf("re-encoded job %s rejected: %v", again, err)
		}
		if !reflect.DeepEqual(job, back) {
			t.Fatalf("round trip changed the job:\n  %+v\n  %+v", job, back)
		}
	})
}

// checkValidJob asserts what a worker relies on in an accepted job.
func checkValidJob(t *testing.T, j *protocol.Job, maxSource int) {
	t.Helper()
	if !protocol.ValidID(j.SubmissionID) || j.V != 1 || j.Language == "" {
		t.Fatalf("accepted id %q, v %d, language %q", j.SubmissionID, j.V, j.Language)
	}
	if (j.Problem == "") == (j.InlineProblem == nil) || j.Problem != "" && !protocol.ValidID(j.Problem) {
		t.Fatalf("accepted problem %q with inline %v", j.Problem, j.InlineProblem != nil)
	}
	if len(j.Files) == 0 {
		t.Fatal("accepted a job without files")
	}
	total := 0
	for name, body := range j.Files {
		// Independently of the rule's code: nothing a tool reads as an
		// option or an option file, nothing that is not one plain name.
		if verdict.ValidFileName(name) != nil || strings.ContainsAny(name, "/\\\x00 ") || strings.ContainsAny(name[:1], "-@.+") {
			t.Fatalf("accepted file name %q", name)
		}
		total += len(body)
	}
	if maxSource > 0 && total > maxSource {
		t.Fatalf("accepted %d bytes of source over %d", total, maxSource)
	}
	if ip := j.InlineProblem; ip != nil && (len(ip.Tests) == 0 || len(ip.Tests) > 1000) {
		t.Fatalf("accepted an inline problem of %d tests", len(ip.Tests))
	}
	if l := j.Limits; l != nil && (l.TimeMs < 0 || l.TimeMs > 600000 || l.MemoryMB < 0 || l.OutputMB < 0) {
		t.Fatalf("accepted limits %+v", *l)
	}
	if _, err := problem.ParseFeedbackPolicy(string(j.FeedbackPolicy)); err != nil {
		t.Fatalf("accepted feedback_policy %q", j.FeedbackPolicy)
	}
	if e := j.EntryPoint; e != "" && (strings.ContainsAny(e, "/\\\x00 ;") || strings.ContainsAny(e[:1], "-@.+") || len(e) > 1024) {
		t.Fatalf("accepted entry_point %q", e)
	}
}
