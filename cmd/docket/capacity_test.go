package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/natscluster"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/worker"
	"github.com/nats-io/nats.go/jetstream"
)

// The capacity tests measure the queue alone: docket worker processes in
// the capacity-test-no-judging mode (the whole protocol path, the problem
// store lookup included, and no sandbox run) against the 3-node cluster,
// spread over its three nodes. What they find is what one cluster carries
// before the queue, not the judging, is the limit. On the development
// machine every worker process, the three nats-server nodes and the
// submitter share 2 cores, so the figures are a lower bound for the
// broker: on real hardware the workers' CPU is elsewhere.

// capacityPlan is one measurement: so many worker processes, a burst of
// so many jobs published at once, then a paced phase at a fixed rate
// (the latency a contest's peak sees when the queue is not backed up).
type capacityPlan struct {
	workers   int
	burst     int
	pacedRate int // jobs/s
	pacedFor  time.Duration
}

// capacityFigures is what one plan measured.
type capacityFigures struct {
	capacityPlan
	publishRate  float64 // burst jobs stored in DOCKET_JOBS per second
	dispatchRate float64 // burst results per second, first publish to last result
	perWorker    []int   // burst and paced jobs per worker process
	jain         float64
	burstLat     [3]time.Duration // p50 p95 p99, publish to result seen by a backend
	pacedLat     [3]time.Duration
	workerRSSMB  float64            // mean resident set of a worker process after the run
	cpuShare     map[string]float64 // cores busy on average during the burst
	cpuPerJob    map[string]float64 // CPU ms per burst job
}

func TestCapacityCorrectness(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a 3-node cluster and 64 worker processes")
	}
	// The short version for make test (well under a minute): 64 workers,
	// 2000 jobs; the full sweep is TestCapacitySweep under make bench.
	fig := runCapacity(t, capacityPlan{workers: 64, burst: 2000, pacedRate: 100, pacedFor: 2 * time.Second})
	logCapacity(t, fig)
	// Every worker took part, and the pull queue shared out the burst
	// (Jain's index is 1 for a perfectly even share, 1/64 if one worker
	// took everything).
	if min := fig.perWorker[0]; min == 0 {
		t.Errorf("a worker got no job: %v", fig.perWorker)
	}
	if fig.jain < 0.5 {
		t.Errorf("jobs per worker too uneven (Jain %.2f): %v", fig.jain, fig.perWorker)
	}
}

// TestCapacitySweep is the full measurement (make bench sets
// DOCKET_CAPACITY_SWEEP=1): 1, 8, 16 and 64 workers, each against a
// fresh cluster, with a burst sized to take tens of seconds.
func TestCapacitySweep(t *testing.T) {
	if os.Getenv("DOCKET_CAPACITY_SWEEP") == "" {
		t.Skip("the full capacity sweep runs under make bench (DOCKET_CAPACITY_SWEEP=1); make test runs TestCapacityCorrectness")
	}
	burst := 20000
	if v, err := strconv.Atoi(os.Getenv("DOCKET_CAPACITY_BURST")); err == nil && v > 0 {
		burst = v
	}
	plans := []capacityPlan{
		{workers: 1, burst: min(burst, 3000), pacedRate: 50, pacedFor: 5 * time.Second},
		{workers: 8, burst: min(burst, 10000), pacedRate: 100, pacedFor: 10 * time.Second},
		{workers: 16, burst: burst, pacedRate: 100, pacedFor: 10 * time.Second},
		{workers: 64, burst: burst, pacedRate: 100, pacedFor: 10 * time.Second},
	}
	var all []capacityFigures
	for _, p := range plans {
		t.Run(fmt.Sprintf("workers=%d", p.workers), func(t *testing.T) {
			fig := runCapacity(t, p)
			logCapacity(t, fig)
			all = append(all, fig)
		})
	}
	t.Logf("workers  burst  published/s  dispatched/s  per-worker min/max  Jain  burst p50/p99  paced(rate) p50/p95/p99  cores nats/workers  CPU ms/job nats/workers  worker RSS")
	for _, f := range all {
		t.Logf("%7d %6d %12.0f %13.0f %10d/%-8d %5.3f  %v/%v  %d/s %v/%v/%v  %.2f/%.2f  %.2f/%.2f  %.1f MB",
			f.workers, f.burst, f.publishRate, f.dispatchRate, f.perWorker[0], f.perWorker[len(f.perWorker)-1], f.jain,
			ms(f.burstLat[0]), ms(f.burstLat[2]), f.pacedRate, ms(f.pacedLat[0]), ms(f.pacedLat[1]), ms(f.pacedLat[2]),
			f.cpuShare["nats"], f.cpuShare["workers"], f.cpuPerJob["nats"], f.cpuPerJob["workers"], f.workerRSSMB)
	}
}

// runCapacity runs one plan against a fresh cluster and audits it: every
// job has exactly one result, the fixed not-judged one, each events
// stream ends with one final, nothing is pending.
func runCapacity(t *testing.T, p capacityPlan) capacityFigures {
	f := newClusterFixture(t, "30s", natscluster.Options{}, nil)
	// A sandbox directory that cannot be created: a worker that tried to
	// open the sandbox would fail to start.
	noSandbox := "DOCKET_SANDBOX_DIR=" + filepath.Join("/proc", "docket-capacity-test-has-no-sandbox")
	start := time.Now()
	ws := make([]*clusterWorker, p.workers)
	for i := range ws {
		ws[i] = f.startWorker(fmt.Sprintf("cap%02d", i), i%3, "DOCKET_WORKER_MODE="+string(worker.ModeCapacityTest), noSandbox)
	}
	f.waitAllPulling(ws, time.Minute)
	t.Logf("%d capacity-mode workers fetching after %v", p.workers, time.Since(start).Round(time.Millisecond))
	for _, w := range ws[:1] {
		if !logHas(t, w.log, "CAPACITY TEST MODE") {
			t.Errorf("%s: no capacity-mode warning in its log", w.name)
		}
	}

	cpu0 := f.cpuTimes(ws)
	pubAt := map[string]time.Time{}
	t0 := time.Now()
	ids := f.publishWindowed("cap", p.burst, pubAt)
	published := time.Since(t0)
	f.waitResults(len(ids), 5*time.Minute)
	drained := f.results.last().Sub(t0)
	cpu1 := f.cpuTimes(ws)

	// Paced: one job every 1/rate, each publish acknowledged, the queue
	// empty beforehand.
	var paced []string
	tick := time.NewTicker(time.Second / time.Duration(p.pacedRate))
	for i := range int(p.pacedFor.Seconds() * float64(p.pacedRate)) {
		<-tick.C
		id := fmt.Sprintf("paced-%d", i)
		pubAt[id] = time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := f.js.Publish(ctx, f.subj.QueueJobs("default"), f.job(id, "one", pyAplusb, 0), jetstream.WithMsgID(id))
		cancel()
		if err != nil {
			t.Fatalf("publish %s: %v", id, err)
		}
		paced = append(paced, id)
	}
	tick.Stop()
	all := append(append([]string{}, ids...), paced...)
	f.audit(all, "SE")

	fig := capacityFigures{capacityPlan: p, cpuShare: map[string]float64{}, cpuPerJob: map[string]float64{}}
	fig.publishRate = float64(len(ids)) / published.Seconds()
	fig.dispatchRate = float64(len(ids)) / drained.Seconds()
	f.results.mu.Lock()
	perName := map[string]int{}
	var burstLat, pacedLat []time.Duration
	for _, id := range all {
		r := f.results.seen[id][0]
		if r.err != worker.NotJudgedError {
			t.Errorf("%s: error %q, want the capacity mode's fixed one", id, r.err)
		}
		perName[r.worker]++
		lat := r.at.Sub(pubAt[id])
		if strings.HasPrefix(id, "paced-") {
			pacedLat = append(pacedLat, lat)
		} else {
			burstLat = append(burstLat, lat)
		}
	}
	f.results.mu.Unlock()
	if len(perName) > p.workers {
		t.Errorf("results name %d workers, %d were started: %v", len(perName), p.workers, perName)
	}
	for _, n := range perName {
		fig.perWorker = append(fig.perWorker, n)
	}
	for len(fig.perWorker) < p.workers { // a worker that got nothing counts as 0
		fig.perWorker = append(fig.perWorker, 0)
	}
	sort.Ints(fig.perWorker)
	fig.jain = jain(fig.perWorker)
	fig.burstLat, fig.pacedLat = percentiles(burstLat), percentiles(pacedLat)
	fig.workerRSSMB = meanRSSMB(t, ws)
	for k, v := range cpu1 {
		fig.cpuShare[k] = (v - cpu0[k]) / drained.Seconds()
		fig.cpuPerJob[k] = (v - cpu0[k]) * 1000 / float64(len(ids))
	}
	return fig
}

func logCapacity(t *testing.T, f capacityFigures) {
	t.Helper()
	mean, sd := meanStddev(f.perWorker)
	t.Logf("%d workers, burst of %d: published at %.0f jobs/s, dispatched (first publish to last result) at %.0f jobs/s", f.workers, f.burst, f.publishRate, f.dispatchRate)
	t.Logf("jobs per worker: min %d, max %d, mean %.1f, stddev %.1f, Jain's fairness index %.3f", f.perWorker[0], f.perWorker[len(f.perWorker)-1], mean, sd, f.jain)
	t.Logf("latency publish to result, burst (queue wait included): p50 %v p95 %v p99 %v", ms(f.burstLat[0]), ms(f.burstLat[1]), ms(f.burstLat[2]))
	t.Logf("latency publish to result, paced at %d jobs/s: p50 %v p95 %v p99 %v", f.pacedRate, ms(f.pacedLat[0]), ms(f.pacedLat[1]), ms(f.pacedLat[2]))
	t.Logf("cores busy during the burst: nats-servers %.2f, workers %.2f, submitter+auditor %.2f; CPU per job: nats-servers %.2f ms (3 nodes), workers %.2f ms; worker RSS %.1f MB each",
		f.cpuShare["nats"], f.cpuShare["workers"], f.cpuShare["test"], f.cpuPerJob["nats"], f.cpuPerJob["workers"], f.workerRSSMB)
}

// publishWindowed publishes n capacity jobs as fast as the cluster takes
// them, at most capacityWindow unacknowledged at once (a bounded client,
// as a backend would be: an unbounded async burst stalls nats.go's
// publisher when the R3 streams fall behind), recording each publish time.
func (f *clusterFixture) publishWindowed(prefix string, n int, pubAt map[string]time.Time) []string {
	f.t.Helper()
	const capacityWindow = 256
	ids := make([]string, n)
	futs := make([]jetstream.PubAckFuture, n)
	wait := func(i int) {
		select {
		case <-futs[i].Ok():
		case err := <-futs[i].Err():
			f.t.Fatalf("publish %s: %v", ids[i], err)
		case <-time.After(30 * time.Second):
			f.t.Fatalf("publish %s: no ack within 30s", ids[i])
		}
	}
	for i := range n {
		if i >= capacityWindow {
			wait(i - capacityWindow)
		}
		ids[i] = fmt.Sprintf("%s-%d", prefix, i)
		pubAt[ids[i]] = time.Now()
		var err error
		futs[i], err = f.js.PublishAsync(f.subj.QueueJobs("default"), f.job(ids[i], "one", pyAplusb, 0), jetstream.WithMsgID(ids[i]))
		if err != nil {
			f.t.Fatalf("publish %s: %v", ids[i], err)
		}
	}
	for i := max(0, n-capacityWindow); i < n; i++ {
		wait(i)
	}
	return ids
}

// waitAllPulling waits until every worker logged that it fetches and the
// consumer has one waiting pull request per worker, so a burst starts
// with all of them ready.
func (f *clusterFixture) waitAllPulling(ws []*clusterWorker, within time.Duration) {
	f.t.Helper()
	for _, w := range ws {
		f.waitFetching(w)
	}
	deadline := time.Now().Add(within)
	ctx := context.Background()
	for {
		cons, err := f.js.Consumer(ctx, protocol.JobsStream, protocol.ConsumerName("default"))
		if err == nil {
			if ci, err := cons.Info(ctx); err == nil && ci.NumWaiting >= len(ws) {
				return
			}
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the consumer never had %d waiting pulls", len(ws))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cpuTimes is the CPU seconds used so far by the nats-server nodes, the
// worker processes and this test process.
func (f *clusterFixture) cpuTimes(ws []*clusterWorker) map[string]float64 {
	out := map[string]float64{"test": procCPU("self")}
	for _, pid := range workerPIDs(ws) {
		out["workers"] += procCPU(strconv.Itoa(pid))
	}
	for _, pid := range natsPIDs(f.c) {
		out["nats"] += procCPU(strconv.Itoa(pid))
	}
	return out
}

// workerPIDs are the workers' pids as /proc names them. The tests run as
// PID 1 of their own pid namespace (testguard) with the host's /proc, so
// a child's pid there is its NSpid's first field: this process's children
// are matched by the last one.
func workerPIDs(ws []*clusterWorker) []int {
	want := map[string]bool{}
	for _, w := range ws {
		want[strconv.Itoa(w.cmd.Process.Pid)] = true
	}
	self, _ := os.Readlink("/proc/self")
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		var ppid string
		var nspid []string
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PPid:"); ok {
				ppid = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
				nspid = strings.Fields(v)
			}
		}
		if ppid == self && len(nspid) > 0 && want[nspid[len(nspid)-1]] {
			pid, _ := strconv.Atoi(e.Name())
			pids = append(pids, pid)
		}
	}
	return pids
}

// natsPIDs finds the cluster's nodes among /proc by their config path.
func natsPIDs(c *natscluster.Cluster) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		for _, nd := range c.Nodes {
			if strings.Contains(string(cmdline), nd.ConfigPath) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// procCPU is a process's user+system CPU seconds (0 if it is gone).
func procCPU(pid string) float64 {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100 // USER_HZ is 100 on Linux
}

func meanRSSMB(t *testing.T, ws []*clusterWorker) float64 {
	t.Helper()
	var sum float64
	n := 0
	for _, pid := range workerPIDs(ws) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
				sum += kb / 1024
				n++
			}
		}
	}
	if n == 0 {
		t.Errorf("no worker's RSS could be read")
		return 0
	}
	return sum / float64(n)
}

// jain is Jain's fairness index of the shares: (Σx)² / (n Σx²), 1 when
// all are equal, 1/n when one has everything.
func jain(xs []int) float64 {
	var s, s2 float64
	for _, x := range xs {
		s += float64(x)
		s2 += float64(x) * float64(x)
	}
	if s2 == 0 {
		return 0
	}
	return s * s / (float64(len(xs)) * s2)
}

func meanStddev(xs []int) (mean, sd float64) {
	for _, x := range xs {
		mean += float64(x)
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (float64(x) - mean) * (float64(x) - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}

// percentiles is p50, p95 and p99 (nearest rank).
func percentiles(d []time.Duration) [3]time.Duration {
	if len(d) == 0 {
		return [3]time.Duration{}
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	at := func(q float64) time.Duration { return d[int(math.Ceil(q*float64(len(d))))-1] }
	return [3]time.Duration{at(0.50), at(0.95), at(0.99)}
}

func ms(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

// The worker refuses every mode but the two it knows, by full name, and
// a flag that contradicts the environment; the capacity mode asked for
// by flag gets past the check (and here fails on the absent NATS, not
// on usage).
func TestWorkerModeRefusal(t *testing.T) {
	bin := docketBinary(t)
	dead := "DOCKET_NATS_URL=nats://127.0.0.1:" + freePort(t)
	for _, c := range []struct {
		args []string
		env  string
		code int
		want string
	}{
		{nil, "DOCKET_WORKER_MODE=capacity", exitUsage, `unknown worker mode "capacity"`},
		{nil, "DOCKET_WORKER_MODE=no-judging", exitUsage, "unknown worker mode"},
		{[]string{"--capacity-test-no-judging"}, "DOCKET_WORKER_MODE=judge", exitUsage, "contradicts DOCKET_WORKER_MODE=judge"},
		{[]string{"--capacity-test"}, "", exitUsage, "flag provided but not defined"},
		{[]string{"--capacity-test-no-judging"}, "", exitSystem, "no NATS"},
		{nil, "DOCKET_WORKER_MODE=capacity-test-no-judging", exitSystem, "no NATS"},
	} {
		expectExit(t, bin, append([]string{"worker"}, c.args...), []string{dead, c.env}, c.code, c.want)
	}
}

// expectExit runs the docket binary with args and env added to the test's
// environment (no metrics listener) and checks its exit code and that its
// output holds want.
func expectExit(t *testing.T, bin string, args, env []string, wantCode int, want string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), env...), "DOCKET_METRICS_ADDR=")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != wantCode || !strings.Contains(string(out), want) {
		t.Errorf("docket %v with %v: exit %d, want %d with %q:\n%s", args, env, code, wantCode, want, out)
	}
}
