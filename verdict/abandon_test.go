package verdict

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/verdict/problem"
)

// abandonBound is how long an abandoned judging may take to return: the
// run in progress is killed at once; the rest is slack for a loaded
// machine. Nothing here would end by itself within a minute.
const abandonBound = 2 * time.Second

// heardAfter is an Observer that counts what it hears and what it hears
// after the judging was given up.
type heardAfter struct {
	mu        sync.Mutex
	compiled  chan struct{}
	abandoned bool
	total     int
	after     []string
}

func newHeardAfter() *heardAfter { return &heardAfter{compiled: make(chan struct{})} }

func (h *heardAfter) heard(what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total++
	if h.abandoned {
		h.after = append(h.after, what)
	}
}

func (h *heardAfter) Compiled(CompileResult) { h.heard("compiled"); close(h.compiled) }
func (h *heardAfter) Test(_, _ int, r TestResult) {
	h.heard("test " + r.Name + " " + string(r.Verdict))
}
func (h *heardAfter) Group(g GroupResult) { h.heard("group " + g.Name + " " + string(g.Verdict)) }

func (h *heardAfter) giveUp(cancel context.CancelFunc) time.Time {
	h.mu.Lock()
	h.abandoned = true
	h.mu.Unlock()
	cancel()
	return time.Now()
}

// sleeper would sleep through any time limit of these tests.
const sleeper = "#include <unistd.h>\nint main(void){sleep(120);return 0;}\n"

// slowPackage is a package of three secret tests with a 60 s time limit.
func slowPackage(t *testing.T) *problem.Problem {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "slow")
	os.MkdirAll(filepath.Join(dir, "data/secret"), 0o755)
	os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte("name: slow\nlimits:\n  time_limit: 60\n"), 0o644)
	for _, n := range []string{"1", "2", "3"} {
		os.WriteFile(filepath.Join(dir, "data/secret", n+".in"), []byte("1 2\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "data/secret", n+".ans"), []byte("3\n"), 0o644)
	}
	p, err := problem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// nestedPackage is a scoring package whose one test is in a subgroup of
// secret: a judging abandoned there must not report secret either.
func nestedPackage(t *testing.T) *problem.Problem {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "nested")
	os.MkdirAll(filepath.Join(dir, "data/secret/g1"), 0o755)
	os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte("name: nested\ntype: scoring\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "data/secret/g1/1.in"), []byte("1 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "data/secret/g1/1.ans"), []byte("3\n"), 0o644)
	p, err := problem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkAbandoned holds an abandoned judging to its promises: back at once
// with ErrAbandoned (and the context's cause), no result, nothing heard
// after the cancel.
func checkAbandoned(t *testing.T, res *Result, err error, h *heardAfter, took time.Duration) {
	t.Helper()
	t.Logf("cancel to return: %v; %d observer calls in all", took.Round(time.Millisecond), h.total)
	if took > abandonBound {
		t.Errorf("the judging returned %v after its context was cancelled, want at once (< %v)", took, abandonBound)
	}
	if res != nil || !errors.Is(err, ErrAbandoned) || !errors.Is(err, context.Canceled) {
		t.Errorf("JudgeOrAbandon: result %v, error %v; want no result and an error matching ErrAbandoned and context.Canceled", res, err)
	}
	if len(h.after) > 0 {
		t.Errorf("the observer heard %v after the judging was abandoned, want nothing", h.after)
	}
}

// judgeAndGiveUp judges sub, giving up delay after the compile, and
// holds the judging to checkAbandoned's promises.
func judgeAndGiveUp(t *testing.T, j *Judge, p *problem.Problem, sub Submission, opt Options, delay time.Duration) *heardAfter {
	t.Helper()
	h := newHeardAfter()
	opt.Observer = h
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	go func() {
		<-h.compiled
		time.Sleep(delay)
		cancelled <- h.giveUp(cancel)
	}()
	res, err := j.JudgeOrAbandon(ctx, p, sub, opt)
	checkAbandoned(t, res, err, h, time.Since(<-cancelled))
	return h
}

// Cancelling during a long test (a program that would sleep through its
// 60 s limit) kills the run at once; the remaining tests are neither run
// nor reported as skipped.
func TestAbandonDuringTest(t *testing.T) {
	sub := Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(sleeper)}}
	h := judgeAndGiveUp(t, testJudge(t), slowPackage(t), sub, Options{}, 500*time.Millisecond) // into the first test
	if h.total != 1 {
		t.Errorf("%d observer calls, want only the compile's", h.total)
	}
}

// Cancelling during a compile (a compiler that takes a minute) kills it
// at once; nothing is reported, not even the compile.
func TestAbandonDuringCompile(t *testing.T) {
	j := testJudge(t)
	cat, err := langs.Load(slowCompilerFile(t))
	if err != nil {
		t.Fatal(err)
	}
	j.Langs = cat
	h := newHeardAfter()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	time.AfterFunc(time.Second, func() { cancelled <- h.giveUp(cancel) })
	res, err := j.JudgeOrAbandon(ctx, slowPackage(t), Submission{Language: "slowc", Files: map[string][]byte{"main.slow": []byte("echo 3\n")}}, Options{Observer: h})
	took := time.Since(<-cancelled)
	checkAbandoned(t, res, err, h, took)
	if h.total != 0 {
		t.Errorf("%d observer calls, want none", h.total)
	}
}

// slowCompilerFile is a languages file with slowc, whose compiler sleeps
// a minute.
func slowCompilerFile(t *testing.T) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "languages.yaml")
	os.WriteFile(f, []byte(`languages:
  - id: slowc
    name: slow compiler
    extensions: [".slow"]
    source: main.slow
    compile: ["/bin/sleep", "60"]
    run: ["/bin/sh", "{main}"]
    processes: 4
`), 0o644)
	return f
}

// Every kind of run honours the cancel: the program of an interactive
// problem (with its interactor), a pass of a multi-pass problem, the
// first program of a two-program problem, a test in a subgroup (whose
// parent group must not be reported either). Each submission would
// sleep through a 60 s time limit.
func TestAbandonEveryKindOfRun(t *testing.T) {
	j := testJudge(t)
	sleeper := []byte(sleeper)
	for _, c := range []struct {
		problem string
		files   map[string][]byte
	}{
		{"guess-kattis", map[string][]byte{"main.c": sleeper}},
		{"multipass", map[string][]byte{"main.c": sleeper}},
		{"twostep-programs", map[string][]byte{"first.c": sleeper, "second.c": sleeper}},
		{"nested", map[string][]byte{"main.c": sleeper}},
	} {
		t.Run(c.problem, func(t *testing.T) {
			var p *problem.Problem
			var err error
			if c.problem == "nested" {
				p = nestedPackage(t)
			} else if p, err = problem.Load(filepath.Join("..", "problems", c.problem)); err != nil {
				t.Fatal(err)
			}
			judgeAndGiveUp(t, j, p, Submission{Language: "c", Files: c.files}, Options{TimeLimit: time.Minute}, 700*time.Millisecond) // into the first test
		})
	}
}
