package verdict

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/benchref"
	"github.com/docketjudge/docket/verdict/problem"
)

// busyC does a fixed amount of CPU work (the rounds on stdin) with
// little memory traffic, then prints ok.
const busyC = `#include <stdio.h>
int main(void){long n;if(scanf("%ld",&n)!=1)return 1;volatile unsigned long x=1;
for(long i=0;i<n*100000;i++)x=x*6364136223846793005UL+1442695040888963407UL;puts("ok");return 0;}
`

// BenchmarkParallelFairness asks whether tests judged at once (as many
// as the machine has CPUs, Judge.Lanes) are timed as they are one at a
// time: a package of 8 tests of the same fixed work, about 250 ms of CPU
// each (calibrated here by plain fork+exec), judged one at a time and
// in parallel, alternated. Reported: the median CPU time per test of
// each, their ratio (parallel/alone; 1 is fair), and each one's spread,
// (max-min)/median over every test of every iteration.
func BenchmarkParallelFairness(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("judging needs the full sandbox, which needs root")
	}
	one, par := judgePair(b)
	p := busyPackage(b, calibrateBusy(b))
	sub := Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(busyC)}}
	var alone, wide []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		alone = append(alone, testTimes(b, one, p, sub)...)
		wide = append(wide, testTimes(b, par, p, sub)...)
	}
	b.StopTimer()
	a, w := benchref.Summarize(alone), benchref.Summarize(wide)
	b.ReportMetric(float64(len(par.Lanes)+1), "parallel-tests")
	b.ReportMetric(benchref.Ms(a.Median), "alone-cpu-median-ms")
	b.ReportMetric(benchref.Ms(w.Median), "parallel-cpu-median-ms")
	b.ReportMetric(float64(w.Median)/float64(a.Median), "parallel/alone")
	b.ReportMetric(a.Spread(), "alone-spread")
	b.ReportMetric(w.Spread(), "parallel-spread")
}

// testTimes judges sub and gives each test's CPU time.
func testTimes(b *testing.B, j *Judge, p *problem.Problem, sub Submission) []time.Duration {
	res := j.Judge(context.Background(), p, sub, Options{})
	if res.Verdict != AC {
		b.Fatalf("verdict %s: %s", res.Verdict, missed(res))
	}
	var d []time.Duration
	for _, t := range res.Tests {
		d = append(d, time.Duration(t.TimeMs)*time.Millisecond)
	}
	return d
}

// calibrateBusy gives the rounds that take about 250 ms of CPU here.
func calibrateBusy(b *testing.B) int {
	dir := b.TempDir()
	src, exe := filepath.Join(dir, "busy.c"), filepath.Join(dir, "busy")
	if err := os.WriteFile(src, []byte(busyC), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O2", "-o", exe, src).CombinedOutput(); err != nil {
		b.Fatalf("gcc: %v\n%s", err, out)
	}
	const probe = 100
	cmd := exec.Command(exe)
	cmd.Stdin = strings.NewReader(strconv.Itoa(probe))
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	if used <= 0 {
		b.Fatal("the calibration run used no CPU time")
	}
	return max(1, int(probe*float64(250*time.Millisecond)/float64(used)))
}

// busyPackage is 8 tests of rounds of work each, 2 s per test.
func busyPackage(b *testing.B, rounds int) *problem.Problem {
	dir := filepath.Join(b.TempDir(), "busy")
	os.MkdirAll(filepath.Join(dir, "data/secret"), 0o755)
	os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte("name: busy\nlimits:\n  time_limit: 2\n"), 0o644)
	for i := range 8 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("data/secret/%d.in", i)), []byte(strconv.Itoa(rounds)+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("data/secret/%d.ans", i)), []byte("ok\n"), 0o644)
	}
	p, err := problem.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("8 tests of %d rounds on %d CPUs", rounds, runtime.NumCPU())
	return p
}
