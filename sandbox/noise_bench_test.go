package sandbox_test

import (
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/benchref"
	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox"
)

// BenchmarkTimingNoise measures how much the CPU time docket reports for
// the same work varies from run to run, against the kernel's own figure
// outside: a fixed loop of about 1 s of CPU (calibrated once on this
// machine) run in the sandbox, alternated with the same program by plain
// fork+exec, whose CPU time is its rusage (user+system). Iterations:
// -benchtime Nx (make bench: 20 of each). Reported for both: median, min,
// max and standard deviation in ms, and the spread (max-min)/median; and
// the ratio of the two spreads.
func BenchmarkTimingNoise(b *testing.B) {
	sl := testSlot(b)
	prog := testprog.C(b, "testdata/progs/fixedwork.c")
	box := boxWith(b, sl, prog)
	rounds := calibrateWork(b, prog)
	var inside, outside []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := sl.Command("./fixedwork", rounds)
		cmd.Box = box
		cmd.Limits = sandbox.Limits{CPUTime: scaled(10 * time.Second)}
		res, err := cmd.Run()
		if err != nil || res.Status != sandbox.OK {
			b.Fatalf("sandbox run: %v %+v", err, res)
		}
		inside = append(inside, res.CPUTime)
		outside = append(outside, plainCPU(b, prog, rounds))
	}
	b.StopTimer()
	in, out := benchref.Summarize(inside), benchref.Summarize(outside)
	reportNoise(b, "sandbox", in)
	reportNoise(b, "plain", out)
	if out.Spread() > 0 {
		b.ReportMetric(in.Spread()/out.Spread(), "spread-ratio")
	}
}

// calibrateWork gives the number of rounds (fixedwork's argument) that
// take about 1 s of CPU here, from one run of 200.
func calibrateWork(b *testing.B, prog string) string {
	const probe = 200
	d := plainCPU(b, prog, strconv.Itoa(probe))
	if d <= 0 {
		b.Fatalf("fixedwork %d used no CPU time", probe)
	}
	return strconv.Itoa(max(1, int(probe*float64(time.Second)/float64(d))))
}

// plainCPU runs prog by plain fork+exec and gives its CPU time (rusage).
func plainCPU(b *testing.B, prog, rounds string) time.Duration {
	cmd := exec.Command(prog, rounds)
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportNoise(b *testing.B, name string, s benchref.Stats) {
	b.ReportMetric(benchref.Ms(s.Median), name+"-cpu-median-ms")
	b.ReportMetric(benchref.Ms(s.Min), name+"-cpu-min-ms")
	b.ReportMetric(benchref.Ms(s.Max), name+"-cpu-max-ms")
	b.ReportMetric(benchref.Ms(s.Stddev), name+"-cpu-stddev-ms")
	b.ReportMetric(s.Spread(), name+"-spread")
}
