package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/natscluster"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/worker"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The cluster tests run the deployment topology with real processes: a
// 3-node JetStream cluster of nats-server processes built from the
// pinned module, streams with 3 replicas, docket worker processes and a
// docket bridge whose connections name every node (in different
// orders), and a burst of real submissions judged in the sandbox while
// parts of it fail. Each test ends with the same audit: every submission
// has exactly one stored final result, each events stream ends with
// exactly one final event, and the queue holds nothing.

// clusterBurst is the minimum burst per fault test.
const clusterBurst = 1000

// Cheap real submissions: a Python a+b against one test.
var (
	pyAplusb     = map[string]string{"main.py": "a, b = map(int, input().split())\nprint(a + b)\n"}
	inlineAplusb = &protocol.InlineProblem{Tests: []protocol.InlineTest{{Input: "1 2\n", Answer: "3\n"}}, TimeMs: 3000}
)

type clusterFixture struct {
	t    *testing.T
	c    *natscluster.Cluster
	js   jetstream.JetStream // the submitter's and auditor's connection
	q    *queueFixture       // its result and events readers
	bin  string
	env  []string
	logs string
	subj protocol.Subjects

	mu      sync.Mutex
	workers []*clusterWorker
	results *resultLog
}

type clusterWorker struct {
	name   string // the fixture's name; the worker's own id holds its pid
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
}

func (w *clusterWorker) running() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

// newClusterFixture starts the cluster (3 nodes unless opts say more),
// creates the streams with 3 replicas and pushes a one-test problem.
// place, if set, runs before anything else uses the streams.
func newClusterFixture(t *testing.T, ackWait string, opts natscluster.Options, place func(*clusterFixture)) *clusterFixture {
	t.Helper()
	needRoot(t)
	if opts.Nodes == 0 {
		opts.Nodes = 3
	}
	bin := sharedDocketBinary(t)
	c := natscluster.StartWith(t, opts)
	// The submitter connects to the nodes in yet another order.
	nc, err := nats.Connect(c.URLsFrom(2), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(512))
	f := &clusterFixture{t: t, c: c, js: js, bin: bin, logs: t.TempDir(), subj: protocol.Subjects{Prefix: "docket"}}
	f.q = &queueFixture{t: t, js: js, subj: f.subj}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for { // the first R3 streams can race the meta leader's election
		err = protocol.EnsureStreams(ctx, js, protocol.StreamOptions{Replicas: 3})
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	if place != nil {
		place(f)
	}
	if _, _, err := worker.Push(ctx, js, onePy(t)); err != nil {
		t.Fatal(err)
	}
	// One sandbox state dir for all workers: their slot locks live there,
	// so each worker process gets its own slot and uids from our base.
	f.env = append(os.Environ(), "DOCKET_REPLICAS=3", "DOCKET_ACK_WAIT="+ackWait, "DOCKET_MAX_DELIVER=5",
		"DOCKET_METRICS_ADDR=", "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_SANDBOX_UID_BASE=50000",
		"DOCKET_CACHE_DIR="+t.TempDir(), "DOCKET_GRACE=10s")
	f.results = watchResults(t, js)
	t.Cleanup(func() { f.keepLogs() })
	return f
}

var (
	sharedBinOnce sync.Once
	sharedBin     string
	sharedBinErr  error
)

// sharedDocketBinary builds the docket binary once for all cluster tests
// (each build costs seconds of link time), removed after the last test.
func sharedDocketBinary(t *testing.T) string {
	sharedBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "docket-cluster-")
		if err != nil {
			sharedBinErr = err
			return
		}
		testCleanups = append(testCleanups, func() { os.RemoveAll(dir) })
		os.Chmod(dir, 0o755)
		sharedBin = filepath.Join(dir, "docket")
		if out, err := exec.Command("go", "build", "-o", sharedBin, ".").CombinedOutput(); err != nil {
			sharedBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if sharedBinErr != nil {
		t.Fatal(sharedBinErr)
	}
	return sharedBin
}

// onePy writes a pushed problem "one" (one test) for the store tests.
func onePy(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "one")
	for name, body := range map[string]string{
		"problem.yaml":      "name: one\nlimits:\n  memory: 64\n",
		".timelimit":        "3\n",
		"data/secret/1.in":  "1 2\n",
		"data/secret/1.ans": "3\n",
		"data/sample/s.in":  "2 2\n",
		"data/sample/s.ans": "4\n",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// keepLogs copies a failed test's process logs (workers, bridge, nodes)
// out of its temporary directory and says where.
func (f *clusterFixture) keepLogs() {
	if !f.t.Failed() && os.Getenv("DOCKET_KEEP_CLUSTER_LOGS") == "" {
		return
	}
	dir := filepath.Join(os.TempDir(), "docket-cluster-logs", f.t.Name())
	os.RemoveAll(dir)
	os.MkdirAll(dir, 0o755)
	copyTo := func(src, name string) {
		if b, err := os.ReadFile(src); err == nil {
			os.WriteFile(filepath.Join(dir, name), b, 0o644)
		}
	}
	entries, _ := os.ReadDir(f.logs)
	for _, e := range entries {
		copyTo(filepath.Join(f.logs, e.Name()), e.Name())
	}
	for _, nd := range f.c.Nodes {
		copyTo(nd.LogPath, nd.Name+".log")
	}
	f.t.Logf("logs kept in %s", dir)
}

// startWorker starts a docket worker connecting to every node, beginning
// with node i (mod n).
func (f *clusterFixture) startWorker(name string, i int, extraEnv ...string) *clusterWorker {
	f.t.Helper()
	cmd := exec.Command(f.bin, "worker")
	cmd.Env = append(append(append([]string{}, f.env...), "DOCKET_NATS_URL="+f.c.URLsFrom(i)), extraEnv...)
	path := filepath.Join(f.logs, name+".log")
	logf, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		f.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	w := &clusterWorker{name: name, cmd: cmd, log: path, exited: make(chan struct{})}
	go func() { cmd.Wait(); logf.Close(); close(w.exited) }()
	f.t.Cleanup(func() {
		if w.running() {
			cmd.Process.Signal(syscall.SIGCONT)
			cmd.Process.Kill()
			<-w.exited
		}
	})
	f.mu.Lock()
	f.workers = append(f.workers, w)
	f.mu.Unlock()
	return w
}

func (f *clusterFixture) kill(w *clusterWorker) {
	w.cmd.Process.Kill()
	<-w.exited
}

// job is one burst submission: id, inline a+b unless problem is set.
func (f *clusterFixture) job(id, problem string, files map[string]string, timeMs int) []byte {
	j := protocol.Job{V: 1, SubmissionID: id, Language: "python3", Files: files}
	if problem != "" {
		j.Problem = problem
	} else {
		ip := *inlineAplusb
		if timeMs > 0 {
			ip.TimeMs = timeMs
		}
		j.InlineProblem = &ip
	}
	b, _ := json.Marshal(j)
	return b
}

// burst publishes n submissions id prefix-0..n-1 (body from mk) and waits
// until the cluster stored them all.
func (f *clusterFixture) burst(prefix string, n int, mk func(i int, id string) []byte) []string {
	f.t.Helper()
	ids := make([]string, n)
	futs := make([]jetstream.PubAckFuture, n)
	for i := range n {
		ids[i] = fmt.Sprintf("%s-%d", prefix, i)
		var err error
		futs[i], err = f.js.PublishAsync(f.subj.QueueJobs("default"), mk(i, ids[i]), jetstream.WithMsgID(ids[i]))
		if err != nil {
			f.t.Fatalf("publish %s: %v", ids[i], err)
		}
	}
	for i, fut := range futs {
		select {
		case <-fut.Ok():
		case err := <-fut.Err():
			f.t.Fatalf("publish %s: %v", ids[i], err)
		case <-time.After(30 * time.Second):
			f.t.Fatalf("publish %s: no ack", ids[i])
		}
	}
	return ids
}

// resultLog records every result stored in DOCKET_RESULTS as it arrives
// (an ordered consumer, which survives leader changes).
type resultLog struct {
	mu   sync.Mutex
	seen map[string][]resultSeen
	all  []resultSeen
}

type resultSeen struct {
	id      string
	at      time.Time
	verdict string
	worker  string
	attempt int
	err     string
}

func watchResults(t *testing.T, js jetstream.JetStream) *resultLog {
	t.Helper()
	rl := &resultLog{seen: map[string][]resultSeen{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tailStream(ctx, js, protocol.ResultsStream, func(data []byte, stored time.Time) {
			var r struct {
				SubmissionID string `json:"submission_id"`
				Verdict      string `json:"verdict"`
				Worker       string `json:"worker"`
				Attempt      int    `json:"attempt"`
				Error        string `json:"error"`
			}
			json.Unmarshal(data, &r)
			rs := resultSeen{id: r.SubmissionID, at: stored, verdict: r.Verdict, worker: r.Worker, attempt: r.Attempt, err: r.Error}
			rl.mu.Lock()
			rl.seen[r.SubmissionID] = append(rl.seen[r.SubmissionID], rs)
			rl.all = append(rl.all, rs)
			rl.mu.Unlock()
		})
	}()
	return rl
}

// tailStream hands every message of a stream, from the first, to fn with
// the time the stream stored it, until ctx ends. It reads message by
// message with direct gets (the streams allow them), each with its own
// timeout, rather than with a consumer: an ordered consumer lives on one
// node, and after that node's SIGKILL nats.go's reset of it can block
// for good. A sequence that is gone (replaced under MaxMsgsPerSubject) is
// skipped; the audit counts sequences separately.
func tailStream(ctx context.Context, js jetstream.JetStream, stream string, fn func(data []byte, stored time.Time)) {
	next := uint64(1)
	var s jetstream.Stream
	missing := 0 // tries at next: a replica answering a direct get may lag
	for ctx.Err() == nil {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		var err error
		if s == nil {
			s, err = js.Stream(rctx, stream)
		}
		var info *jetstream.StreamInfo
		if err == nil {
			info, err = s.Info(rctx)
		}
		for err == nil && next <= info.State.LastSeq && ctx.Err() == nil {
			var m *jetstream.RawStreamMsg
			m, err = s.GetMsg(rctx, next)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				if missing++; missing < 20 {
					break // look again after the pause
				}
				next, err, missing = next+1, nil, 0
				continue
			}
			if err == nil {
				fn(m.Data, m.Time)
				next, missing = next+1, 0
			}
		}
		cancel()
		if err != nil {
			s = nil // perhaps cached on a dead node's answer
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (rl *resultLog) count() int {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return len(rl.all)
}

// firstAfter is when the first result after t arrived (zero if none).
func (rl *resultLog) firstAfter(t time.Time) time.Time {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	for _, r := range rl.all {
		if r.at.After(t) {
			return r.at
		}
	}
	return time.Time{}
}

// laterAttempts counts results judged on a redelivery.
func (rl *resultLog) laterAttempts() int {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	n := 0
	for _, r := range rl.all {
		if r.attempt > 1 {
			n++
		}
	}
	return n
}

func (rl *resultLog) last() time.Time {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if len(rl.all) == 0 {
		return time.Time{}
	}
	return rl.all[len(rl.all)-1].at
}

// waitResults waits until n results arrived.
func (f *clusterFixture) waitResults(n int, within time.Duration) {
	f.t.Helper()
	deadline := time.Now().Add(within)
	for f.results.count() < n {
		if time.Now().After(deadline) {
			f.t.Fatalf("%d of %d results within %v", f.results.count(), n, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stall is the longest pause between results within window after t (the
// fault's gap; jobs already in hand can still finish right after it), and
// when results came again after it.
func (rl *resultLog) stall(t time.Time, window time.Duration) (gap time.Duration, resumed time.Time) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	prev := t
	for _, r := range rl.all {
		if !r.at.After(t) {
			continue
		}
		if r.at.After(t.Add(window)) && !resumed.IsZero() {
			break
		}
		if d := r.at.Sub(prev); d > gap {
			gap, resumed = d, r.at
		}
		prev = r.at
	}
	return gap, resumed
}

// recovery logs the time from a fault to the first result after it, the
// longest stall of results after it and when they flowed again, and the
// time to the queue drained.
func (f *clusterFixture) recovery(what string, fault time.Time) {
	first := f.results.firstAfter(fault).Sub(fault)
	gap, resumed := f.results.stall(fault, 30*time.Second)
	drained := f.results.last().Sub(fault)
	f.t.Logf("recovery from %s: first result after %v; longest stall %v, results flowing again %v after the fault; queue drained after %v",
		what, first.Round(time.Millisecond), gap.Round(time.Millisecond), resumed.Sub(fault).Round(time.Millisecond), drained.Round(time.Millisecond))
}

// audit checks the end state: every id has exactly one stored final
// result (with the wanted verdict), exactly that many results were ever
// stored, every events stream ends with exactly one final, and nothing is
// pending on the queue.
func (f *clusterFixture) audit(ids []string, want string) {
	f.t.Helper()
	f.waitResults(len(ids), 5*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f.results.mu.Lock()
	for _, id := range ids {
		got := f.results.seen[id]
		if len(got) != 1 {
			f.t.Errorf("%s: %d results stored, want 1: %+v", id, len(got), got)
			continue
		}
		if got[0].verdict != want {
			f.t.Errorf("%s: verdict %s, want %s (%s)", id, got[0].verdict, want, got[0].err)
		}
	}
	total := len(f.results.all)
	f.results.mu.Unlock()
	if total != len(ids) {
		f.t.Errorf("%d results stored for %d submissions", total, len(ids))
	}
	// The stream agrees: as many messages as ever stored (MaxMsgsPerSubject
	// is 1, so a second result would have replaced one and raised LastSeq).
	rs, _ := f.js.Stream(ctx, protocol.ResultsStream)
	if info, err := rs.Info(ctx); err != nil {
		f.t.Errorf("results stream: %v", err)
	} else if info.State.Msgs != uint64(len(ids)) || info.State.LastSeq != uint64(len(ids)) {
		f.t.Errorf("results stream: %+v (want %d messages, last seq %d)", info.State, len(ids), len(ids))
	}
	f.auditEvents(ctx, ids)
	// Nothing pending: the work queue and its consumer are empty.
	deadline := time.Now().Add(30 * time.Second)
	for {
		cons, err := f.js.Consumer(ctx, protocol.JobsStream, protocol.ConsumerName("default"))
		var ci *jetstream.ConsumerInfo
		if err == nil {
			ci, err = cons.Info(ctx)
		}
		js, _ := f.js.Stream(ctx, protocol.JobsStream)
		si, serr := js.Info(ctx)
		if err == nil && serr == nil && ci.NumPending+uint64(ci.NumAckPending) == 0 && si.State.Msgs == 0 {
			break
		}
		if time.Now().After(deadline) {
			f.t.Errorf("queue not empty: consumer %v %+v, stream %v %+v", err, ci, serr, si)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// auditEvents reads the whole events stream once and checks each id's.
func (f *clusterFixture) auditEvents(ctx context.Context, ids []string) {
	f.t.Helper()
	s, err := f.js.Stream(ctx, protocol.EventsStream)
	if err != nil {
		f.t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	bySub := map[string][]protocol.Event{}
	got := make(chan protocol.Event, 1024)
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go tailStream(tctx, f.js, protocol.EventsStream, func(data []byte, _ time.Time) {
		var e protocol.Event
		json.Unmarshal(data, &e)
		select {
		case got <- e:
		case <-tctx.Done():
		}
	})
	deadline := time.After(60 * time.Second)
	for read := uint64(0); read < info.State.Msgs; read++ {
		select {
		case e := <-got:
			bySub[e.SubmissionID] = append(bySub[e.SubmissionID], e)
		case <-deadline:
			f.t.Fatalf("read %d of %d events within 60s", read, info.State.Msgs)
		}
	}
	bad := 0
	for _, id := range ids {
		evs := bySub[id]
		if finals(evs) != 1 || len(evs) == 0 || evs[len(evs)-1].Type != "final" {
			if bad++; bad <= 5 {
				types := []string{}
				for _, e := range evs {
					types = append(types, fmt.Sprintf("%s@%d", e.Type, e.Attempt))
				}
				f.t.Errorf("%s: events %s (want exactly one final, last)", id, strings.Join(types, ","))
			}
		}
	}
	if bad > 5 {
		f.t.Errorf("... %d submissions with bad events streams", bad)
	}
}

func logHas(t *testing.T, path, s string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), s)
}

// The topology: 3 nodes, R3 streams, 2 workers and a bridge connected to
// all nodes in different orders, a burst judged end to end, one
// submission made with docket submit and its events read over SSE from
// the bridge.
func TestClusterTopology(t *testing.T) {
	f := newClusterFixture(t, "10s", natscluster.Options{}, nil)
	for i, js := range []string{protocol.JobsStream, protocol.EventsStream, protocol.ResultsStream, "OBJ_" + protocol.ProblemBucket} {
		s, err := f.js.Stream(context.Background(), js)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := s.Info(context.Background())
		if info.Config.Replicas != 3 || info.Cluster == nil || len(info.Cluster.Replicas) != 2 {
			t.Errorf("stream %d %s: replicas %d, cluster %+v", i, js, info.Config.Replicas, info.Cluster)
		}
	}
	f.startWorker("w0", 0)
	f.startWorker("w1", 1)
	web := "127.0.0.1:" + freePort(t)
	bridge := exec.Command(f.bin, "bridge")
	bridge.Env = append(append([]string{}, f.env...), "DOCKET_NATS_URL="+f.c.URLsFrom(1), "DOCKET_BRIDGE_ADDR="+web, "DOCKET_BRIDGE_TOKEN=op-token")
	blog, _ := os.Create(filepath.Join(f.logs, "bridge.log"))
	bridge.Stdout, bridge.Stderr = blog, blog
	if err := bridge.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bridge.Process.Kill(); bridge.Wait() })
	waitPort(t, web)

	start := time.Now()
	ids := f.burst("topo", clusterBurst, func(i int, id string) []byte { return f.job(id, "", pyAplusb, 0) })
	// One more through the CLI, connecting to the nodes in the third order.
	src := filepath.Join(t.TempDir(), "main.py")
	os.WriteFile(src, []byte(pyAplusb["main.py"]), 0o644)
	sub := exec.Command(f.bin, "submit", "--problem", "one", "--lang", "python3", "--id", "topo-cli", src)
	sub.Env = append(append([]string{}, f.env...), "DOCKET_NATS_URL="+f.c.URLsFrom(2))
	if out, err := sub.CombinedOutput(); err != nil {
		t.Fatalf("docket submit: %v\n%s", err, out)
	}
	ids = append(ids, "topo-cli")
	req, _ := http.NewRequest("GET", "http://"+web+"/v1/submissions/topo-cli/events", nil)
	req.Header.Set("Authorization", "Bearer op-token")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body) // ends after the final event
	resp.Body.Close()
	if s := string(body); resp.StatusCode != 200 || !strings.Contains(s, "event: started") || strings.Count(s, "event: final") != 1 || !strings.Contains(s, `"verdict":"AC"`) {
		t.Errorf("SSE %d:\n%s", resp.StatusCode, s)
	}
	f.audit(ids, "AC")
	workers := map[string]int{}
	f.results.mu.Lock()
	for _, r := range f.results.all {
		workers[r.worker]++
	}
	f.results.mu.Unlock()
	if len(workers) != 2 {
		t.Errorf("results per worker: %v (want both workers)", workers)
	}
	t.Logf("%d submissions judged in %v by %v", len(ids), time.Since(start).Round(time.Millisecond), workers)
}
