package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/natscluster"
	"github.com/docketjudge/docket/internal/natstest"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/worker"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// queueFixture is a real NATS server (embedded in the test, listening on
// loopback) with the streams, the example aplusb problem pushed, and
// docket worker processes against it.
type queueFixture struct {
	t    *testing.T
	bin  string
	url  string
	nc   *nats.Conn
	js   jetstream.JetStream
	env  []string
	subj protocol.Subjects
}

func newQueueFixture(t *testing.T, ackWait string) *queueFixture {
	t.Helper()
	needRoot(t)
	ns := natstest.Start(t)
	nc, js := natstest.Connect(t, ns)
	natstest.Streams(t, js)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, p := range []string{"aplusb", "guess-kattis"} {
		if _, _, err := worker.Push(ctx, js, "../../problems/"+p); err != nil {
			t.Fatal(err)
		}
	}
	f := &queueFixture{t: t, bin: docketBinary(t), url: ns.ClientURL(), nc: nc, js: js, subj: protocol.Subjects{Prefix: "docket"}}
	f.env = append(os.Environ(), "DOCKET_NATS_URL="+f.url, "DOCKET_ACK_WAIT="+ackWait, "DOCKET_MAX_DELIVER=4",
		"DOCKET_METRICS_ADDR=", "DOCKET_MAX_SOURCE_BYTES=65536", "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir(), "DOCKET_GRACE=20s")
	return f
}

// startWorker starts a docket worker process.
func (f *queueFixture) startWorker(name string) *exec.Cmd {
	cmd := exec.Command(f.bin, "worker")
	cmd.Env = f.env
	logf, _ := os.Create(f.t.TempDir() + "/" + name + ".log")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// submitRaw publishes a job as a backend does: on
// docket.jobs.<queue>.<msgID>, or, when msgID is not a valid id (a test
// of bad jobs), on the subject's first form.
func (f *queueFixture) submitRaw(queue, msgID string, body []byte) {
	f.t.Helper()
	opts, subject := []jetstream.PublishOpt{}, f.subj.QueueJobs(queue)
	if msgID != "" {
		opts = append(opts, jetstream.WithMsgID(msgID))
	}
	if protocol.ValidID(msgID) {
		subject = f.subj.Job(queue, msgID)
	}
	if _, err := f.js.Publish(context.Background(), subject, body, opts...); err != nil {
		f.t.Fatal(err)
	}
}

func (f *queueFixture) submit(id, problem, lang string, files map[string]string) {
	b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: id, Problem: problem, Language: lang, Files: files})
	f.submitRaw("default", id, b)
}

// result waits for a submission's final result.
func (f *queueFixture) result(id string, within time.Duration) map[string]any {
	f.t.Helper()
	deadline := time.Now().Add(within)
	s, _ := f.js.Stream(context.Background(), protocol.ResultsStream)
	for time.Now().Before(deadline) {
		m, err := s.GetLastMsgForSubject(context.Background(), f.subj.Results(id))
		if err == nil {
			var r map[string]any
			json.Unmarshal(m.Data, &r)
			return r
		}
		time.Sleep(100 * time.Millisecond)
	}
	f.t.Fatalf("no result for %s within %v", id, within)
	return nil
}

// events returns a submission's events in order.
func (f *queueFixture) events(id string) []protocol.Event {
	s, _ := f.js.Stream(context.Background(), protocol.EventsStream)
	oc, err := s.OrderedConsumer(context.Background(), jetstream.OrderedConsumerConfig{FilterSubjects: []string{f.subj.Events(id)}})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []protocol.Event
	for {
		batch, err := oc.FetchNoWait(100)
		if err != nil {
			break
		}
		n := 0
		for m := range batch.Messages() {
			var e protocol.Event
			json.Unmarshal(m.Data(), &e)
			out = append(out, e)
			n++
		}
		if n == 0 {
			break
		}
	}
	return out
}

func (f *queueFixture) pendingJobs() uint64 {
	s, _ := f.js.Stream(context.Background(), protocol.JobsStream)
	info, _ := s.Info(context.Background())
	return info.State.Msgs
}

func finals(evs []protocol.Event) int {
	n := 0
	for _, e := range evs {
		if e.Type == "final" {
			n++
		}
	}
	return n
}

const cppAplusb = "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<\"\\n\";}\n"

// Submit -> judged by a worker -> events (started, compile, tests, final)
// and exactly one final result; poison jobs get a final error and are not
// redelivered.
func TestWorkerEndToEnd(t *testing.T) {
	f := newQueueFixture(t, "10s")
	f.startWorker("w1")
	f.submit("e2e-ok", "aplusb", "cpp", map[string]string{"main.cpp": cppAplusb})
	r := f.result("e2e-ok", 60*time.Second)
	if r["verdict"] != "AC" || r["attempt"].(float64) != 1 {
		t.Errorf("result %v", r)
	}
	evs := f.events("e2e-ok")
	if len(evs) == 0 || evs[0].Type != protocol.EventStarted || evs[0].Problem != "aplusb" || evs[0].Language != "cpp" {
		t.Errorf("the started event does not name the problem and the language: %+v", evs)
	}
	types := []string{}
	for _, e := range evs {
		types = append(types, string(e.Type))
	}
	joined := strings.Join(types, ",")
	if !strings.HasPrefix(joined, "started,compile,test") || !strings.HasSuffix(joined, "final") || finals(evs) != 1 {
		t.Errorf("events %s", joined)
	}
	for i, e := range evs {
		if e.Seq != i+1 {
			t.Errorf("event %d has seq %d", i, e.Seq)
		}
	}

	// Poison jobs: each gets a final result with an error, and the
	// jobs stream ends empty (terminated, not redelivered).
	f.submitRaw("default", "bad-json", []byte(`{"v":1,"submission_id":"bad-json",`))
	f.submitRaw("default", "", []byte(`{"v":1,"submission_id":"no/slash","problem":"aplusb","language":"cpp","files":{"a.cpp":"x"}}`))
	f.submit("unknown-lang", "aplusb", "cobol", map[string]string{"a.cob": "x"})
	f.submit("missing-problem", "no-such-problem", "cpp", map[string]string{"main.cpp": cppAplusb})
	f.submit("bad-name", "aplusb", "cpp", map[string]string{"../main.cpp": cppAplusb})
	// A file name gcc would read as an option file: the contestant's
	// fault, CE, refused before anything is compiled.
	f.submit("option-name", "aplusb", "cpp", map[string]string{"main.cpp": cppAplusb, "@opts": "-wrapper /bin/sh,-c,exit"})
	big := strings.Repeat("x", 100<<10)
	f.submit("too-big", "aplusb", "cpp", map[string]string{"main.cpp": big})
	f.submit("ce", "aplusb", "cpp", map[string]string{"main.cpp": "int main( {"})
	for id, want := range map[string]string{"bad-json": "SE", "unknown-lang": "SE", "missing-problem": "SE", "bad-name": "CE", "option-name": "CE", "too-big": "CE", "ce": "CE"} {
		r := f.result(id, 60*time.Second)
		if r["verdict"] != want {
			t.Errorf("%s: verdict %v, want %s (%v)", id, r["verdict"], want, r["error"])
		}
		if msg, _ := r["error"].(string); (want == "SE" || strings.HasSuffix(id, "-name")) && msg == "" {
			t.Errorf("%s: no error text", id)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for f.pendingJobs() != 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n := f.pendingJobs(); n != 0 {
		t.Errorf("%d jobs still in the stream (poison jobs must be terminated)", n)
	}
}

// A worker killed with SIGKILL mid-judge: the job is redelivered to
// another worker after AckWait and judged once more; exactly one final.
func TestRedeliveryAfterKill(t *testing.T) {
	f := newQueueFixture(t, "2s")
	w1 := f.startWorker("w1")
	// A solution that takes ~1.5 s per test keeps w1 busy.
	slow := "#include <iostream>\n#include <ctime>\nint main(){long long a,b;std::cin>>a>>b;clock_t s=clock();while(clock()-s<CLOCKS_PER_SEC*3/2);std::cout<<a+b<<\"\\n\";}\n"
	b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: "redeliver", Problem: "aplusb", Language: "cpp",
		Files: map[string]string{"main.cpp": slow}, Limits: &protocol.JobLimits{TimeMs: 5000}})
	f.submitRaw("default", "redeliver", b)
	// Wait until w1 has started judging it.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if len(f.events("redeliver")) >= 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	w1.Process.Signal(syscall.SIGKILL)
	w1.Wait()
	f.startWorker("w2")
	r := f.result("redeliver", 120*time.Second)
	if r["verdict"] != "AC" || r["attempt"].(float64) < 2 {
		t.Errorf("after the kill: %v", r)
	}
	time.Sleep(time.Second)
	evs := f.events("redeliver")
	attempts := map[int]bool{}
	for _, e := range evs {
		if e.Type == "started" {
			attempts[e.Attempt] = true
		}
	}
	if !attempts[1] || !attempts[2] || finals(evs) != 1 {
		t.Errorf("events: started attempts %v, %d finals", attempts, finals(evs))
	}
}

// SIGTERM: the worker finishes the job in hand, stores its result and
// exits 0.
func TestWorkerDrainsOnSIGTERM(t *testing.T) {
	f := newQueueFixture(t, "10s")
	w := f.startWorker("w")
	// Slow by sleeping, not spinning: a spin's wall time grows with the
	// machine's load and would reach the wall limit (TLE) on a busy one.
	slow := "#include <iostream>\n#include <unistd.h>\nint main(){long long a,b;std::cin>>a>>b;usleep(500000);std::cout<<a+b<<\"\\n\";}\n"
	b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: "drain", Problem: "aplusb", Language: "cpp", Files: map[string]string{"main.cpp": slow}})
	f.submitRaw("default", "drain", b)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && len(f.events("drain")) < 3 {
		time.Sleep(50 * time.Millisecond)
	}
	w.Process.Signal(syscall.SIGTERM)
	err := w.Wait()
	if err != nil {
		t.Errorf("worker exit after SIGTERM: %v", err)
	}
	r := f.result("drain", 5*time.Second)
	if r["verdict"] != "AC" {
		t.Errorf("drained job: %v", r)
	}
	if n := f.pendingJobs(); n != 0 {
		t.Errorf("%d jobs left", n)
	}
}

// Two workers never judge one job at once, and a burst is judged once each.
func TestTwoWorkersShareTheQueue(t *testing.T) {
	f := newQueueFixture(t, "10s")
	f.startWorker("a")
	f.startWorker("b")
	n := 12
	for i := 0; i < n; i++ {
		f.submit(fmt.Sprintf("pair-%d", i), "aplusb", "cpp", map[string]string{"main.cpp": cppAplusb})
	}
	workers := map[string]int{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("pair-%d", i)
		r := f.result(id, 120*time.Second)
		if r["verdict"] != "AC" || r["attempt"].(float64) != 1 {
			t.Errorf("%s: %v", id, r)
		}
		workers[r["worker"].(string)]++
		if evs := f.events(id); finals(evs) != 1 {
			t.Errorf("%s: %d finals", id, finals(evs))
		}
	}
	if len(workers) != 2 {
		t.Errorf("jobs per worker: %v (want both workers used)", workers)
	}
}

// MaxDeliver exhausted (here 1 delivery, the worker killed): the
// max-deliveries advisory becomes a final SE result naming the attempts.
func TestMaxDeliveriesGiveUp(t *testing.T) {
	f := newQueueFixture(t, "2s")
	for i, kv := range f.env {
		if strings.HasPrefix(kv, "DOCKET_MAX_DELIVER=") {
			f.env[i] = "DOCKET_MAX_DELIVER=1"
		}
	}
	w1 := f.startWorker("w1")
	slow := "#include <iostream>\n#include <ctime>\nint main(){long long a,b;std::cin>>a>>b;clock_t s=clock();while(clock()-s<CLOCKS_PER_SEC*3/2);std::cout<<a+b<<\"\\n\";}\n"
	b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: "give-up", Problem: "aplusb", Language: "cpp",
		Files: map[string]string{"main.cpp": slow}, Limits: &protocol.JobLimits{TimeMs: 5000}})
	f.submitRaw("default", "give-up", b)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && len(f.events("give-up")) < 2 {
		time.Sleep(50 * time.Millisecond)
	}
	w1.Process.Signal(syscall.SIGKILL)
	w1.Wait()
	f.startWorker("w2")
	r := f.result("give-up", 60*time.Second)
	if r["verdict"] != "SE" || !strings.Contains(fmt.Sprint(r["error"]), "after 1 attempts") {
		t.Errorf("result %v", r)
	}
	deadline = time.Now().Add(10 * time.Second)
	for f.pendingJobs() != 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n := f.pendingJobs(); n != 0 {
		t.Errorf("%d jobs left after giving up", n)
	}
}

// docket serve keeps its data: jobs queued while no worker runs are
// judged after a restart.
// While no worker runs, the bridge answers a submitted job 202 "queued"
// (docket submit publishes on docket.jobs.<queue>.<id>), and an unknown
// id 404.
func TestServeRestartKeepsQueuedJobs(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	data := t.TempDir()
	port, bridgeAddr := freePort(t), "127.0.0.1:"+freePort(t)
	env := append(os.Environ(), "DOCKET_NATS_LISTEN=127.0.0.1:"+port, "DOCKET_BRIDGE_ADDR="+bridgeAddr,
		"DOCKET_NATS_URL=nats://127.0.0.1:"+port, "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir(), "DOCKET_METRICS_ADDR=")
	serve := func(workers string) *exec.Cmd {
		cmd := exec.Command(bin, "serve", "--data", data, "--problems", "../../problems", "--workers", workers)
		cmd.Env = env
		logf, _ := os.Create(t.TempDir() + "/serve.log")
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		waitPort(t, "127.0.0.1:"+port)
		return cmd
	}
	s1 := serve("0")
	// The bridge listens once ./problems is pushed: docket submit checks
	// that the problem is in the store.
	waitPort(t, bridgeAddr)
	for i := 0; i < 3; i++ {
		sub := exec.Command(bin, "submit", "--problem", "aplusb", "--id", fmt.Sprintf("restart-%d", i), "../../problems/aplusb/submissions/accepted/main.cpp")
		sub.Env = env
		if out, err := sub.CombinedOutput(); err != nil {
			t.Fatalf("submit: %v %s", err, out)
		}
	}
	waitPort(t, bridgeAddr)
	for id, want := range map[string]string{"restart-0": `"state":"queued"`, "restart-never": "unknown submission"} {
		code, body := bridgeGet(t, bridgeAddr, data, "/v1/submissions/"+id)
		if !strings.Contains(body, want) || (code != 202) != (id == "restart-never") {
			t.Errorf("GET %s with no worker: %d %s, want %s", id, code, body, want)
		}
	}
	s1.Process.Signal(syscall.SIGTERM)
	if err := s1.Wait(); err != nil {
		t.Errorf("serve exit on SIGTERM: %v", err)
	}
	serve("1")
	nc, err := nats.Connect("nats://127.0.0.1:" + port)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	f := &queueFixture{t: t, js: js, subj: protocol.Subjects{Prefix: "docket"}}
	for i := 0; i < 3; i++ {
		if r := f.result(fmt.Sprintf("restart-%d", i), 90*time.Second); r["verdict"] != "AC" {
			t.Errorf("restart-%d: %v", i, r)
		}
	}
}

// bridgeGet asks serve's bridge for path with its operator token.
func bridgeGet(t *testing.T, addr, data, path string) (int, string) {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(data, "bridge-token"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// freePort is a port outside the ephemeral range (see natscluster.FreePort).
func freePort(t *testing.T) string { return strconv.Itoa(natscluster.FreePort(t)) }

func waitPort(t *testing.T, addr string) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never listened", addr)
}

// docket serve end to end: submit, the events over SSE from the bridge
// (history then live, ending after final), the result over HTTP, and the
// readiness of the whole.
func TestServeEndToEndSSE(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	data := t.TempDir()
	port, web := freePort(t), "127.0.0.1:"+freePort(t)
	env := append(os.Environ(), "DOCKET_NATS_LISTEN=127.0.0.1:"+port, "DOCKET_BRIDGE_ADDR="+web,
		"DOCKET_NATS_URL=nats://127.0.0.1:"+port, "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir(),
		"DOCKET_METRICS_ADDR=", "DOCKET_DATA_DIR="+data, "DOCKET_BRIDGE_MAX_CONNS_PER_CLIENT=1")
	cmd := exec.Command(bin, "serve", "--data", data, "--problems", "../../problems")
	cmd.Env = env
	logf, _ := os.Create(t.TempDir() + "/serve.log")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	waitPort(t, web)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + web + "/readyz")
		if err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve never ready: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	sub := exec.Command(bin, "submit", "--problem", "aplusb", "--id", "sse-1", "../../problems/aplusb/submissions/accepted/main.cpp")
	sub.Env = env
	if out, err := sub.CombinedOutput(); err != nil {
		t.Fatalf("submit: %v %s", err, out)
	}
	tok, _ := os.ReadFile(data + "/bridge-token")
	req, _ := http.NewRequest("GET", "http://"+web+"/v1/submissions/sse-1/events", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body) // the stream ends after the final event
	resp.Body.Close()
	s := string(body)
	if resp.StatusCode != 200 || !strings.Contains(s, "event: started") || !strings.Contains(s, "event: test") || strings.Count(s, "event: final") != 1 {
		t.Fatalf("SSE %d:\n%s", resp.StatusCode, s)
	}
	// The result over HTTP, and no access without a token.
	req, _ = http.NewRequest("GET", "http://"+web+"/v1/submissions/sse-1", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(rb), `"verdict":"AC"`) {
		t.Errorf("result %d %s", resp.StatusCode, rb)
	}
	if resp, _ := http.Get("http://" + web + "/v1/submissions/sse-1"); resp == nil || resp.StatusCode != 401 {
		t.Errorf("no token: %v", resp)
	}
	// A per-submission token from docket token reads its own submission only.
	tc := exec.Command(bin, "token", "sse-1")
	tc.Env = env
	st, err := tc.Output()
	if err != nil {
		t.Fatal(err)
	}
	// DOCKET_BRIDGE_MAX_CONNS_PER_CLIENT=1: while one stream of this client
	// is open (a submission that never starts keeps it waiting), a second
	// one is refused.
	held, _ := http.NewRequest("GET", "http://"+web+"/v1/submissions/never-started/events", nil)
	held.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	hctx, hcancel := context.WithCancel(context.Background())
	hresp, err := http.DefaultClient.Do(held.WithContext(hctx))
	if err != nil || hresp.StatusCode != 200 {
		t.Fatalf("first stream: %v %v", err, hresp)
	}
	second, _ := http.NewRequest("GET", "http://"+web+"/v1/submissions/sse-1/events", nil)
	second.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	if resp, err := http.DefaultClient.Do(second); err != nil || resp.StatusCode != 429 {
		t.Errorf("second concurrent stream of one client: %v %v, want 429 (DOCKET_BRIDGE_MAX_CONNS_PER_CLIENT=1)", err, resp)
	} else {
		resp.Body.Close()
	}
	hcancel()
	hresp.Body.Close()
	for id, want := range map[string]int{"sse-1": 200, "other": 403} {
		resp, err := http.Get("http://" + web + "/v1/submissions/" + id + "?token=" + strings.TrimSpace(string(st)))
		if err != nil || resp.StatusCode != want {
			t.Errorf("token for sse-1 reading %s: %v %v, want %d", id, err, resp, want)
		}
	}
}
