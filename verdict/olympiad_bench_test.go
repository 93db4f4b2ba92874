package verdict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
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
// a+b. Each judging compiles (untimed); each test is timed as a
// contestant waits for it, from the end of the compile or of the test
// before (heard by an Observer) to its own end. Beside the wall time,
// the CPU time of this process and its children (processCPU) from the
// compile's end to the judging's end, per test, which another user of
// the machine does not change. Reported: each
// side's median over every test of every iteration, comm/(3×batch) of
// those medians (target: under 1; a Communication test of two
// processes runs three programs, and must cost less than three batch
// tests), the median first test of a comm judging (which takes the
// further slot and may build the sandbox's roots with the FIFOs), and
// the CPU time per test (medians over the iterations) and their ratio,
// reported.
func BenchmarkCommunication(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("judging needs the full sandbox, which needs root")
	}
	j := benchJudge(b)
	comm := exampleProblem(b, "cms-halves")
	commSub := exampleSubmission(b, "cms-halves", "accepted/halves.cpp", "cpp")
	batch := loadPackage(b, aplusbPackage(len(comm.Tests)))
	batchSub := Submission{Language: "cpp", Files: map[string][]byte{"main.cpp": []byte(aplusbCpp)}}
	var commWall, commFirst, batchWall, commCPU, batchCPU []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := judgedTests(b, j, comm, commSub)
		t := judgedTests(b, j, batch, batchSub)
		commWall, commFirst, batchWall = append(commWall, c.walls...), append(commFirst, c.walls[0]), append(batchWall, t.walls...)
		commCPU, batchCPU = append(commCPU, c.cpu), append(batchCPU, t.cpu)
	}
	b.StopTimer()
	cw, bw := benchref.Median(commWall), benchref.Median(batchWall)
	b.ReportMetric(benchref.Ms(cw), "comm-ms/test")
	b.ReportMetric(benchref.Ms(benchref.Median(commFirst)), "comm-first-ms")
	b.ReportMetric(3*benchref.Ms(bw), "3batch-ms")
	b.ReportMetric(float64(cw)/float64(3*bw), "comm/3batch")
	cc, bc := benchref.Median(commCPU), benchref.Median(batchCPU)
	b.ReportMetric(benchref.Ms(cc), "comm-cpu-ms/test")
	b.ReportMetric(3*benchref.Ms(bc), "3batch-cpu-ms")
	if bc > 0 {
		b.ReportMetric(float64(cc)/float64(3*bc), "cpu-comm/3batch")
	}
}

// testsCost is what a judging's tests took: each one's wall time, and
// the CPU time per test of the judge and its children over the same span.
type testsCost struct {
	walls []time.Duration
	cpu   time.Duration
}

// judgedTests judges sub, which must be accepted on every test, and
// gives its tests' cost, from the compile's end to the judging's end
// and the slot's background teardowns.
func judgedTests(b *testing.B, j *Judge, p *problem.Problem, sub Submission) testsCost {
	obs := &testClock{b: b}
	res := j.Judge(context.Background(), p, sub, Options{Observer: obs})
	j.Slot.Settle()
	cpu := processCPU(b)
	if res.Verdict != AC || len(res.Tests) != len(p.Tests) || len(obs.walls) != len(p.Tests) {
		b.Fatalf("%s: verdict %s, %d tests of %d: %s", p.ID, res.Verdict, len(res.Tests), len(p.Tests), missed(res))
	}
	n := time.Duration(len(res.Tests))
	return testsCost{walls: obs.walls, cpu: (cpu - obs.cpu) / n}
}

// testClock times each test from the end of the compile or of the test
// before, and notes processCPU at the compile's end.
type testClock struct {
	b     *testing.B
	last  time.Time
	cpu   time.Duration
	walls []time.Duration
}

func (c *testClock) Compiled(CompileResult) { c.last, c.cpu = time.Now(), processCPU(c.b) }

func (c *testClock) Test(int, int, TestResult) {
	now := time.Now()
	c.walls = append(c.walls, now.Sub(c.last))
	c.last = now
}

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
// test at a time, its work directory where a deployment's is, and, as a
// worker's, further slots for a Communication task's copies kept from
// one judging to the next.
func benchJudge(b *testing.B) *Judge {
	sb, err := sandbox.New(sandbox.Config{StateDir: b.TempDir(), UIDBase: 64000})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sb.Close() })
	extra := &ExtraSlots{}
	b.Cleanup(extra.Release) // before the sandbox's Close: cleanups run last first
	return &Judge{Slot: claimSlot(b, sb), Extra: extra, Langs: langs.Builtin(), WorkDir: benchWorkDir(b), CacheDir: b.TempDir()}
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

// processCPU is the CPU time of this process and of its children that
// ended (RUSAGE_SELF and RUSAGE_CHILDREN): the judge, and the sandbox's
// helpers with the programs they ran, which are docket's children
// (forked by the zygote with CLONE_PARENT) and reaped by it. Work the
// kernel does elsewhere (in its own threads) is not counted.
func processCPU(b *testing.B) time.Duration {
	var self, children syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		b.Fatal(err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children); err != nil {
		b.Fatal(err)
	}
	var d time.Duration
	for _, tv := range []syscall.Timeval{self.Utime, self.Stime, children.Utime, children.Stime} {
		d += time.Duration(tv.Nano())
	}
	return d
}
