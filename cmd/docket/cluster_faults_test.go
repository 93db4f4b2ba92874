package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/natscluster"
	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/protocol"
	"golang.org/x/sys/unix"
)

// Fault tests on the cluster, each during a burst of clusterBurst real
// submissions. Each logs its time to recover: from the fault (or from its
// end, where the fault lasts) to the first result after it, and to the
// queue drained.

func inlineBurst(f *clusterFixture, prefix string) []string {
	return f.burst(prefix, clusterBurst, func(i int, id string) []byte { return f.job(id, "", pyAplusb, 0) })
}

// SIGKILL the leader of DOCKET_JOBS, then, once the killed node is back
// and caught up, the leader of DOCKET_RESULTS; restart it and let it
// catch up. Across the first kill, docket submit processes publish more
// submissions: each must be enqueued (it retries a failed publish with the
// same Nats-Msg-Id) and get exactly one result.
func TestClusterLeaderKill(t *testing.T) {
	f := newClusterFixture(t, "10s", natscluster.Options{}, nil)
	f.startWorker("w0", 0)
	f.startWorker("w1", 1)
	ids := inlineBurst(f, "lead")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for k, stream := range []string{protocol.JobsStream, protocol.ResultsStream} {
		f.waitResults(100+300*k, 2*time.Minute)
		leader, err := f.c.Leader(ctx, f.js, stream)
		if err != nil {
			t.Fatal(err)
		}
		var cli *cliSubmits
		if stream == protocol.JobsStream {
			cli = f.startCLISubmits("lead-cli", 3, 40)
			time.Sleep(300 * time.Millisecond) // some in flight at the kill
		}
		fault := time.Now()
		f.c.Kill(leader)
		next, err := f.c.Leader(ctx, f.js, stream)
		if err != nil {
			t.Fatal(err)
		}
		elected := time.Since(fault)
		if cli != nil {
			time.Sleep(time.Second) // and some after the election
			ids = append(ids, cli.finish(t)...)
		}
		before := f.results.count()
		f.waitResults(before+1, 2*time.Minute)
		t.Logf("SIGKILL %s (leader of %s) after %d results: new leader %s after %v",
			f.c.Nodes[leader].Name, stream, before, f.c.Nodes[next].Name, elected.Round(time.Millisecond))
		f.waitResults(before+50, 2*time.Minute)
		f.recovery("SIGKILL of "+stream+"'s leader", fault)
		if f.results.count() >= len(ids) {
			t.Errorf("the burst was over before %s's leader recovered; the fault was not tested under load", stream)
		}
		restarted := time.Now()
		f.c.Restart(leader)
		for _, s := range []string{protocol.JobsStream, protocol.EventsStream, protocol.ResultsStream} {
			if err := f.c.WaitCurrent(ctx, f.js, s); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s restarted: all streams current (caught up) after %v", f.c.Nodes[leader].Name, time.Since(restarted).Round(time.Millisecond))
		if k == 1 {
			f.audit(ids, "AC")
		}
	}
}

// SIGKILL workers one after another while they judge, restarting each.
func TestClusterWorkerKills(t *testing.T) {
	f := newClusterFixture(t, "3s", natscluster.Options{}, nil)
	ws := []*clusterWorker{f.startWorker("w0", 0), f.startWorker("w1", 1), f.startWorker("w2", 2)}
	ids := inlineBurst(f, "kill")
	f.waitResults(50, 2*time.Minute)
	var lastKill time.Time
	var killedAt []time.Time
	kills := 0
	for k := 0; k < 6 && f.results.count() < len(ids)*8/10; k++ {
		i := k % len(ws)
		lastKill = time.Now()
		killedAt = append(killedAt, lastKill)
		f.kill(ws[i])
		kills++
		time.Sleep(500 * time.Millisecond)
		ws[i] = f.startWorker(fmt.Sprintf("w%d-%d", i, k), i)
		time.Sleep(2 * time.Second)
	}
	if kills < 4 {
		t.Errorf("only %d kills before the burst was nearly over", kills)
	}
	f.audit(ids, "AC")
	redelivered := f.results.laterAttempts()
	// A killed worker's job comes back after AckWait: from each kill to
	// the redelivered job's result.
	var worst time.Duration
	f.results.mu.Lock()
	for _, r := range f.results.all {
		if r.attempt < 2 {
			continue
		}
		var kill time.Time
		for _, k := range killedAt {
			if k.Before(r.at) {
				kill = k
			}
		}
		worst = max(worst, r.at.Sub(kill))
	}
	f.results.mu.Unlock()
	t.Logf("%d SIGKILLs, %d jobs judged on a later attempt, the latest %v after its worker's kill (AckWait 3s)", kills, redelivered, worst.Round(time.Millisecond))
	f.recovery("the last worker SIGKILL", lastKill)
}

// SIGSTOP a worker while it judges, for longer than AckWait, then SIGCONT:
// the job is redelivered and judged by the other worker, and the frozen
// one drops its late result and keeps working.
func TestClusterFrozenWorker(t *testing.T) {
	f := newClusterFixture(t, "4s", natscluster.Options{}, nil)
	ws := []*clusterWorker{f.startWorker("w0", 0), f.startWorker("w1", 1)}
	// Two seconds of CPU, so a worker is caught in the middle of it.
	slow := map[string]string{"main.py": "import time\ns = time.process_time()\nwhile time.process_time() - s < 2:\n    pass\na, b = map(int, input().split())\nprint(a + b)\n"}
	const slowAt = 40
	slowID := fmt.Sprintf("frozen-%d", slowAt)
	ids := f.burst("frozen", clusterBurst, func(i int, id string) []byte {
		if i == slowAt {
			return f.job(id, "", slow, 8000)
		}
		return f.job(id, "", pyAplusb, 0)
	})
	var holder string
	deadline := time.Now().Add(2 * time.Minute)
	for holder == "" && time.Now().Before(deadline) {
		for _, e := range f.q.events(slowID) {
			if e.Type == "started" {
				holder = e.Worker
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	var frozen *clusterWorker
	for _, w := range ws { // worker ids are host-PID-sSLOT
		if strings.Contains(holder, "-"+strconv.Itoa(w.cmd.Process.Pid)+"-") {
			frozen = w
		}
	}
	if frozen == nil {
		t.Fatalf("no worker process for %q", holder)
	}
	time.Sleep(300 * time.Millisecond) // into the run
	fault := time.Now()
	frozen.cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(9 * time.Second) // AckWait 4s, and the slow job judged again
	frozen.cmd.Process.Signal(syscall.SIGCONT)
	thawed := time.Now()
	f.audit(ids, "AC")
	f.results.mu.Lock()
	r := f.results.seen[slowID][0]
	after := 0
	for _, x := range f.results.all {
		if x.worker == holder && x.at.After(thawed) {
			after++
		}
	}
	f.results.mu.Unlock()
	if r.attempt < 2 || r.worker == holder {
		t.Errorf("slow job: attempt %d by %s, want a later attempt by the other worker (frozen: %s)", r.attempt, r.worker, holder)
	}
	if !logHas(t, frozen.log, "job lease lost") {
		t.Errorf("the frozen worker did not say it dropped the job")
	}
	if !frozen.running() || after == 0 {
		t.Errorf("frozen worker: running %v, %d results after thawing", frozen.running(), after)
	}
	t.Logf("frozen %s for 9s with %s; redelivered and judged by %s (attempt %d) %v after the freeze; the frozen worker judged %d after thawing",
		holder, slowID, r.worker, r.attempt, r.at.Sub(fault).Round(time.Millisecond), after)
	f.recovery("the frozen worker's thaw", thawed)
}

// The problem store unavailable while workers fetch. An R3 store stays
// readable while any replica lives (object reads are direct gets, which
// need no quorum), so the test takes all of it away: 4 nodes, the queue's
// streams on n1-n3, the store scaled to 1 replica on n4 (after the
// workers set it up, so none scales it back), and SIGKILL n4. Jobs wait
// and are judged once the store is back, all on their first delivery.
func TestClusterStoreOutage(t *testing.T) {
	tags := [][]string{{"queue"}, {"queue"}, {"queue"}, {"store"}}
	f := newClusterFixture(t, "4s", natscluster.Options{Nodes: 4, Tags: tags}, func(f *clusterFixture) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, s := range []string{protocol.JobsStream, protocol.EventsStream, protocol.ResultsStream} {
			if err := f.c.Place(ctx, f.js, s, "queue"); err != nil {
				f.t.Fatal(err)
			}
		}
	})
	// The workers connect to the queue's nodes only: a worker whose own
	// connection is on the store's node loses it with the store, and a
	// result it was publishing then costs a delivery, which is not what
	// this test is about (seen in CI). nats.go picks among the URLs at
	// random, so the store's node is not in them at all.
	queueNodes := strings.Join([]string{f.c.Nodes[0].URL(), f.c.Nodes[1].URL(), f.c.Nodes[2].URL()}, ",")
	ws := []*clusterWorker{f.startWorker("w0", 0, "DOCKET_NATS_URL="+queueNodes), f.startWorker("w1", 1, "DOCKET_NATS_URL="+queueNodes)}
	for _, w := range ws {
		f.waitFetching(w)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := f.c.PlaceReplicas(ctx, f.js, "OBJ_"+protocol.ProblemBucket, 1, "store"); err != nil {
		t.Fatal(err)
	}
	ids := f.burst("store", clusterBurst, func(i int, id string) []byte { return f.job(id, "one", pyAplusb, 0) })
	f.waitResults(150, 2*time.Minute)
	fault := time.Now()
	f.c.Kill(3)
	quiet := f.waitQuiet(2*time.Second, 30*time.Second) // the jobs in hand finish
	during := f.results.count()
	time.Sleep(10 * time.Second) // longer than MaxDeliver naks of 2 s would last
	if n := f.results.count(); n != during {
		t.Errorf("%d results while the store was down", n-during)
	}
	back := time.Now()
	f.c.Restart(3)
	f.waitResults(during+1, 2*time.Minute)
	t.Logf("store down %v after %d results (the last in-hand result %v after the kill); first result %v after its restart",
		back.Sub(fault).Round(time.Millisecond), during, quiet.Sub(fault).Round(time.Millisecond), time.Since(back).Round(time.Millisecond))
	f.audit(ids, "AC")
	f.results.mu.Lock()
	late := 0
	for _, r := range f.results.all {
		if r.attempt != 1 {
			if late++; late <= 5 {
				t.Errorf("%s judged on attempt %d: the outage cost a delivery", r.id, r.attempt)
			}
		}
	}
	f.results.mu.Unlock()
	for _, w := range ws {
		if !logHas(t, w.log, "problem store unavailable: holding the job") || !logHas(t, w.log, "problem store back") {
			t.Errorf("%s did not log the outage and the store's return", w.name)
		}
	}
	f.recovery("the store's return", back)
}

// The worker's cache directory full (a small tmpfs): a clear error, the
// job given back and judged by the other workers, the full one pausing
// its fetches and still running; it judges again once there is room.
func TestClusterCacheFull(t *testing.T) {
	if !testguard.Guarded() {
		t.Skip("mounts a tmpfs: needs root and testguard's private mount namespace")
	}
	f := newClusterFixture(t, "4s", natscluster.Options{}, nil)
	full := t.TempDir()
	if err := unix.Mount("tmpfs", full, "tmpfs", 0, "size=256k,mode=0755"); err != nil {
		t.Fatalf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(full, unix.MNT_DETACH) })
	os.MkdirAll(filepath.Join(full, "problems"), 0o755)
	filler := filepath.Join(full, "filler")
	fillUp(t, filler)
	a := f.startWorker("full", 0, "DOCKET_CACHE_DIR="+full)
	b := f.startWorker("roomy", 1)
	c := f.startWorker("roomy2", 2)
	ids := f.burst("full", clusterBurst, func(i int, id string) []byte { return f.job(id, "one", pyAplusb, 0) })
	f.audit(ids, "AC")
	if !logHas(t, a.log, "no space left on device") || !logHas(t, a.log, "cannot judge on this worker now") {
		t.Errorf("the full worker's log has no clear error")
	}
	if !a.running() {
		t.Fatal("the full worker exited")
	}
	given := f.results.laterAttempts()
	// Room again, the other workers gone: the full one judges the rest.
	os.Remove(filler)
	freed := time.Now()
	for _, w := range []*clusterWorker{b, c} {
		w.cmd.Process.Signal(syscall.SIGTERM)
	}
	<-b.exited
	<-c.exited
	more := f.burst("room", 20, func(i int, id string) []byte { return f.job(id, "one", pyAplusb, 0) })
	f.audit(append(ids, more...), "AC")
	f.results.mu.Lock()
	for _, id := range more {
		if r := f.results.seen[id][0]; !strings.Contains(r.worker, "-"+strconv.Itoa(a.cmd.Process.Pid)+"-") {
			t.Errorf("%s judged by %s, not the once-full worker", id, r.worker)
		}
	}
	f.results.mu.Unlock()
	t.Logf("%d jobs given back by the full worker and judged on a later attempt", given)
	f.recovery("freeing the cache disk", freed)
}

// cliSubmits runs docket submit processes, one after another in each of
// a few lanes, each lane connecting to the nodes in its own order.
type cliSubmits struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	runs []cliRun
}

type cliRun struct {
	id  string
	err error
	out string
}

// startCLISubmits starts lanes of at most perLane submissions each of
// problem "one", ids prefix-LANE-N, until finish.
func (f *clusterFixture) startCLISubmits(prefix string, lanes, perLane int) *cliSubmits {
	src := filepath.Join(f.t.TempDir(), "main.py")
	if err := os.WriteFile(src, []byte(pyAplusb["main.py"]), 0o644); err != nil {
		f.t.Fatal(err)
	}
	c := &cliSubmits{stop: make(chan struct{})}
	for l := range lanes {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for n := 0; n < perLane; n++ {
				select {
				case <-c.stop:
					return
				default:
				}
				id := fmt.Sprintf("%s-%d-%d", prefix, l, n)
				cmd := exec.Command(f.bin, "submit", "--problem", "one", "--lang", "python3", "--id", id, src)
				cmd.Env = append(append([]string{}, f.env...), "DOCKET_NATS_URL="+f.c.URLsFrom(l))
				out, err := cmd.CombinedOutput()
				c.mu.Lock()
				c.runs = append(c.runs, cliRun{id: id, err: err, out: string(out)})
				c.mu.Unlock()
			}
		}()
	}
	return c
}

// finish stops the lanes, waits for the submissions in flight, fails the
// test for each that was not enqueued, and returns every id.
func (c *cliSubmits) finish(t *testing.T) []string {
	t.Helper()
	close(c.stop)
	c.wg.Wait()
	var ids []string
	retried := 0
	for _, r := range c.runs {
		if r.err != nil {
			t.Errorf("docket submit %s: %v: the submission was not enqueued:\n%s", r.id, r.err, r.out)
			continue
		}
		ids = append(ids, r.id)
		if strings.Contains(r.out, "retrying (") {
			retried++
		}
	}
	t.Logf("%d submissions through docket submit across the fault: %d enqueued, %d of them after retrying a failed publish", len(c.runs), len(ids), retried)
	return ids
}

// waitFetching waits until a worker says it fetches jobs.
func (f *clusterFixture) waitFetching(w *clusterWorker) {
	f.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !logHas(f.t, w.log, "worker fetching") {
		if !w.running() || time.Now().After(deadline) {
			b, _ := os.ReadFile(w.log)
			f.t.Fatalf("worker %s not fetching (running %v):\n%s", w.name, w.running(), b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitQuiet waits until no result arrived for quiet, and returns when the
// last one before the quiet arrived.
func (f *clusterFixture) waitQuiet(quiet, within time.Duration) time.Time {
	f.t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if last := f.results.last(); time.Since(last) >= quiet {
			return last
		}
		time.Sleep(100 * time.Millisecond)
	}
	f.t.Fatalf("results still arriving %v after the fault", within)
	return time.Time{}
}

// fillUp writes path until the file system is full.
func fillUp(t *testing.T, path string) {
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := fh.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}
