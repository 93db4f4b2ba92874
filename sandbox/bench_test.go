package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/benchref"
	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox"
)

// BenchmarkOverhead measures the full sandbox's cost per run against plain
// fork+exec of the same program, interleaved in the same run so that the
// machine's noise hits both alike. A run's time is Run's, until its
// Result; its teardown, which goes on in the background, is waited for
// (Slot.Settle) before the plain run starts, so that it never slows the
// baseline, and is reported too: the run plus its teardown is what a slot
// spends on it. Reported: sandbox median and p95 per run, with teardown,
// plain fork+exec median, and the ratios (target: run under 1.5).
func BenchmarkOverhead(b *testing.B) {
	sl := testSlot(b)
	aplusb := testprog.C(b, "testdata/progs/aplusb.c")
	for _, tc := range []struct {
		name  string
		path  string
		stdin string
	}{
		{"true", "/bin/true", ""},
		{"aplusb", aplusb, "1 2\n"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			box := boxWith(b, sl, tc.path)
			prog := "./" + tc.path[strings.LastIndex(tc.path, "/")+1:]
			if i := strings.LastIndex(prog, "-"); tc.name != "true" && i > 0 {
				prog = prog[:i]
			}
			var sbTimes, fullTimes, plainTimes []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				cmd := sl.Command(prog)
				cmd.Box = box
				if tc.stdin != "" {
					cmd.Stdin = strings.NewReader(tc.stdin)
				}
				res, err := cmd.Run()
				if err != nil || res.Status != sandbox.OK {
					b.Fatalf("sandbox run: %v %+v", err, res)
				}
				sbTimes = append(sbTimes, time.Since(t0))
				sl.Settle()
				fullTimes = append(fullTimes, time.Since(t0))

				t1 := time.Now()
				pc := exec.Command(tc.path)
				if tc.stdin != "" {
					pc.Stdin = strings.NewReader(tc.stdin)
				}
				if err := pc.Run(); err != nil {
					b.Fatal(err)
				}
				plainTimes = append(plainTimes, time.Since(t1))
			}
			b.StopTimer()
			sb := benchref.Summarize(sbTimes)
			sm, fm, pm := sb.Median, benchref.Median(fullTimes), benchref.Median(plainTimes)
			b.ReportMetric(benchref.Ms(sm), "sandbox-median-ms")
			b.ReportMetric(benchref.Ms(sb.P95), "sandbox-p95-ms")
			b.ReportMetric(benchref.Ms(fm), "with-teardown-median-ms")
			b.ReportMetric(benchref.Ms(pm), "plain-median-ms")
			b.ReportMetric(float64(sm)/float64(pm), "ratio")
			b.ReportMetric(float64(fm)/float64(pm), "with-teardown-ratio")
			b.ReportMetric(float64(time.Second)/float64(sm), "sandbox-runs/s")
		})
	}
}

// TestPhaseBreakdown prints where a run's time goes, step by step (mean
// and median of 300 runs of /bin/true after 50 to warm up), through
// Config.Trace: DOCKET_PHASES=1 go test -run PhaseBreakdown -v ./sandbox/
func TestPhaseBreakdown(t *testing.T) {
	if os.Getenv("DOCKET_PHASES") == "" {
		t.Skip("set DOCKET_PHASES=1 to print the phase breakdown")
	}
	var log phaseLog
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 63600, Trace: log.add})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sl := slotOf(t, sb)
	box := boxWith(t, sl, "/bin/true")
	for i := 0; i < 350; i++ {
		log.on.Store(i >= 50)
		cmd := sl.Command("./true")
		cmd.Box = box
		if res, err := cmd.Run(); err != nil || res.Status != sandbox.OK {
			t.Fatal(err, res)
		}
	}
	if len(log.order) == 0 {
		t.Fatal("Config.Trace was never called")
	}
	t.Log("\n" + log.report())
}

// phaseLog collects the steps Config.Trace reports while on.
type phaseLog struct {
	on    atomic.Bool
	mu    sync.Mutex
	order []string
	d     map[string][]time.Duration
}

func (p *phaseLog) add(step string, d time.Duration) {
	if !p.on.Load() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.d == nil {
		p.d = map[string][]time.Duration{}
	}
	if _, ok := p.d[step]; !ok {
		p.order = append(p.order, step)
	}
	p.d[step] = append(p.d[step], d)
}

// report is one line per step, in the order of the steps: mean and median.
func (p *phaseLog) report() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	var total float64
	for _, step := range p.order {
		d := append([]time.Duration{}, p.d[step]...)
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		mean := float64(sum) / float64(len(d)) / 1e6
		total += mean
		fmt.Fprintf(&b, "%-40s mean %.3f ms  median %.3f ms  (%d runs)\n", step, mean, float64(d[len(d)/2])/1e6, len(d))
	}
	fmt.Fprintf(&b, "%-40s mean %.3f ms\n", "total", total)
	return b.String()
}
