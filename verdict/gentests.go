package verdict

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/docketjudge/docket/internal/safedir"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// Building a package's tests (problem.Generation, a Polygon package's
// generated tests and missing answers), as Polygon's doall builds them:
// each generator compiled and run in the sandbox as untrusted as a
// submission, its stdout the test's input; the main solution run on
// each input, its output the answer. The tests are built once per
// package digest into the cache directory (tests/<digest>), and found
// there after: docket run and docket problem check build them on first
// use, docket problem push before it uploads, so that a worker never
// does.

// MaxGeneratedMB bounds a generated test's input (a generator's
// stdout); a generator that writes more fails the build.
const MaxGeneratedMB = 256

// generatorTime bounds a generator's run (CPU time; wall twice it).
const generatorTime = 30 * time.Second

// ErrTestBuild is what a failure to build a test wraps: a generator or
// the main solution that does not compile or fails on a test.
var ErrTestBuild = errors.New("building the tests")

// TestBuild is what BuildTests did.
type TestBuild struct {
	Tests  int           // the tests built, or found built
	Cached bool          // found in the cache directory
	Took   time.Duration // the build's time (finding them cached: little)
	Dir    string        // where the built files are
}

// TestsBuilt reports whether p's tests are all files: true for a
// package without tests to build, and after BuildTests.
func TestsBuilt(p *problem.Problem) bool {
	if p.Generation == nil {
		return true
	}
	for _, bt := range p.Generation.Tests {
		if bt.Test.In == "" || bt.Test.Ans == "" {
			return false
		}
	}
	return true
}

// BuiltFiles are the files BuildTests made for p, by their paths in the
// package (tests/05 and tests/05.a): what docket problem push adds to
// the package it uploads. Empty before BuildTests.
func BuiltFiles(p *problem.Problem, b *TestBuild) map[string]string {
	out := map[string]string{}
	if p.Generation == nil || b == nil || b.Dir == "" {
		return out
	}
	for _, bt := range p.Generation.Tests {
		if bt.Generator != "" {
			out[bt.Input] = filepath.Join(b.Dir, bt.Number)
		}
		out[bt.Answer] = filepath.Join(b.Dir, bt.Number+".a")
	}
	return out
}

// testsMu serializes builds of tests in this process.
var testsMu sync.Mutex

// BuildTests builds p's tests that are not files of the package, or
// finds them built, and points p's tests at them. A generator or the
// main solution failing is an error naming the test (ErrTestBuild).
func (j *Judge) BuildTests(ctx context.Context, p *problem.Problem) (*TestBuild, error) {
	start := time.Now()
	if p.Generation == nil {
		return &TestBuild{}, nil
	}
	cache := j.cacheDir()
	dir := cachedDir(cache, "tests", p.Digest)
	testsMu.Lock()
	defer testsMu.Unlock()
	if err := trustedLevels(cache, filepath.Dir(dir)); err != nil {
		return nil, fmt.Errorf("tests: cache directory: %w", err)
	}
	tb := &TestBuild{Tests: len(p.Generation.Tests), Dir: dir}
	if !cachedProgram(cache, dir) {
		if err := j.buildTestsInto(ctx, p, dir); err != nil {
			return nil, err
		}
	} else {
		tb.Cached = true
	}
	for _, bt := range p.Generation.Tests {
		if bt.Generator != "" {
			bt.Test.In = filepath.Join(dir, bt.Number)
		}
		bt.Test.Ans = filepath.Join(dir, bt.Number+".a")
	}
	tb.Took = time.Since(start)
	return tb, nil
}

// cachedDir is where a package's built things of a kind are cached.
func cachedDir(cache, kind, digest string) string {
	key := strings.TrimPrefix(digest, "sha256:")
	if len(key) > 24 {
		key = key[:24]
	}
	return filepath.Join(cache, kind, key)
}

// buildTestsInto builds the tests beside dir and renames them into
// place, so that half-built tests are never found there.
func (j *Judge) buildTestsInto(ctx context.Context, p *problem.Problem, dir string) error {
	tmp := dir + fmt.Sprintf(".tmp%d", os.Getpid())
	os.RemoveAll(tmp)
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return err
	}
	work := j.workDir()
	if err := safedir.Ensure(work, 0o711); err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	ws, err := os.MkdirTemp(work, "gen-")
	if err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	defer os.RemoveAll(ws)
	os.Chmod(ws, 0o711)
	g := &generation{j: j, p: p, ws: ws, out: tmp, ctx: ctx}
	if err := g.run(); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, builtMarker), nil, 0o644); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	os.RemoveAll(dir)
	return os.Rename(tmp, dir)
}

// generation is one build of a package's tests.
type generation struct {
	j       *Judge
	p       *problem.Problem
	ws, out string
	ctx     context.Context
	gens    map[string]*built
	main    *built
	r       *judging // runs the main solution, by the problem's limits
}

func (g *generation) run() error {
	gen := g.p.Generation
	g.gens = map[string]*built{}
	for name, prog := range gen.Generators {
		b, err := g.build(prog, "generator "+name, "gen-"+name)
		if err != nil {
			return err
		}
		g.gens[name] = b
	}
	if gen.Main == nil {
		return fmt.Errorf("%w: no main solution", ErrTestBuild)
	}
	b, err := g.build(gen.Main, "main solution "+gen.Main.Sources[0], "main")
	if err != nil {
		return err
	}
	g.main = b
	g.r = &judging{j: g.j, p: g.p, lang: b.lang, ws: g.ws, res: &Result{}, ctx: g.ctx, slot: g.j.Slot, stats: &runStats{}}
	g.r.limits()
	for _, bt := range gen.Tests {
		if err := g.test(bt); err != nil {
			return err
		}
	}
	return nil
}

// build compiles a program of the package as untrusted as a submission.
func (g *generation) build(prog *problem.Program, what, box string) (*built, error) {
	lang, err := programLanguage(g.j.Langs, prog)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrTestBuild, what, err)
	}
	files, err := readProgram(prog, what)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTestBuild, err)
	}
	b, cr, err := buildMain(g.ctx, g.j.Slot, lang, files, entryPoint{file: prog.Sources[0]}, filepath.Join(g.ws, box), false)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrTestBuild, what, err)
	}
	if !cr.OK {
		return nil, fmt.Errorf("%w: %s does not compile: %s", ErrTestBuild, what, truncate(strings.TrimSpace(cr.Log), 2000))
	}
	return b, nil
}

// test builds one test's files: its input from its generator, when it
// has one, and its answer from the main solution.
func (g *generation) test(bt problem.BuildTest) error {
	in := bt.Test.In
	if bt.Generator != "" {
		in = filepath.Join(g.out, bt.Number)
		if err := g.generate(bt, in); err != nil {
			return err
		}
	}
	ans := filepath.Join(g.out, bt.Number+".a")
	var stderr stderrHead
	res, err := g.r.runProgram(g.main, nil, in, ans, "", &stderr)
	if err != nil {
		return fmt.Errorf("%w: test %s: the main solution: %v", ErrTestBuild, bt.Number, err)
	}
	tr := withStderr(fromSandbox(TestResult{}, res), &stderr)
	if tr.Verdict != AC {
		return fmt.Errorf("%w: test %s: the main solution %s got %s on its input %s (exit code %d) %s", ErrTestBuild, bt.Number,
			g.p.Generation.Main.Sources[0], tr.Verdict, bt.Input, tr.ExitCode, oneLineOf(tr.StderrExcerpt))
	}
	return os.Chmod(ans, 0o644)
}

// generate runs a test's generator, its stdout into path.
func (g *generation) generate(bt problem.BuildTest, path string) error {
	b := g.gens[bt.Generator]
	out, err := newOutput(path)
	if err != nil {
		return err
	}
	defer out.Close()
	var stderr stderrHead
	cmd := g.j.Slot.CommandContext(g.ctx, "")
	cmd.BoxFrom = b.dir
	cmd.Args = b.command(generatorMemMB, bt.Args...)
	cmd.Env, cmd.Binds = b.lang.Env, binds(b.lang)
	cmd.Stdout, cmd.Stderr = out, &stderr
	cmd.Limits = generatorLimits(b)
	res, err := cmd.Run()
	if err != nil {
		return fmt.Errorf("%w: test %s: generator %s: %v", ErrTestBuild, bt.Number, bt.Generator, err)
	}
	// A program that catches EFBIG itself ends RE: the file's size
	// tells.
	over := res.Status == sandbox.OLE
	if st, err := out.Stat(); err == nil && st.Size() >= int64(MaxGeneratedMB)<<20 {
		over = true
	}
	if res.Status != sandbox.OK || over {
		why := string(res.Status)
		if over {
			why = fmt.Sprintf("its output is over the limit of %d MiB", MaxGeneratedMB)
		}
		return fmt.Errorf("%w: test %s: generator command %q failed: %s (exit code %d) %s", ErrTestBuild, bt.Number, bt.Cmd,
			why, res.ExitCode, oneLineOf(stderr.String()))
	}
	return out.Chmod(0o644)
}

// generatorMemMB is a generator's memory limit.
const generatorMemMB = 1024

func generatorLimits(b *built) sandbox.Limits {
	size := int64(MaxGeneratedMB) << 20
	l := sandbox.Limits{
		CPUTime: generatorTime, WallTime: 2 * generatorTime, Memory: int64(generatorMemMB+b.lang.MemoryReserveMB) << 20,
		Processes: b.lang.Processes, Threads: b.lang.Threads, OpenFiles: b.lang.OpenFiles,
		Stdout: size, Stderr: submissionStderrCap, TruncateStderr: true, FileSize: size, Disk: 64 << 20,
	}
	if b.lang.AddressSpaceLimit {
		l.AddressSpace = l.Memory
	}
	return l
}
