package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/natstest"
	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	testToken  = "operator-token-for-tests"
	testSecret = "test-secret"
	waitLimit  = 10 * time.Second // upper bound of every wait in these tests
)

// startNATS runs an embedded JetStream server in a temporary directory,
// reachable in process only.
func startNATS(t *testing.T) jetstream.JetStream {
	t.Helper()
	s := natstest.Start(t, natstest.InProcessOnly(), natstest.ServerName("bridge-test"), natstest.JetStreamLimits(64<<20, 256<<20))
	_, js := natstest.Connect(t, s)
	return js
}

// env is a bridge on an embedded server behind an httptest server.
type env struct {
	t   *testing.T
	js  jetstream.JetStream
	b   *Bridge
	srv *httptest.Server
	seq map[string]int // per-submission event counter
	mu  sync.Mutex
}

func newEnv(t *testing.T, mod func(*Config)) *env {
	t.Helper()
	return newEnvWith(t, mod, nil)
}

// newEnvWith is newEnv with the bridge's handler wrapped by wrap.
func newEnvWith(t *testing.T, mod func(*Config), wrap func(http.Handler) http.Handler) *env {
	t.Helper()
	js := startNATS(t)
	cfg := Config{Token: testToken, HMACSecret: []byte(testSecret), CreateStreams: true}
	if mod != nil {
		mod(&cfg)
	}
	b, err := New(js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, js: js, b: b, seq: map[string]int{}}
	h := b.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	e.srv = httptest.NewServer(h)
	t.Cleanup(func() {
		b.CloseStreams()
		e.srv.Close()
	})
	return e
}

// publish stores one event of submission id and returns its stream
// sequence. extra fields are merged into the event.
func (e *env) publish(id, typ string, extra map[string]any) uint64 {
	e.t.Helper()
	e.mu.Lock()
	e.seq[id]++
	n := e.seq[id]
	e.mu.Unlock()
	ev := map[string]any{"v": 1, "submission_id": id, "attempt": 1, "seq": n,
		"time": time.Now().UTC().Format(time.RFC3339Nano), "type": typ}
	for k, v := range extra {
		ev[k] = v
	}
	data, _ := json.Marshal(ev)
	return e.publishRaw(e.b.subjects().Events(id), data)
}

func (e *env) publishRaw(subject string, data []byte) uint64 {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	ack, err := e.js.Publish(ctx, subject, data)
	if err != nil {
		e.t.Fatalf("publish %s: %v", subject, err)
	}
	return ack.Sequence
}

func testEvent(i int, name, verdict string) map[string]any {
	return map[string]any{"index": i, "total": 3, "test": map[string]any{
		"name": name, "group": "secret", "verdict": verdict, "time_ms": 3 * i, "wall_ms": 4 * i,
		"memory_kb": 1200 + i, "exit_code": 0, "signal": 0, "verdict_source": "stdout", "feedback": ""}}
}

func result(id, verdict string, score float64) map[string]any {
	return map[string]any{"v": 1, "submission_id": id, "verdict": verdict, "score": score, "max_score": 100,
		"time_ms": 9, "memory_kb": 1203, "compile": map[string]any{"ok": true, "log": ""},
		"tests": []any{
			testEvent(1, "secret/1", "AC")["test"], testEvent(2, "secret/2", "AC")["test"], testEvent(3, "secret/3", verdict)["test"]},
		"groups": []any{}, "worker": "w-test", "attempt": 1, "error": ""}
}

// finish publishes the final event and the result of id.
func (e *env) finish(id, verdict string, score float64) uint64 {
	e.t.Helper()
	res := result(id, verdict, score)
	seq := e.publish(id, "final", map[string]any{"result": res})
	data, _ := json.Marshal(res)
	e.publishRaw(e.b.subjects().Results(id), data)
	return seq
}

func (e *env) url(path string) string { return e.srv.URL + path }

// request sends a GET with the given headers ("Name: value").
func (e *env) request(method, path string, headers ...string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url(path), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	c := &http.Client{Timeout: waitLimit}
	resp, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

// status sends a GET and returns the status and the body.
func (e *env) status(path string, headers ...string) (int, string) {
	e.t.Helper()
	resp := e.request(http.MethodGet, path, headers...)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

const opAuth = "Authorization: Bearer " + testToken

// sseMsg is one parsed SSE block.
type sseMsg struct {
	ID, Event, Data string
	Comments        []string
	Retry           string
}

// sseStream is a client connection to an events endpoint.
type sseConn struct {
	t      *testing.T
	resp   *http.Response
	cancel context.CancelFunc
	msgs   chan sseMsg
	done   chan error // the read error (io.EOF when the server ended it)
}

// openSSE connects to the events endpoint of id (which may carry a query); it fails the test if the
// answer is not a 200 event stream.
func (e *env) openSSE(id string, headers ...string) *sseConn {
	e.t.Helper()
	path := "/v1/submissions/" + id + "/events"
	if i := strings.IndexByte(id, '?'); i >= 0 { // "s-1?token=..."
		path = "/v1/submissions/" + id[:i] + "/events" + id[i:]
	}
	c, status := e.tryOpenSSE(path, headers...)
	if c == nil {
		e.t.Fatalf("events of %s: status %d, want 200", id, status)
	}
	return c
}

// tryOpenSSE returns the connection, or nil and the status when it is not
// a 200.
func (e *env) tryOpenSSE(path string, headers ...string) (*sseConn, int) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url(path), nil)
	req.Header.Set("Accept", "text/event-stream")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	timer := time.AfterFunc(waitLimit, cancel) // bounds the wait for the headers
	resp, err := http.DefaultClient.Do(req)
	timer.Stop()
	if err != nil {
		cancel()
		e.t.Fatalf("GET %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cancel()
		return nil, resp.StatusCode
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		e.t.Fatalf("Content-Type %q", ct)
	}
	c := &sseConn{t: e.t, resp: resp, cancel: cancel, msgs: make(chan sseMsg, 100), done: make(chan error, 1)}
	go c.read()
	e.t.Cleanup(c.close)
	return c, resp.StatusCode
}

func (c *sseConn) read() {
	r := bufio.NewReader(c.resp.Body)
	var m sseMsg
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			c.done <- err
			close(c.msgs)
			return
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			c.msgs <- m
			m = sseMsg{}
			continue
		}
		if strings.HasPrefix(line, ":") {
			m.Comments = append(m.Comments, strings.TrimSpace(line[1:]))
			continue
		}
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimPrefix(v, " ")
		switch k {
		case "id":
			m.ID = v
		case "event":
			m.Event = v
		case "data":
			if m.Data != "" {
				m.Data += "\n"
			}
			m.Data += v
		case "retry":
			m.Retry = v
		}
	}
}

// next returns the next message that has data (events, not comments).
func (c *sseConn) next() sseMsg {
	c.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("stream ended while waiting for an event: %v", <-c.done)
			}
			if m.Data != "" || m.ID != "" {
				return m
			}
		case <-deadline:
			c.t.Fatal("no event within", waitLimit)
		}
	}
}

// comment waits for a comment block containing want.
func (c *sseConn) comment(want string) {
	c.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("stream ended while waiting for comment %q", want)
			}
			if m.Data != "" {
				c.t.Fatalf("got event %+v while waiting for comment %q", m, want)
			}
			for _, cm := range m.Comments {
				if cm == want {
					return
				}
			}
		case <-deadline:
			c.t.Fatalf("no comment %q within %v", want, waitLimit)
		}
	}
}

// quiet asserts that no event arrives for d.
func (c *sseConn) quiet(d time.Duration) {
	c.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("stream ended, want it to stay open: %v", <-c.done)
			}
			if m.Data != "" {
				c.t.Fatalf("unexpected event %+v", m)
			}
		case <-deadline:
			return
		}
	}
}

// ended waits until the server ends the stream, with no further event.
func (c *sseConn) ended() {
	c.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				if err := <-c.done; err != io.EOF {
					c.t.Fatalf("stream ended with %v, want a clean end", err)
				}
				return
			}
			if m.Data != "" {
				c.t.Fatalf("event %+v after the end was expected", m)
			}
		case <-deadline:
			c.t.Fatalf("stream still open after %v", waitLimit)
		}
	}
}

func (c *sseConn) close() {
	c.cancel()
	c.resp.Body.Close()
}

// expect checks an event's id and type.
func expect(t *testing.T, m sseMsg, seq uint64, typ string) {
	t.Helper()
	if m.ID != fmt.Sprint(seq) || m.Event != typ {
		t.Fatalf("got id=%q event=%q, want id=%d event=%s (data %s)", m.ID, m.Event, seq, typ, m.Data)
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(m.Data), &ev); err != nil || ev["type"] != typ {
		t.Fatalf("data %q is not the %s event: %v", m.Data, typ, err)
	}
}

// eventually polls cond until it is true, failing after waitLimit.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	var last string
	for time.Now().Before(deadline) {
		ok, s := cond()
		if ok {
			return
		}
		last = s
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v (last: %s)", what, waitLimit, last)
}

// consumers is the number of consumers on the events stream.
func (e *env) consumers() int {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	st, err := e.js.Stream(ctx, protocol.EventsStream)
	if err != nil {
		e.t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return info.State.Consumers
}
