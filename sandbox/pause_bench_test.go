package sandbox_test

import (
	"os/exec"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/benchref"
	"github.com/docketjudge/docket/sandbox"
)

// afterPause is how long BenchmarkAfterPause waits before each run: long
// enough for the kernel's locks and RCU state that back-to-back runs keep
// warm to go idle, as they do on a worker between submissions.
const afterPause = 250 * time.Millisecond

// BenchmarkAfterPause measures one sandbox run of /bin/true after a pause,
// the way a worker's first test of a submission starts when the queue was
// quiet, against plain fork+exec after the same pause, alternated: the
// median and 95th percentile of each and the ratio of the medians. A run
// that waits on something the kernel only does when idle (an RCU grace
// period to take a global lock, as joining a v1 cgroup through
// cgroup.procs did) shows here and not in BenchmarkOverhead. make bench
// runs it 20 times (10 s of pauses).
func BenchmarkAfterPause(b *testing.B) {
	sl := testSlot(b)
	box := boxWith(b, sl, "/bin/true")
	var sbTimes, plainTimes []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		time.Sleep(afterPause)
		t0 := time.Now()
		cmd := sl.Command("./true")
		cmd.Box = box
		if res, err := cmd.Run(); err != nil || res.Status != sandbox.OK {
			b.Fatalf("sandbox run: %v %+v", err, res)
		}
		sbTimes = append(sbTimes, time.Since(t0))
		sl.Settle()

		time.Sleep(afterPause)
		t1 := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		plainTimes = append(plainTimes, time.Since(t1))
	}
	b.StopTimer()
	sb, plain := benchref.Summarize(sbTimes), benchref.Summarize(plainTimes)
	b.ReportMetric(benchref.Ms(sb.Median), "sandbox-median-ms")
	b.ReportMetric(benchref.Ms(sb.P95), "sandbox-p95-ms")
	b.ReportMetric(benchref.Ms(plain.Median), "plain-median-ms")
	b.ReportMetric(benchref.Ms(plain.P95), "plain-p95-ms")
	b.ReportMetric(float64(sb.Median)/float64(plain.Median), "ratio")
}
