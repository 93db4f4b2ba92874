package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go/jetstream"
)

func TestHistoryThenLive(t *testing.T) {
	e := newEnv(t, nil)
	id := "s-42"
	var seqs []uint64
	seqs = append(seqs, e.publish(id, "started", map[string]any{"worker": "w-1"}))
	e.publish("s-other", "started", nil) // another submission: ids have gaps
	seqs = append(seqs, e.publish(id, "compile", map[string]any{"compile": map[string]any{"ok": true, "log": ""}}))
	e.publish("s-other", "compile", nil)
	seqs = append(seqs, e.publish(id, "test", testEvent(1, "secret/1", "AC")))

	c := e.openSSE(id, opAuth)
	expect(t, c.next(), seqs[0], "started")
	expect(t, c.next(), seqs[1], "compile")
	expect(t, c.next(), seqs[2], "test")
	c.quiet(100 * time.Millisecond)

	seqs = append(seqs, e.publish(id, "test", testEvent(2, "secret/2", "WA")))
	e.publish("s-other", "final", nil) // another submission's final does not end this stream
	seqs = append(seqs, e.finish(id, "WA", 40))
	expect(t, c.next(), seqs[3], "test")
	m := c.next()
	expect(t, m, seqs[4], "final")
	var ev struct {
		Result struct{ Verdict string } `json:"result"`
	}
	if err := json.Unmarshal([]byte(m.Data), &ev); err != nil || ev.Result.Verdict != "WA" {
		t.Fatalf("final event %s: %v", m.Data, err)
	}
	c.ended()
}

func TestStreamPreamble(t *testing.T) {
	e := newEnv(t, nil)
	resp := e.request(http.MethodGet, "/v1/submissions/s-1/events", opAuth)
	defer resp.Body.Close()
	buf := make([]byte, 256)
	n, _ := resp.Body.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "retry: 1000\n") {
		t.Fatalf("stream starts with %q, want a retry line", buf[:n])
	}
	for k, want := range map[string]string{"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

func TestResumeWithLastEventID(t *testing.T) {
	e := newEnv(t, nil)
	id := "s-7"
	var seqs []uint64
	for i, typ := range []string{"started", "compile", "test", "test"} {
		seqs = append(seqs, e.publish(id, typ, testEvent(i, fmt.Sprint("t", i), "AC")))
		e.publish("s-noise", "test", nil)
	}

	// Header: everything after seqs[1], exactly once.
	c := e.openSSE(id, opAuth, fmt.Sprintf("Last-Event-ID: %d", seqs[1]))
	expect(t, c.next(), seqs[2], "test")
	expect(t, c.next(), seqs[3], "test")
	c.quiet(100 * time.Millisecond)

	// Query parameter, resuming from an id between two of ours (a gap).
	q := e.openSSE(id+"?last_event_id="+fmt.Sprint(seqs[2]+1), opAuth)
	expect(t, q.next(), seqs[3], "test")

	// Resuming at the last event: nothing until the next one.
	l := e.openSSE(id, opAuth, fmt.Sprintf("Last-Event-ID: %d", seqs[3]))
	l.quiet(100 * time.Millisecond)

	fin := e.finish(id, "AC", 100)
	for _, s := range []*sseConn{c, q, l} {
		expect(t, s.next(), fin, "final")
		s.ended()
	}

	// After the final event there is nothing left: 204 stops EventSource.
	if code, _ := e.status("/v1/submissions/"+id+"/events", opAuth, fmt.Sprintf("Last-Event-ID: %d", fin)); code != http.StatusNoContent {
		t.Fatalf("resume after final: %d, want 204", code)
	}
	// Resuming before the final still gets it, then the end.
	r := e.openSSE(id, opAuth, fmt.Sprintf("Last-Event-ID: %d", seqs[3]))
	expect(t, r.next(), fin, "final")
	r.ended()
	// An id beyond the stream (it was recreated since) gets the whole
	// history rather than waiting for that sequence.
	f := e.openSSE(id, opAuth, "Last-Event-ID: 999999")
	expect(t, f.next(), seqs[0], "started")
	// Last-Event-ID 0 is the whole history.
	z := e.openSSE(id, opAuth, "Last-Event-ID: 0")
	expect(t, z.next(), seqs[0], "started")

	for _, bad := range []string{"abc", "-1", "1.5", "99999999999999999999999"} {
		code, body := e.status("/v1/submissions/"+id+"/events", opAuth, "Last-Event-ID: "+bad)
		if code != http.StatusBadRequest || !strings.Contains(body, `"error"`) {
			t.Errorf("Last-Event-ID %q: %d %s, want 400 JSON", bad, code, body)
		}
	}
	if code, _ := e.status("/v1/submissions/"+id+"/events?last_event_id=x", opAuth); code != http.StatusBadRequest {
		t.Errorf("last_event_id=x: %d, want 400", code)
	}
}

func TestWaitsForFirstEvent(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Heartbeat = 50 * time.Millisecond })
	id := "s-not-yet"
	c := e.openSSE(id, opAuth)
	c.comment("hb") // the stream is open and alive before any event
	c.quiet(200 * time.Millisecond)
	s1 := e.publish(id, "started", nil)
	expect(t, c.next(), s1, "started")
	c.comment("hb")
	fin := e.finish(id, "AC", 100)
	expect(t, c.next(), fin, "final")
	c.ended()
}

func TestMultilineEventIsOneDataLine(t *testing.T) {
	e := newEnv(t, nil)
	seq := e.publishRaw(e.b.subjects().Events("s-ml"), []byte("{\n  \"v\": 1,\n  \"type\": \"started\",\n  \"note\": \"a\\nb\"\n}"))
	e.publishRaw(e.b.subjects().Events("s-ml"), []byte("not json")) // skipped
	fin := e.publish("s-ml", "final", nil)
	c := e.openSSE("s-ml", opAuth)
	m := c.next()
	if m.ID != fmt.Sprint(seq) || m.Data != `{"v":1,"type":"started","note":"a\nb"}` {
		t.Fatalf("got %+v", m)
	}
	expect(t, c.next(), fin, "final")
	c.ended()
}

func TestAuth(t *testing.T) {
	e := newEnv(t, nil)
	e.publish("s-1", "started", nil)
	e.publish("s-2", "started", nil)
	tok1 := SubmissionToken([]byte(testSecret), "s-1")
	cases := []struct {
		name, path string
		headers    []string
		want       int
	}{
		{"no token", "/v1/submissions/s-1", nil, 401},
		{"no token events", "/v1/submissions/s-1/events", nil, 401},
		{"no token watch", "/watch/s-1", nil, 401},
		{"basic auth", "/v1/submissions/s-1", []string{"Authorization: Basic dTpw"}, 401},
		{"empty bearer", "/v1/submissions/s-1", []string{"Authorization: Bearer "}, 401},
		{"wrong operator", "/v1/submissions/s-1", []string{"Authorization: Bearer nope"}, 403},
		{"wrong query token", "/v1/submissions/s-1?token=nope", nil, 403},
		{"s-1 token on s-2", "/v1/submissions/s-2?token=" + tok1, nil, 403},
		{"s-1 token on s-2 header", "/v1/submissions/s-2", []string{"Authorization: Bearer " + tok1}, 403},
		{"s-1 token on s-2 events", "/v1/submissions/s-2/events?token=" + tok1, nil, 403},
		{"s-1 token on s-2 watch", "/watch/s-2?token=" + tok1, nil, 403},
		{"operator token in query", "/v1/submissions/s-1?token=" + testToken, nil, 403},
		{"s-1 token", "/v1/submissions/s-1?token=" + tok1, nil, 202},
		{"s-1 token header", "/v1/submissions/s-1", []string{"Authorization: Bearer " + tok1}, 202},
		{"s-1 token upper case", "/v1/submissions/s-1?token=" + strings.ToUpper(tok1), nil, 202},
		{"s-1 token watch", "/watch/s-1?token=" + tok1, nil, 200},
		{"operator s-1", "/v1/submissions/s-1", []string{opAuth}, 202},
		{"operator s-2", "/v1/submissions/s-2", []string{opAuth}, 202},
		{"operator lower-case scheme", "/v1/submissions/s-2", []string{"Authorization: bearer " + testToken}, 202},
		{"wrong header, right query", "/v1/submissions/s-1?token=" + tok1, []string{"Authorization: Bearer nope"}, 202},
	}
	for _, c := range cases {
		code, body := e.status(c.path, c.headers...)
		if code != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, code, body, c.want)
		}
		if code >= 400 && !strings.HasPrefix(body, `{"error":`) {
			t.Errorf("%s: body %q is not a JSON error", c.name, body)
		}
	}
	resp := e.request(http.MethodGet, "/v1/submissions/s-1")
	resp.Body.Close()
	if resp.Header.Get("WWW-Authenticate") == "" {
		t.Error("401 without WWW-Authenticate")
	}

	// The event stream itself, with a per-submission token in the query
	// (what EventSource does) and the operator token.
	c1 := e.openSSE("s-1?token=" + tok1)
	if m := c1.next(); m.Event != "started" {
		t.Fatalf("s-1 with its token: %+v", m)
	}
	c2 := e.openSSE("s-2", opAuth)
	if m := c2.next(); m.Event != "started" {
		t.Fatalf("s-2 with the operator token: %+v", m)
	}
}

func TestAuthModes(t *testing.T) {
	js := startNATS(t)
	if _, err := New(js, Config{}); err == nil {
		t.Fatal("New without token and secret: no error")
	}
	// Operator only: per-submission tokens open nothing.
	b, err := New(js, Config{Token: testToken, CreateStreams: true})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "/v1/submissions/s-1?token="+SubmissionToken([]byte(testSecret), "s-1"), nil)
	if code, _, _, _ := b.authorize(r, "s-1"); code != 403 {
		t.Errorf("operator-only bridge, submission token: %d, want 403", code)
	}
	// Secret only: no bearer is an operator.
	b, err = New(js, Config{HMACSecret: []byte(testSecret)})
	if err != nil {
		t.Fatal(err)
	}
	r, _ = http.NewRequest("GET", "/v1/submissions/s-1", nil)
	r.Header.Set("Authorization", "Bearer ")
	if code, _, _, _ := b.authorize(r, "s-1"); code != 401 {
		t.Errorf("empty bearer: %d, want 401", code)
	}
	r.Header.Set("Authorization", "Bearer "+testToken)
	if code, _, _, _ := b.authorize(r, "s-1"); code != 403 {
		t.Errorf("secret-only bridge, operator-looking token: %d, want 403", code)
	}
}

func TestSubmissionTokenVector(t *testing.T) {
	// printf '%s' 'docket-submission-v1:s-42' | openssl dgst -sha256 -hmac test-secret
	const want = "84ba0140a2da886650e6c1cc790439520027d445ddd9be74963f25e3a2e68654"
	if got := SubmissionToken([]byte("test-secret"), "s-42"); got != want {
		t.Fatalf("SubmissionToken = %s, want %s", got, want)
	}
	if SubmissionToken([]byte("test-secret"), "s-43") == want || SubmissionToken([]byte("other"), "s-42") == want {
		t.Fatal("token does not depend on id and secret")
	}
}

// TestResultLookup: 404 never submitted, 202 queued while the job waits
// in the jobs stream, 202 judging once it has events, 200 with a result.
func TestResultLookup(t *testing.T) {
	e := newEnv(t, nil)
	if code, body := e.status("/v1/submissions/s-9", opAuth); code != 404 || !strings.Contains(body, `"error"`) {
		t.Fatalf("unknown: %d %s, want 404", code, body)
	}
	job := []byte(`{"v":1,"submission_id":"s-9","problem":"aplusb","language":"c","files":{"a.c":""}}`)
	e.publishRaw(e.b.subjects().Job("contest-1", "s-9"), job)
	if code, body := e.status("/v1/submissions/s-9", opAuth); code != 202 || strings.TrimSpace(body) != `{"status":"pending","state":"queued"}` {
		t.Fatalf("queued: %d %s, want 202 queued", code, body)
	}
	// Another submission's waiting job is not this one's.
	if code, body := e.status("/v1/submissions/s-90", opAuth); code != 404 {
		t.Fatalf("s-90 with only s-9 queued: %d %s, want 404", code, body)
	}
	e.publish("s-9", "started", nil)
	if code, body := e.status("/v1/submissions/s-9", opAuth); code != 202 || strings.TrimSpace(body) != `{"status":"pending","state":"judging"}` {
		t.Fatalf("judging: %d %s, want 202 judging", code, body)
	}
	e.finish("s-9", "AC", 100)
	code, body := e.status("/v1/submissions/s-9", opAuth)
	var res struct {
		V            int
		SubmissionID string `json:"submission_id"`
		Verdict      string
	}
	if code != 200 || json.Unmarshal([]byte(body), &res) != nil || res.Verdict != "AC" || res.SubmissionID != "s-9" || res.V != 1 {
		t.Fatalf("done: %d %s, want 200 with the result", code, body)
	}
	// A result without events (e.g. events expired first) is still found.
	data, _ := json.Marshal(result("s-old", "TLE", 0))
	e.publishRaw(e.b.subjects().Results("s-old"), data)
	if code, body := e.status("/v1/submissions/s-old", opAuth); code != 200 || !strings.Contains(body, `"TLE"`) {
		t.Fatalf("result only: %d %s", code, body)
	}
}

func TestBadRequests(t *testing.T) {
	e := newEnv(t, nil)
	long := strings.Repeat("a", 129)
	cases := []struct {
		method, path string
		want         int
	}{
		{"GET", "/v1/submissions/" + long, 400},
		{"GET", "/v1/submissions/" + strings.Repeat("a", 128), 404}, // valid, unknown
		{"GET", "/v1/submissions/s.1", 400},
		{"GET", "/v1/submissions/s%201/events", 400},
		{"GET", "/v1/submissions/s*/events", 400},
		{"GET", "/watch/a%2Fb", 404}, // decodes to /watch/a/b
		{"GET", "/watch/s.1?token=x", 400},
		{"GET", "/", 404},
		{"GET", "/v1/submissions/", 404},
		{"GET", "/v1/submissions/s-1/", 404},
		{"GET", "/v1/submissions/s-1/events/x", 404},
		{"GET", "/v2/submissions/s-1", 404},
		{"POST", "/v1/submissions/s-1", 405},
		{"DELETE", "/v1/submissions/s-1/events", 405},
		{"PUT", "/watch/s-1", 405},
		{"POST", "/livez", 405},
		{"HEAD", "/v1/submissions/s-1", 405},
	}
	for _, c := range cases {
		resp := e.request(c.method, c.path, opAuth)
		var body struct{ Error string }
		err := json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.want)
		}
		if c.method != "HEAD" && (err != nil || body.Error == "") {
			t.Errorf("%s %s: no JSON error body (%v)", c.method, c.path, err)
		}
		if c.want == 405 && resp.Header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", c.method, c.path)
		}
	}
}

func TestConnectionLimits(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.MaxConnsPerClient = 2
		c.MaxConns = 3
		c.ClientIP = func(r *http.Request) string { return r.Header.Get("X-Test-Client") }
	})
	a1 := e.openSSE("s-1", opAuth, "X-Test-Client: a")
	e.openSSE("s-2", opAuth, "X-Test-Client: a")
	_, code := e.tryOpenSSE("/v1/submissions/s-3/events", opAuth, "X-Test-Client: a")
	if code != http.StatusTooManyRequests {
		t.Fatalf("third stream of client a: %d, want 429", code)
	}
	resp := e.request(http.MethodGet, "/v1/submissions/s-3/events", opAuth, "X-Test-Client: a")
	var body struct{ Error string }
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 429 || !strings.Contains(body.Error, "too many") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("429 answer: %d %+v", resp.StatusCode, body)
	}
	// Other requests of that client still work.
	if code, _ := e.status("/v1/submissions/s-1", opAuth, "X-Test-Client: a"); code != 404 {
		t.Fatalf("result lookup while at the stream limit: %d", code)
	}
	e.openSSE("s-3", opAuth, "X-Test-Client: b")
	if _, code := e.tryOpenSSE("/v1/submissions/s-4/events", opAuth, "X-Test-Client: c"); code != 429 {
		t.Fatalf("fourth stream in total: %d, want 429", code)
	}
	// A client that goes away frees its slot.
	a1.close()
	eventually(t, "slot freed", func() (bool, string) {
		c, code := e.tryOpenSSE("/v1/submissions/s-4/events", opAuth, "X-Test-Client: a")
		if c != nil {
			c.close()
		}
		return code == 200, fmt.Sprint(code)
	})
}

func TestDefaultLimitIsPerRemoteIP(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxConnsPerClient = 1 })
	e.openSSE("s-1", opAuth)
	if _, code := e.tryOpenSSE("/v1/submissions/s-2/events", opAuth); code != 429 {
		t.Fatalf("second stream from 127.0.0.1: %d, want 429", code)
	}
}

func TestConsumersAreDeleted(t *testing.T) {
	e := newEnv(t, nil)
	e.publish("s-a", "started", nil)
	e.publish("s-b", "started", nil)
	// One stream ends at final, one is dropped by its client, one by
	// CloseStreams, one waits for a submission that never starts and is
	// dropped by its client.
	fin := e.openSSE("s-a", opAuth)
	gone := e.openSSE("s-b", opAuth)
	closed := e.openSSE("s-b", opAuth, "Last-Event-ID: 0")
	waiting := e.openSSE("s-never", opAuth)
	for _, c := range []*sseConn{fin, gone, closed} {
		c.next()
	}
	// One consumer serves every stream (feed.go): an ephemeral AckNone
	// memory consumer on all events, which the server drops soon if the
	// bridge vanishes.
	if n := e.consumers(); n != 1 {
		t.Fatalf("%d consumers while 4 streams are open, want 1 shared", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	st, err := e.js.Stream(ctx, protocol.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	for ci := range st.ListConsumers(ctx).Info() {
		c := ci.Config
		if c.Durable != "" || c.AckPolicy != jetstream.AckNonePolicy || !c.MemoryStorage ||
			c.InactiveThreshold != consumerInactive || c.FilterSubject != "docket.events.>" {
			t.Errorf("consumer %s: %+v", ci.Name, c)
		}
	}
	e.finish("s-a", "AC", 100)
	fin.next()
	fin.ended()
	gone.close()
	waiting.close()
	e.b.CloseStreams()
	closed.ended()
	eventually(t, "consumers deleted", func() (bool, string) {
		n := e.consumers()
		return n == 0, fmt.Sprint(n, " consumers")
	})
	eventually(t, "stream slots released", func() (bool, string) {
		e.b.mu.Lock()
		defer e.b.mu.Unlock()
		return e.b.total == 0 && len(e.b.streams) == 0, fmt.Sprint(e.b.total, " open")
	})
}

func TestCloseStreamsThenResume(t *testing.T) {
	e := newEnv(t, nil)
	s1 := e.publish("s-r", "started", nil)
	c := e.openSSE("s-r", opAuth)
	expect(t, c.next(), s1, "started")
	e.b.CloseStreams()
	c.ended()
	s2 := e.publish("s-r", "test", testEvent(1, "a", "AC"))
	r := e.openSSE("s-r", opAuth, fmt.Sprintf("Last-Event-ID: %d", s1))
	expect(t, r.next(), s2, "test")
}

func TestCORS(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.CORSOrigins = []string{"https://judge.example"} })
	e.publish("s-1", "started", nil)

	resp := e.request(http.MethodOptions, "/v1/submissions/s-1/events",
		"Origin: https://judge.example", "Access-Control-Request-Method: GET", "Access-Control-Request-Headers: authorization, last-event-id")
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "https://judge.example" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Last-Event-ID") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp = e.request(http.MethodOptions, "/v1/submissions/s-1", "Origin: https://evil.example", "Access-Control-Request-Method: GET")
	resp.Body.Close()
	if resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("preflight from another origin: %d %v", resp.StatusCode, resp.Header)
	}
	resp = e.request(http.MethodGet, "/v1/submissions/s-1", opAuth, "Origin: https://judge.example")
	resp.Body.Close()
	if resp.StatusCode != 202 || resp.Header.Get("Access-Control-Allow-Origin") != "https://judge.example" || resp.Header.Get("Vary") != "Origin" {
		t.Fatalf("GET from allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
	resp = e.request(http.MethodGet, "/v1/submissions/s-1", opAuth, "Origin: https://evil.example")
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("GET from another origin got CORS headers: %v", resp.Header)
	}

	any := newEnv(t, func(c *Config) { c.CORSOrigins = []string{"*"} })
	resp = any.request(http.MethodGet, "/v1/submissions/s-1", opAuth, "Origin: https://anywhere.example")
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf(`"*": %v`, resp.Header)
	}
	// No CORSOrigins: no CORS headers at all.
	none := newEnv(t, nil)
	resp = none.request(http.MethodGet, "/v1/submissions/s-1", opAuth, "Origin: https://judge.example")
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("no origins configured: %v", resp.Header)
	}
}

func TestHealth(t *testing.T) {
	js := startNATS(t)
	b, err := New(js, Config{Token: testToken}) // no CreateStreams: nothing there yet
	if err != nil {
		t.Fatal(err)
	}
	h := b.Handler()
	serve := func(r *http.Request) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code, rec.Body.String()
	}
	get := func(path string) (int, string) { return serve(httptest.NewRequest("GET", path, nil)) }
	if code, _ := get("/livez"); code != 200 {
		t.Fatalf("livez %d", code)
	}
	code, body := get("/readyz")
	if code != 503 || !strings.Contains(body, "DOCKET_EVENTS does not exist") {
		t.Fatalf("readyz without streams: %d %s", code, body)
	}
	// Streams missing: the API says so instead of hanging.
	for _, path := range []string{"/v1/submissions/s-1", "/v1/submissions/s-1/events"} {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Authorization", "Bearer "+testToken)
		if code, body := serve(r); code != 503 || !strings.Contains(body, "does not exist") {
			t.Fatalf("%s without streams: %d %s", path, code, body)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := b.EnsureStreams(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.EnsureStreams(ctx); err != nil {
		t.Fatal("EnsureStreams is not idempotent:", err)
	}
	if code, body := get("/readyz"); code != 200 {
		t.Fatalf("readyz: %d %s", code, body)
	}
	// An existing stream is left alone (the worker owns its config).
	st, err := js.Stream(ctx, protocol.EventsStream)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	if cfg.MaxAge != protocol.DefaultEventsAge || cfg.Subjects[0] != "docket.events.>" || cfg.Retention != jetstream.LimitsPolicy {
		t.Fatalf("events stream config %+v", cfg)
	}
	cfg.MaxMsgsPerSubject = 5000
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if err := b.EnsureStreams(ctx); err != nil {
		t.Fatal(err)
	}
	info, _ := st.Info(ctx)
	if info.Config.MaxMsgsPerSubject != 5000 {
		t.Fatal("EnsureStreams changed an existing stream")
	}
	rcfg, err := js.Stream(ctx, protocol.ResultsStream)
	if err != nil || rcfg.CachedInfo().Config.MaxAge != protocol.DefaultResultsAge {
		t.Fatalf("results stream: %v", err)
	}

	js.Conn().Close()
	if code, body := get("/readyz"); code != 503 || !strings.Contains(body, "closed") {
		t.Fatalf("readyz after the connection closed: %d %s", code, body)
	}
	if code, _ := get("/livez"); code != 200 {
		t.Fatalf("livez %d", code)
	}
}

func TestPrefix(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Prefix = "judge" })
	seq := e.publishRaw("judge.events.s-1", []byte(`{"v":1,"type":"final"}`))
	c := e.openSSE("s-1", opAuth)
	expect(t, c.next(), seq, "final")
	if _, err := New(e.js, Config{Token: "x", Prefix: "bad prefix"}); err == nil {
		t.Fatal("invalid prefix accepted")
	}
}

func TestWatchPage(t *testing.T) {
	e := newEnv(t, nil)
	resp := e.request(http.MethodGet, "/watch/s-1?token="+SubmissionToken([]byte(testSecret), "s-1"))
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'sha256-") {
		t.Fatalf("CSP %q", csp)
	}
	if resp.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatal("no Referrer-Policy")
	}
	for _, external := range []string{"http://", "https://", "src=", "href=", "@import"} {
		if strings.Contains(page, external) {
			t.Errorf("page references %q: it must be self-contained", external)
		}
	}
	if !strings.Contains(page, "new EventSource(") || strings.Contains(page, "/*SCRIPT*/") || strings.Contains(page, "s-1") {
		t.Fatal("page is not assembled, or carries request data")
	}
}

// Server-wide read and write timeouts (sensible for the other routes) do
// not cut long event streams: the stream clears the read deadline and
// moves the write deadline with each write.
func TestServerTimeoutsDoNotEndStreams(t *testing.T) {
	js := startNATS(t)
	b, err := New(js, Config{Token: testToken, CreateStreams: true, Heartbeat: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(b.Handler())
	srv.Config.ReadTimeout = 200 * time.Millisecond
	srv.Config.WriteTimeout = 200 * time.Millisecond
	srv.Start()
	t.Cleanup(func() { b.CloseStreams(); srv.Close() })
	e := &env{t: t, js: js, b: b, srv: srv, seq: map[string]int{}}
	c := e.openSSE("s-long", opAuth)
	c.quiet(700 * time.Millisecond)
	seq := e.publish("s-long", "final", nil)
	expect(t, c.next(), seq, "final")
	c.ended()
}
