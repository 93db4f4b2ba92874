package verdict

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/benchref"
	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

func TestMain(m *testing.M) { testguard.Main(m) }

// hundredTests writes an a+b package with 100 secret tests.
func hundredTests(tb testing.TB) string {
	dir := filepath.Join(tb.TempDir(), "aplusb100")
	os.MkdirAll(filepath.Join(dir, "data/sample"), 0o755)
	os.MkdirAll(filepath.Join(dir, "data/secret"), 0o755)
	os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte("name: a+b x100\nlimits:\n  time_limit: 1\n  memory: 256\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "data/sample/1.in"), []byte("1 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "data/sample/1.ans"), []byte("3\n"), 0o644)
	for i := 0; i < 100; i++ {
		a, b := i*7919-300000, i*104729
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("data/secret/%03d.in", i)), []byte(fmt.Sprintf("%d %d\n", a, b)), 0o644)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("data/secret/%03d.ans", i)), []byte(fmt.Sprintf("%d\n", a+b)), 0o644)
	}
	return dir
}

const aplusbCpp = "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<\"\\n\";}\n"

// BenchmarkJudge100 judges a 100-test batch problem (101 with the
// sample) with a C++ solution, compile cached: the first judging is not
// measured, and of each later one only the tests are (from the compile's
// end, heard by an Observer, to the judging's end), as if the compiled
// program were kept (the judge keeps none: each judging compiles again,
// untimed). It judges twice: one test at a time, and with as many tests
// at once as the machine has CPUs (Judge.Lanes, DOCKET_PARALLEL_TESTS).
// Each iteration then runs the same tests in turn other ways, so the
// machine's noise hits all alike: (a) the reference judge a user would
// pick instead, isolate, as the issue measured it, a bash loop of
// `isolate --run` and `diff` per test, and (b) as a stricter reference,
// a loop of `isolate --run` per test whose output is compared
// in-process (no diff process); (c) the floor, plain fork+exec of that
// binary per test, output compared. The solution is compiled once by
// the cpp language's command for all three. Reported: each one's median
// time per test, docket's ratios to them, and the share of the
// one-at-a-time judging's wall time spent outside sandbox runs (target
// under 10%).
func BenchmarkJudge100(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("judging needs the full sandbox, which needs root")
	}
	f := newJudge100(b)
	var docket, wide, isoBash, isolate, plain []time.Duration
	var outside, wall time.Duration
	perTest := func(d time.Duration) time.Duration { return d / time.Duration(len(f.tests)) }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, out := f.judge(b, f.j)
		docket = append(docket, perTest(d))
		outside += out
		wall += d
		d, _ = f.judge(b, f.wide)
		wide = append(wide, perTest(d))
		if f.iso != nil {
			isoBash = append(isoBash, perTest(f.bashLoop(b)))
			isolate = append(isolate, perTest(f.loop(b, f.isolateRun)))
		}
		plain = append(plain, perTest(f.loop(b, f.plainRun)))
	}
	b.StopTimer()
	dm, wm, pm := benchref.Median(docket), benchref.Median(wide), benchref.Median(plain)
	b.ReportMetric(100*float64(outside)/float64(wall), "%outside-sandbox")
	b.ReportMetric(benchref.Ms(dm), "docket-ms/test")
	b.ReportMetric(float64(time.Second)/float64(dm), "tests/s")
	b.ReportMetric(benchref.Ms(wm), "parallel-ms/test")
	b.ReportMetric(float64(len(f.wide.Lanes)+1), "parallel-tests")
	b.ReportMetric(benchref.Ms(pm), "plain-ms/test")
	b.ReportMetric(float64(dm)/float64(pm), "docket/plain")
	b.ReportMetric(float64(wm)/float64(pm), "parallel/plain")
	if f.iso != nil {
		bm, im := benchref.Median(isoBash), benchref.Median(isolate)
		b.ReportMetric(benchref.Ms(bm), "isolate-bash-ms/test")
		b.ReportMetric(benchref.Ms(im), "isolate-ms/test")
		b.ReportMetric(float64(dm)/float64(bm), "docket/isolate-bash")
		b.ReportMetric(float64(wm)/float64(bm), "parallel/isolate-bash")
		b.ReportMetric(float64(dm)/float64(im), "docket/isolate")
		b.ReportMetric(float64(wm)/float64(im), "parallel/isolate")
	}
}

// judge100 is BenchmarkJudge100's fixture: a judge, the package, its tests
// and the solution compiled outside the sandbox for the baselines.
type judge100 struct {
	j     *Judge // one test at a time
	wide  *Judge // with a lane per further CPU: as many tests at once as CPUs
	p     *problem.Problem
	tests []benchTest
	exe   string            // the solution, compiled by the cpp language's command
	iso   *benchref.Isolate // nil: no isolate here (the column is skipped)
	// script is the bash loop of the isolate reference, list
	// its tests (input, answer, a line each) and out its output file.
	script, list, out string
}

type benchTest struct{ in, ans string }

func newJudge100(b *testing.B) *judge100 {
	f := &judge100{}
	f.j, f.wide = judgePair(b)
	var err error
	dir := hundredTests(b)
	if f.p, err = problem.Load(dir); err != nil {
		b.Fatal(err)
	}
	f.tests = benchTests(b, dir)
	f.judge(b, f.j) // the compile: not measured
	f.judge(b, f.wide)
	f.exe = compileCpp(b, f.j.Langs)
	if f.iso, err = benchref.OpenIsolate(b, 91); err != nil {
		b.Logf("isolate columns skipped: %v", err)
	} else {
		b.Logf("isolate box 91, --cg %v", f.iso.CG)
		copyExecutable(b, f.exe, filepath.Join(f.iso.Dir, "sol"))
		f.writeBashLoop(b)
	}
	return f
}

// judgePair is a judge on one slot and one with a lane per further CPU,
// sharing their work and cache directories.
func judgePair(b *testing.B) (one, wide *Judge) {
	sb, err := sandbox.New(sandbox.Config{StateDir: b.TempDir(), UIDBase: 64000})
	if err != nil {
		b.Fatal(err)
	}
	one = &Judge{Slot: claimSlot(b, sb), Langs: langs.Builtin(), WorkDir: benchWorkDir(b), CacheDir: b.TempDir()}
	return one, withLanes(b, sb, *one, runtime.NumCPU()-1)
}

// writeBashLoop writes the isolate reference: for each test,
// `isolate --run -- ./sol <in >out` and `diff -b out ans`, in bash.
func (f *judge100) writeBashLoop(b *testing.B) {
	dir := b.TempDir()
	f.script, f.list, f.out = filepath.Join(dir, "loop.sh"), filepath.Join(dir, "tests"), filepath.Join(dir, "out")
	var list strings.Builder
	for _, tc := range f.tests {
		fmt.Fprintf(&list, "%s %s\n", tc.in, tc.ans)
	}
	script := "set -e\nwhile read -r in ans; do\n  \"$@\" <\"$in\" >" + f.out + "\n  diff -b " + f.out + " \"$ans\" >/dev/null\ndone <" + f.list + "\n"
	if err := os.WriteFile(f.list, []byte(list.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(f.script, []byte(script), 0o644); err != nil {
		b.Fatal(err)
	}
}

// bashLoop runs the bash loop once and gives its wall time.
func (f *judge100) bashLoop(b *testing.B) time.Duration {
	isolate := f.iso.Command("./sol")
	cmd := exec.Command("bash", append([]string{f.script}, isolate.Args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("the isolate loop: %v: %s", err, stderr.String())
	}
	return time.Since(start)
}

// benchWorkDir is a work directory on the file system of docket's default
// one (DefaultWorkDir), as a deployment has it, rather than under $TMPDIR:
// a judge creates and removes directories there for every test, and on a
// development machine /tmp may be a directory of millions of entries
// whose mkdir takes half a millisecond (seen here).
func benchWorkDir(b *testing.B) string {
	parent := filepath.Dir(DefaultWorkDir())
	if err := os.MkdirAll(parent, 0o755); err != nil {
		b.Logf("work directory under $TMPDIR: %v", err)
		return b.TempDir()
	}
	dir, err := os.MkdirTemp(parent, "bench-work-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// benchTests lists the package's tests, sample first, as the judge runs them.
func benchTests(b *testing.B, dir string) []benchTest {
	ins, _ := filepath.Glob(filepath.Join(dir, "data/sample/*.in"))
	secret, _ := filepath.Glob(filepath.Join(dir, "data/secret/*.in"))
	var tests []benchTest
	for _, in := range append(ins, secret...) {
		tests = append(tests, benchTest{in, strings.TrimSuffix(in, ".in") + ".ans"})
	}
	if len(tests) != 101 {
		b.Fatalf("%d tests in the package, want 101", len(tests))
	}
	return tests
}

// judge judges the solution once and gives the wall time of its tests
// (from the end of the compile) and the part of it outside sandbox runs,
// counting the compile's whole wall time as sandbox time (so the share is
// an upper bound).
func (f *judge100) judge(b *testing.B, j *Judge) (tests, outside time.Duration) {
	var t Timing
	obs := &compileClock{start: time.Now()}
	res := j.Judge(context.Background(), f.p, Submission{Language: "cpp", Files: map[string][]byte{"main.cpp": []byte(aplusbCpp)}},
		Options{Timing: &t, Observer: obs})
	end := time.Now()
	if res.Verdict != AC || len(res.Tests) != 101 || obs.compiled.IsZero() {
		b.Fatalf("verdict %s, %d tests: %s", res.Verdict, len(res.Tests), res.Error)
	}
	tests = end.Sub(obs.compiled)
	return tests, tests - (t.Sandbox - obs.compiled.Sub(obs.start))
}

// compileClock notes when the compile ended.
type compileClock struct{ start, compiled time.Time }

func (c *compileClock) Compiled(CompileResult)    { c.compiled = time.Now() }
func (c *compileClock) Test(int, int, TestResult) {}

// loop runs every test with run and compares its output with the answer
// (tokens, as the default comparison does); it gives the loop's wall time.
func (f *judge100) loop(b *testing.B, run func(stdin *os.File, stdout *bytes.Buffer) error) time.Duration {
	var out bytes.Buffer
	start := time.Now()
	for _, tc := range f.tests {
		in, err := os.Open(tc.in)
		if err != nil {
			b.Fatal(err)
		}
		out.Reset()
		err = run(in, &out)
		in.Close()
		ans, rerr := os.ReadFile(tc.ans)
		if err != nil || rerr != nil || !slices.EqualFunc(bytes.Fields(out.Bytes()), bytes.Fields(ans), bytes.Equal) {
			b.Fatalf("%s: %v %v: output %q, answer %q", tc.in, err, rerr, out.Bytes(), ans)
		}
	}
	return time.Since(start)
}

// isolateRun is one test in isolate's box, as `isolate --run -- ./sol <in`.
func (f *judge100) isolateRun(stdin *os.File, stdout *bytes.Buffer) error {
	return f.iso.Run(stdin, stdout, "./sol")
}

// plainRun is one test by plain fork+exec, as `./sol <in`.
func (f *judge100) plainRun(stdin *os.File, stdout *bytes.Buffer) error {
	cmd := exec.Command(f.exe)
	cmd.Stdin, cmd.Stdout = stdin, stdout
	return cmd.Run()
}

// compileCpp compiles the solution with the cpp language's own command.
func compileCpp(b *testing.B, c *langs.Catalog) string {
	lang, err := c.Lookup("cpp")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	src, exe := filepath.Join(dir, "main.cpp"), filepath.Join(dir, "sol")
	if err := os.WriteFile(src, []byte(aplusbCpp), 0o644); err != nil {
		b.Fatal(err)
	}
	var argv []string
	for _, a := range lang.Compile {
		argv = append(argv, strings.NewReplacer("{exe}", exe, "{files}", src).Replace(a))
	}
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		b.Fatalf("%v: %v\n%s", argv, err, out)
	}
	return exe
}

func copyExecutable(b *testing.B, from, to string) {
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, data, 0o755)
	}
	if err != nil {
		b.Fatal(err)
	}
}
