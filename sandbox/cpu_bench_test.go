package sandbox_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/benchref"
	"github.com/docketjudge/docket/sandbox"
)

// BenchmarkRunCPU measures what a sandbox run costs the machine in CPU,
// not in wall time: every process's and kernel thread's (docket, the
// helper, the zygote's spares, the kernel workers that free what a run
// leaves), read from /proc/stat around blocks of 100 back-to-back runs of
// /bin/true. Three kinds of block, alternated: sandbox runs as configured
// (a slot's network namespace), sandbox runs with a network namespace
// each (Config.NetNSPerRun, the way before), and plain fork+exec. Each
// block ends with the slot settled and 100 ms for the kernel's deferred
// work, counted in it. Reported: the median over blocks of each one's CPU
// per run, in ms, and the ratios. /proc/stat counts the whole machine in
// 10 ms ticks (0.1 ms a run in a block of 100): other work on it lands
// in every kind of block alike.
func BenchmarkRunCPU(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("the full sandbox needs root")
	}
	slot := testSlot(b)
	perRunSB, err := sandbox.New(sandbox.Config{StateDir: b.TempDir(), UIDBase: 63800, NetNSPerRun: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { perRunSB.Close() })
	perRun := slotOf(b, perRunSB)
	boxes := map[*sandbox.Slot]string{slot: boxWith(b, slot, "/bin/true"), perRun: boxWith(b, perRun, "/bin/true")}
	const block = 100
	var slotCPU, perRunCPU, plainCPU []time.Duration
	b.ResetTimer()
	for done := 0; done < b.N; done += block {
		slotCPU = append(slotCPU, cpuPerRun(b, block, func() { sandboxTrue(b, slot, boxes[slot]) }, slot))
		perRunCPU = append(perRunCPU, cpuPerRun(b, block, func() { sandboxTrue(b, perRun, boxes[perRun]) }, perRun))
		plainCPU = append(plainCPU, cpuPerRun(b, block, func() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}, nil))
	}
	b.StopTimer()
	s, r, p := benchref.Median(slotCPU), benchref.Median(perRunCPU), benchref.Median(plainCPU)
	b.ReportMetric(benchref.Ms(s), "sandbox-cpu-ms/run")
	b.ReportMetric(benchref.Ms(r), "netns-per-run-cpu-ms/run")
	b.ReportMetric(benchref.Ms(p), "plain-cpu-ms/run")
	b.ReportMetric(float64(s)/float64(p), "sandbox/plain")
	b.ReportMetric(float64(r)/float64(p), "netns-per-run/plain")
}

func sandboxTrue(b *testing.B, sl *sandbox.Slot, box string) {
	cmd := sl.Command("./true")
	cmd.Box = box
	if res, err := cmd.Run(); err != nil || res.Status != sandbox.OK {
		b.Fatalf("sandbox run: %v %+v", err, res)
	}
}

// cpuPerRun runs run n times and gives the machine's busy CPU time per
// run, the slot's background teardown and 100 ms of settling included.
func cpuPerRun(b *testing.B, n int, run func(), sl *sandbox.Slot) time.Duration {
	before := busyTicks(b)
	for i := 0; i < n; i++ {
		run()
	}
	if sl != nil {
		sl.Settle()
	}
	time.Sleep(100 * time.Millisecond)
	return time.Duration(busyTicks(b)-before) * 10 * time.Millisecond / time.Duration(n)
}

// busyTicks is the machine's non-idle time in /proc/stat's first line
// (user, nice, system, irq, softirq, steal), in USER_HZ ticks.
func busyTicks(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		b.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	var busy int64
	for i, f := range strings.Fields(line)[1:] {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			b.Fatalf("/proc/stat: %q", line)
		}
		if i != 3 && i != 4 && i < 8 { // not idle, iowait, guest
			busy += v
		}
	}
	return busy
}
