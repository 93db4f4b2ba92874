package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/natstest"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/worker"
	"github.com/nats-io/nats.go/jetstream"
)

// submitServer starts an embedded NATS server (max_payload at its 1 MiB
// default) and returns a client on it and its URL; streams, if wanted,
// are the caller's.
func submitServer(t *testing.T) (jetstream.JetStream, string) {
	t.Helper()
	ns := natstest.Start(t)
	_, js := natstest.Connect(t, ns)
	return js, ns.ClientURL()
}

// runSubmitCmd runs docket submit with the environment's DOCKET_* left
// at their defaults except extra; it returns the exit code and stderr.
// aplusbServer is submitServer with the streams made and aplusb in its
// store, as submit checks it.
func aplusbServer(t *testing.T) (jetstream.JetStream, string) {
	t.Helper()
	js, url := submitServer(t)
	natstest.Streams(t, js)
	if _, _, err := worker.Push(context.Background(), js, "../../problems/aplusb"); err != nil {
		t.Fatal(err)
	}
	return js, url
}

func runSubmitCmd(t *testing.T, bin, url string, extra []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"submit"}, args...)...)
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "DOCKET_") {
			env = append(env, e)
		}
	}
	cmd.Env = append(append(env, "DOCKET_NATS_URL="+url), extra...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

func jobsStored(t *testing.T, js jetstream.JetStream) uint64 {
	t.Helper()
	s, err := js.Stream(context.Background(), protocol.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// docket submit --force (aplusb is not pushed) refuses, before publishing anything, sources over
// DOCKET_MAX_SOURCE_BYTES (which workers would answer CE) and a job over
// the server's max_payload (which the client would refuse); a source
// under the default limit is published.
func TestSubmitRefusesOversizeLocally(t *testing.T) {
	bin := docketBinary(t)
	js, url := submitServer(t)
	if err := protocol.EnsureStreams(context.Background(), js, protocol.StreamOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("/"), n), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	over := write("over.cpp", worker.DefaultMaxSource+1)
	code, stderr := runSubmitCmd(t, bin, url, nil, "--force", "--problem", "aplusb", over)
	if code != exitUsage || !strings.Contains(stderr, "over DOCKET_MAX_SOURCE_BYTES (131072); nothing was published") {
		t.Errorf("source over the default limit: exit %d, stderr %q; want %d and a clear refusal", code, stderr, exitUsage)
	}
	t.Logf("source over the limit: exit %d: %s", code, stderr)
	// Allowed by the limit, but 1.5 MiB of JSON: over the server's 1 MiB.
	huge := write("huge.cpp", 1536<<10)
	code, stderr = runSubmitCmd(t, bin, url, []string{"DOCKET_MAX_SOURCE_BYTES=4194304"}, "--force", "--problem", "aplusb", huge)
	if code != exitUsage || !strings.Contains(stderr, "over the NATS server's max_payload (1048576 bytes)") {
		t.Errorf("job over max_payload: exit %d, stderr %q; want %d and a refusal naming max_payload", code, stderr, exitUsage)
	}
	if n := jobsStored(t, js); n != 0 {
		t.Fatalf("%d jobs published by refused submissions", n)
	}
	under := write("under.cpp", worker.DefaultMaxSource)
	if code, stderr := runSubmitCmd(t, bin, url, nil, "--force", "--problem", "aplusb", under); code != exitOK {
		t.Errorf("source at the limit: exit %d, %s", code, stderr)
	}
	if n := jobsStored(t, js); n != 1 {
		t.Errorf("%d jobs stored after a submission at the limit, want 1", n)
	}
}

// A publish that fails (here: no stream yet stores the subject, as when
// the jobs stream has no leader; --force, since no problem is pushed) is retried with the same Nats-Msg-Id,
// saying so, and succeeds once the stream is there; with --retry 0 the
// first failure is final.
func TestSubmitRetriesPublish(t *testing.T) {
	bin := docketBinary(t)
	js, url := submitServer(t)
	src := filepath.Join(t.TempDir(), "main.py")
	os.WriteFile(src, []byte("print(3)\n"), 0o644)
	code, stderr := runSubmitCmd(t, bin, url, nil, "--force", "--problem", "aplusb", "--id", "once", "--retry", "0", src)
	if code != exitSystem || strings.Contains(stderr, "retrying") {
		t.Errorf("--retry 0: exit %d, stderr %q; want %d after one attempt", code, stderr, exitSystem)
	}
	go func() {
		time.Sleep(1500 * time.Millisecond)
		protocol.EnsureStreams(context.Background(), js, protocol.StreamOptions{})
	}()
	code, stderr = runSubmitCmd(t, bin, url, []string{"DOCKET_SUBMIT_RETRY=20s"}, "--force", "--problem", "aplusb", "--id", "retried", src)
	if code != exitOK || !strings.Contains(stderr, "publish failed: ") || !strings.Contains(stderr, "retrying (1), up to 20s") {
		t.Fatalf("exit %d, stderr %q; want success after saying it retries", code, stderr)
	}
	t.Logf("docket submit while no stream stores the subject, then one does:\n%s", stderr)
	s, _ := js.Stream(context.Background(), protocol.JobsStream)
	m, err := s.GetLastMsgForSubject(context.Background(), protocol.Subjects{Prefix: "docket"}.Job("default", "retried"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Header.Get(jetstream.MsgIDHeader); got != "retried" || jobsStored(t, js) != 1 {
		t.Errorf("stored: Nats-Msg-Id %q, %d jobs; want the one job under its id", got, jobsStored(t, js))
	}
	// No stream ever comes (another prefix): it gives up when the time is spent.
	start := time.Now()
	code, stderr = runSubmitCmd(t, bin, url, []string{"DOCKET_SUBJECT_PREFIX=elsewhere"}, "--force", "--problem", "aplusb", "--retry", "1s", src)
	if code != exitSystem || !strings.Contains(stderr, "gave up after ") || !strings.Contains(stderr, "attempts in 1s") || time.Since(start) > 30*time.Second {
		t.Errorf("no stream: exit %d after %v, stderr %q; want %d, giving up after 1s", code, time.Since(start), stderr, exitSystem)
	}
}

// The local size check: sources against DOCKET_MAX_SOURCE_BYTES, the
// whole job against max_payload, both refusals matchable.
func TestCheckJobSize(t *testing.T) {
	files := map[string][]byte{"a.c": make([]byte, 100), "b.h": make([]byte, 28)}
	for _, tc := range []struct {
		maxSource  int
		body       int
		maxPayload int64
		refused    bool
	}{
		{128, 600, 1000, false},
		{127, 600, 1000, true},  // the sources, together, one byte over
		{128, 1001, 1000, true}, // escaping made the JSON too big
		{0, 1000, 0, false},     // no limits known
	} {
		err := checkJobSize(files, make([]byte, tc.body), tc.maxSource, tc.maxPayload)
		if errors.Is(err, errJobTooLarge) != tc.refused || (err != nil && !tc.refused) {
			t.Errorf("max source %d, body %d, max payload %d: %v; refused want %v", tc.maxSource, tc.body, tc.maxPayload, err, tc.refused)
		}
	}
}
