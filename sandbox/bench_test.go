package sandbox_test

import (
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox"
)

// BenchmarkOverhead measures the full sandbox's cost per run against plain
// fork+exec of the same program, interleaved in the same run so that the
// machine's noise hits both alike. Reported: sandbox median and p95 per
// run, plain fork+exec median, and their ratio (target: under 3).
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
			var sbTimes, plainTimes []time.Duration
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
			sm, sp := percentiles(sbTimes)
			pm, _ := percentiles(plainTimes)
			b.ReportMetric(ms(sm), "sandbox-median-ms")
			b.ReportMetric(ms(sp), "sandbox-p95-ms")
			b.ReportMetric(ms(pm), "plain-median-ms")
			b.ReportMetric(float64(sm)/float64(pm), "ratio")
			b.ReportMetric(float64(time.Second)/float64(sm), "sandbox-runs/s")
		})
	}
}

func percentiles(d []time.Duration) (median, p95 time.Duration) {
	s := append([]time.Duration{}, d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2], s[len(s)*95/100]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// TestPhaseBreakdown prints where a run's time goes, step by step (mean
// and median of 300 runs of /bin/true after 50 to warm up):
// DOCKET_PHASES=1 go test -run PhaseBreakdown -v ./sandbox/
func TestPhaseBreakdown(t *testing.T) {
	if os.Getenv("DOCKET_PHASES") == "" {
		t.Skip("set DOCKET_PHASES=1 to print the phase breakdown")
	}
	sl := testSlot(t)
	box := boxWith(t, sl, "/bin/true")
	defer sandbox.TracePhases(false)
	for i := 0; i < 350; i++ {
		if i == 50 {
			sandbox.TracePhases(true)
		}
		cmd := sl.Command("./true")
		cmd.Box = box
		if res, err := cmd.Run(); err != nil || res.Status != sandbox.OK {
			t.Fatal(err, res)
		}
	}
	t.Log("\n" + sandbox.PhaseReport())
}
