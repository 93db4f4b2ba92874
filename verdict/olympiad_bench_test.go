package verdict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/benchref"
	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// BenchmarkCommunication asks what a test of a CMS Communication task
// with two processes costs next to a batch test: problems/cms-halves
// (a C++ manager, two copies of a C++ submission in sandboxes of their
// own, joined by FIFOs; 5 tests) judged with its accepted submission,
// alternated with a batch package of as many tests of a trivial C++
// a+b. Each judging compiles (untimed); what is timed is its tests,
// from the compile's end to the judging's end, as a contestant waits
// for them, per test. Beside the wall time, the whole machine's busy
// CPU time (/proc/stat) over the same span, per test: it counts
// whatever else the machine runs then, so it is reported, not judged.
// Reported: each side's median per test, and the median over the
// iterations of comm/(3×batch), the target being under 1: a
// Communication test of two processes runs three programs, and must
// cost less than three batch tests.
func BenchmarkCommunication(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("judging needs the full sandbox, which needs root")
	}
	j := benchJudge(b)
	comm := exampleProblem(b, "cms-halves")
	commSub := exampleSubmission(b, "cms-halves", "accepted/halves.cpp", "cpp")
	batch := loadPackage(b, aplusbPackage(len(comm.Tests)))
	batchSub := Submission{Language: "cpp", Files: map[string][]byte{"main.cpp": []byte(aplusbCpp)}}
	var commWall, batchWall, commCPU, batchCPU []time.Duration
	var wallRatio, cpuRatio []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := judgedTests(b, j, comm, commSub)
		t := judgedTests(b, j, batch, batchSub)
		commWall, batchWall = append(commWall, c.wall), append(batchWall, t.wall)
		commCPU, batchCPU = append(commCPU, c.cpu), append(batchCPU, t.cpu)
		wallRatio = append(wallRatio, float64(c.wall)/float64(3*t.wall))
		if t.cpu > 0 {
			cpuRatio = append(cpuRatio, float64(c.cpu)/float64(3*t.cpu))
		}
	}
	b.StopTimer()
	b.ReportMetric(benchref.Ms(benchref.Median(commWall)), "comm-ms/test")
	b.ReportMetric(3*benchref.Ms(benchref.Median(batchWall)), "3batch-ms")
	b.ReportMetric(medianOf(wallRatio), "comm/3batch")
	b.ReportMetric(benchref.Ms(benchref.Median(commCPU)), "comm-cpu-ms/test")
	b.ReportMetric(3*benchref.Ms(benchref.Median(batchCPU)), "3batch-cpu-ms")
	if len(cpuRatio) > 0 {
		b.ReportMetric(medianOf(cpuRatio), "cpu-comm/3batch")
	}
}

// testsCost is what a judging's tests took, per test: wall time, and
// the whole machine's busy CPU time over the same span.
type testsCost struct{ wall, cpu time.Duration }

// judgedTests judges sub, which must be accepted on every test, and
// gives its tests' cost per test, from the compile's end (heard by an
// Observer) to the judging's end and the slot's background teardowns.
func judgedTests(b *testing.B, j *Judge, p *problem.Problem, sub Submission) testsCost {
	obs := &compileMark{b: b}
	res := j.Judge(context.Background(), p, sub, Options{Observer: obs})
	j.Slot.Settle()
	end, ticks := time.Now(), busyTicks(b)
	if res.Verdict != AC || len(res.Tests) != len(p.Tests) || obs.at.IsZero() {
		b.Fatalf("%s: verdict %s, %d tests of %d: %s", p.ID, res.Verdict, len(res.Tests), len(p.Tests), missed(res))
	}
	n := time.Duration(len(res.Tests))
	return testsCost{wall: end.Sub(obs.at) / n, cpu: time.Duration(ticks-obs.ticks) * 10 * time.Millisecond / n}
}

// compileMark notes when the compile ended, and the machine's busy CPU
// time then.
type compileMark struct {
	b     *testing.B
	at    time.Time
	ticks int64
}

func (c *compileMark) Compiled(CompileResult)    { c.at, c.ticks = time.Now(), busyTicks(c.b) }
func (c *compileMark) Test(int, int, TestResult) {}

// BenchmarkGraderCompile asks whether compiling a submission with its
// task's grader costs more than compiling each alone: (a)
// problems/cms-plus judged with its accepted C++ submission, compiled
// with sol/grader.cpp (two sources, one compiler command); (b) the same
// function as a whole program of its own (a main added), in a plain
// package; (c) the grader alone, the function stubbed in its file so
// that it links, in a plain package. Each is a whole judging, accepted,
// alternated; the figure is its compile time (Result.Compile.TimeMs:
// the box written and the compiler run in the sandbox). Reported: the
// medians and the median over the iterations of a/(b+c), the target
// being at most 1 (a margin of noise: 1.05).
func BenchmarkGraderCompile(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("judging needs the full sandbox, which needs root")
	}
	j := benchJudge(b)
	f := newGraderCompile(b)
	var withGrader, plain, graderOnly []time.Duration
	var ratio []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a := compileTime(b, j, f.cms, f.cmsSub)
		s := compileTime(b, j, f.plain, f.plainSub)
		g := compileTime(b, j, f.plain, f.graderSub)
		withGrader, plain, graderOnly = append(withGrader, a), append(plain, s), append(graderOnly, g)
		ratio = append(ratio, float64(a)/float64(s+g))
	}
	b.StopTimer()
	a, s, g := benchref.Median(withGrader), benchref.Median(plain), benchref.Median(graderOnly)
	b.ReportMetric(benchref.Ms(a), "grader-compile-ms")
	b.ReportMetric(benchref.Ms(s), "submission-compile-ms")
	b.ReportMetric(benchref.Ms(g), "grader-alone-compile-ms")
	b.ReportMetric(benchref.Ms(s+g), "plain-compiles-ms")
	b.ReportMetric(medianOf(ratio), "grader/plain")
}

// graderCompile is BenchmarkGraderCompile's fixture: the CMS task and
// its submission, and a plain a+b package with the two whole programs.
type graderCompile struct {
	cms, plain                  *problem.Problem
	cmsSub, plainSub, graderSub Submission
}

func newGraderCompile(b *testing.B) *graderCompile {
	f := &graderCompile{cms: exampleProblem(b, "cms-plus"), plain: loadPackage(b, aplusbPackage(1))}
	f.cmsSub = exampleSubmission(b, "cms-plus", "accepted/plus.cpp", "cpp")
	sol := filepath.Join("..", "problems", "cms-plus", "sol")
	header, grader := readExample(b, filepath.Join(sol, "plus.h")), readExample(b, filepath.Join(sol, "grader.cpp"))
	function := readExample(b, filepath.Join("..", "problems", "cms-plus", "submissions", "accepted", "plus.cpp"))
	// The function with a main of its own, as a batch task's contestant
	// writes it; the grader with a stub of the function (a+b: accepted).
	const ownMain = "\n#include <cstdio>\nint main() {\n    long long a, b;\n    if (std::scanf(\"%lld %lld\", &a, &b) != 2) return 1;\n    std::printf(\"%lld\\n\", sum(a, b));\n}\n"
	const stub = "\nlong long sum(long long a, long long b) { return a + b; }\n"
	f.plainSub = Submission{Language: "cpp", Files: map[string][]byte{"plus.cpp": []byte(function + ownMain), "plus.h": []byte(header)}}
	f.graderSub = Submission{Language: "cpp", Files: map[string][]byte{"grader.cpp": []byte(grader + stub), "plus.h": []byte(header)}}
	return f
}

// compileTime judges sub, which must be accepted, and gives its compile
// time.
func compileTime(b *testing.B, j *Judge, p *problem.Problem, sub Submission) time.Duration {
	res := j.Judge(context.Background(), p, sub, Options{})
	if res.Verdict != AC || !res.Compile.OK || res.Compile.TimeMs <= 0 {
		b.Fatalf("%s: verdict %s, compile time %d ms: %s", p.ID, res.Verdict, res.Compile.TimeMs, missed(res))
	}
	return time.Duration(res.Compile.TimeMs) * time.Millisecond
}

// benchJudge is a judge on one slot of a fresh sandbox, judging one
// test at a time, its work directory where a deployment's is.
func benchJudge(b *testing.B) *Judge {
	sb, err := sandbox.New(sandbox.Config{StateDir: b.TempDir(), UIDBase: 64000})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sb.Close() })
	return &Judge{Slot: claimSlot(b, sb), Langs: langs.Builtin(), WorkDir: benchWorkDir(b), CacheDir: b.TempDir()}
}

// aplusbPackage is a Kattis package of n a+b tests.
func aplusbPackage(n int) map[string]string {
	files := map[string]string{"problem.yaml": "name: a+b\nlimits:\n  time_limit: 1\n  memory: 256\n"}
	for i := range n {
		files[fmt.Sprintf("data/secret/%d.in", i)] = fmt.Sprintf("%d %d\n", i, 2*i+1)
		files[fmt.Sprintf("data/secret/%d.ans", i)] = strconv.Itoa(3*i+1) + "\n"
	}
	return files
}

// exampleProblem loads problems/<name>.
func exampleProblem(b *testing.B, name string) *problem.Problem {
	p, err := problem.Load(filepath.Join("..", "problems", name))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// exampleSubmission is problems/<name>/submissions/<path> in language.
func exampleSubmission(b *testing.B, name, path, language string) Submission {
	src := readExample(b, filepath.Join("..", "problems", name, "submissions", path))
	return Submission{Language: language, Files: map[string][]byte{filepath.Base(path): []byte(src)}}
}

func readExample(b *testing.B, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// medianOf is the (upper) median of xs; xs is not reordered.
func medianOf(xs []float64) float64 {
	s := append([]float64{}, xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// busyTicks is the machine's non-idle time in /proc/stat's first line
// (user, nice, system, irq, softirq, steal), in USER_HZ ticks (10 ms).
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
