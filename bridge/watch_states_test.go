package bridge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rendered is the watch page as a person sees it, read back from
// Chromium: innerText (what is laid out on screen, hidden elements left
// out), each test row's cells, and whether the page's parts are visible.
type rendered struct {
	Sub      string          `json:"sub"`
	State    string          `json:"state"`
	Text     string          `json:"text"`
	HTML     string          `json:"html"`
	Progress string          `json:"progress"`
	About    string          `json:"about"`
	Rows     [][]string      `json:"rows"`
	Visible  map[string]bool `json:"visible"`
}

const renderedExpr = `(() => {
  const $ = (id) => document.getElementById(id);
  if (!$('tests')) return {state: 'not-loaded', rows: [], visible: {}};
  const visible = {};
  for (const id of ['about', 'compile', 'compile-log', 'final', 'explain', 'error', 'no-tests', 'hidden-note', 'progress', 'tests'])
    visible[id] = $(id).checkVisibility();
  return {
    sub: $('sub').textContent,
    state: document.body.dataset.state || '',
    text: document.body.innerText,
    html: document.documentElement.outerHTML,
    progress: $('progress').innerText,
    about: $('about').innerText,
    rows: Array.from(document.querySelectorAll('#tests tbody tr')).map(tr => Array.from(tr.children).map(td => td.innerText.trim())),
    visible,
  };
})()`

// row returns the cells of the test row named name, without the index.
func (r rendered) row(name string) []string {
	for _, cells := range r.Rows {
		if len(cells) == 6 && cells[1] == name {
			return cells[1:]
		}
	}
	return nil
}

// wtest is one test result as a worker publishes it; more overrides.
func wtest(name, verdict string, more map[string]any) map[string]any {
	group, _, _ := strings.Cut(name, "/")
	t := map[string]any{"name": name, "group": group, "sample": group == "sample", "verdict": verdict,
		"time_ms": 5, "wall_ms": 6, "memory_kb": 2048, "exit_code": 0, "signal": 0,
		"verdict_source": "stdout", "feedback": "", "score": 0}
	if verdict == "SK" {
		t["time_ms"], t["wall_ms"], t["memory_kb"], t["verdict_source"] = 0, 0, 0, "judge"
	}
	for k, v := range more {
		t[k] = v
	}
	return t
}

// watchRun is a submission's events: total tests announced, the tests
// that finished, and the final verdict ("" while it runs); none at all
// while it is queued.
type watchRun struct {
	queued   bool
	policy   string
	compile  map[string]any // nil: no compile event
	tests    []map[string]any
	total    int
	verdict  string
	errorMsg string
}

// publishRun publishes run as submission id, as a worker would: started
// naming the problem and the language, compile, a test event per test,
// and final with the whole result.
func (e *env) publishRun(id string, run watchRun) {
	e.t.Helper()
	if run.queued {
		return
	}
	e.publish(id, "started", map[string]any{"worker": "w-1", "problem": "aplusb", "language": "cpp"})
	if run.compile != nil {
		e.publish(id, "compile", map[string]any{"compile": run.compile, "feedback_policy": run.policy})
	}
	total := run.total
	if total == 0 {
		total = len(run.tests)
	}
	for i, t := range run.tests {
		e.publish(id, "test", map[string]any{"index": i + 1, "total": total, "test": t, "feedback_policy": run.policy})
	}
	if run.verdict == "" {
		return
	}
	score := 0
	if run.verdict == "AC" {
		score = 1
	}
	compile := run.compile
	if compile == nil {
		compile = map[string]any{"ok": false, "log": ""}
	}
	tests := run.tests
	if tests == nil {
		tests = []map[string]any{}
	}
	slowest := 0 // the result's time_ms: the largest of any test's
	for _, t := range tests {
		slowest = max(slowest, t["time_ms"].(int))
	}
	res := map[string]any{"v": 1, "submission_id": id, "problem": "aplusb", "language": "cpp",
		"verdict": run.verdict, "score": score, "max_score": 1, "time_ms": slowest, "memory_kb": 2048,
		"compile": compile, "tests": tests, "groups": []any{}, "worker": "w-1", "attempt": 1,
		"error": run.errorMsg, "feedback_policy": run.policy}
	e.publish(id, "final", map[string]any{"worker": "w-1", "result": res, "feedback_policy": run.policy})
}

// watchState is one state of a submission and what the page must show.
type watchState struct {
	name string
	run  watchRun
	// show: text on screen; absent: text not on screen; leak: text
	// nowhere in the document.
	show, absent, leak []string
	check              func(t *testing.T, r rendered)
}

var (
	compileErr = "main.cpp:3:1: error: expected ';' before '}' token"
	judgeErr   = "problem aplusb: the package does not load: problem.yaml: line 3: unknown key \"limts\""
	pyStderr   = "Traceback (most recent call last):\n  File \"a.py\", line 2\nValueError: invalid literal for int()"
)

func watchStates() []watchState {
	skipped := func(t *testing.T, r rendered, name string) {
		t.Helper()
		if c := r.row(name); c == nil || c[1] != "skipped" || c[2] != "" || c[3] != "" || c[4] != "not run: an earlier test failed" {
			t.Errorf("skipped test %s: row %q, want verdict \"skipped\", no time or memory, and why", name, c)
		}
	}
	return []watchState{{
		name: "AC",
		run: watchRun{policy: "samples", compile: map[string]any{"ok": true, "log": ""}, verdict: "AC", tests: []map[string]any{
			wtest("sample/1", "AC", nil), wtest("secret/1", "AC", nil), wtest("secret/2", "AC", nil)}},
		show:   []string{"problem aplusb · language cpp", "AC accepted 1 / 1", "3 of 3 tests run", "compiled"},
		absent: []string{"No test has finished yet", "details hidden", "first failed test"},
	}, {
		name: "WA-all",
		run: watchRun{policy: "all", verdict: "WA", tests: []map[string]any{
			wtest("sample/1", "AC", nil),
			wtest("secret/1", "WA", map[string]any{"feedback": "line 1: expected 3, got 4"}),
			wtest("secret/2", "SK", nil)}},
		show:   []string{"WA wrong answer", "first failed test: secret/1 (WA)", "2 of 3 tests run, 1 skipped"},
		absent: []string{"details hidden", "0 ms", "0 KiB"},
		check: func(t *testing.T, r rendered) {
			if c := r.row("secret/1"); c == nil || c[1] != "WA" || c[4] != "line 1: expected 3, got 4" {
				t.Errorf("secret/1 row %q, want WA and its feedback shown under policy all", c)
			}
			skipped(t, r, "secret/2")
		},
	}, {
		name: "WA-samples",
		run: watchRun{policy: "samples", verdict: "WA", tests: []map[string]any{
			wtest("sample/1", "WA", map[string]any{"feedback": "line 2: expected 7, got 8"}),
			wtest("secret/1", "WA", map[string]any{"feedback": "SECRET-FEEDBACK line 1: expected 99"}),
			wtest("secret/2", "RE", map[string]any{"exit_code": 1, "verdict_source": "exit_code", "stderr_excerpt": "SECRET-STDERR"})}},
		show: []string{"line 2: expected 7, got 8", "first failed test: sample/1 (WA)"},
		leak: []string{"SECRET-FEEDBACK", "SECRET-STDERR", "expected 99"},
		check: func(t *testing.T, r rendered) {
			if c := r.row("secret/1"); c == nil || c[1] != "WA" || c[4] != "details hidden" {
				t.Errorf("secret/1 row %q, want WA and \"details hidden\"", c)
			}
			if c := r.row("secret/2"); c == nil || c[1] != "RE exit 1" || c[4] != "details hidden" {
				t.Errorf("secret/2 row %q, want \"RE exit 1\" and \"details hidden\"", c)
			}
			if !r.Visible["hidden-note"] {
				t.Error("the note saying what \"details hidden\" means is not visible")
			}
		},
	}, {
		name: "RE",
		run: watchRun{policy: "all", verdict: "RE", tests: []map[string]any{
			wtest("sample/1", "RE", map[string]any{"exit_code": 3, "verdict_source": "exit_code", "stderr_excerpt": pyStderr}),
			wtest("secret/1", "RE", map[string]any{"signal": 11, "verdict_source": "signal"}),
			wtest("secret/2", "RE", map[string]any{"signal": 42, "verdict_source": "signal"}),
			wtest("secret/3", "SK", nil)}},
		show: []string{"RE runtime error", "first failed test: sample/1 (RE exit 3)", "ValueError: invalid literal for int()"},
		check: func(t *testing.T, r rendered) {
			if c := r.row("sample/1"); c == nil || c[1] != "RE exit 3" || !strings.Contains(c[4], "stderr:") || !strings.Contains(c[4], "Traceback") {
				t.Errorf("sample/1 row %q, want \"RE exit 3\" and its stderr", c)
			}
			if c := r.row("secret/1"); c == nil || c[1] != "RE SIGSEGV" {
				t.Errorf("secret/1 row %q, want \"RE SIGSEGV\"", c)
			}
			if c := r.row("secret/2"); c == nil || c[1] != "RE signal 42" {
				t.Errorf("secret/2 row %q, want \"RE signal 42\"", c)
			}
			skipped(t, r, "secret/3")
		},
	}, {
		name: "TLE",
		run: watchRun{policy: "samples", verdict: "TLE", tests: []map[string]any{
			wtest("sample/1", "AC", nil),
			wtest("secret/1", "TLE", map[string]any{"time_ms": 1000, "wall_ms": 1013, "signal": 9, "verdict_source": "cpu_time"}),
			wtest("secret/2", "SK", nil)}},
		show:   []string{"TLE time limit exceeded", "first failed test: secret/1 (TLE)", "time 1000 ms"},
		absent: []string{"SIGKILL"},
		check: func(t *testing.T, r rendered) {
			if c := r.row("secret/1"); c == nil || c[1] != "TLE" || c[2] != "1000 ms" || c[4] != "details hidden" {
				t.Errorf("secret/1 row %q, want TLE, 1000 ms, details hidden", c)
			}
			skipped(t, r, "secret/2")
		},
	}, {
		name: "CE",
		run:  watchRun{policy: "samples", verdict: "CE", compile: map[string]any{"ok": false, "log": compileErr}},
		show: []string{"compilation failed", compileErr, "CE compilation error", "The submission did not compile",
			"No test was run: the submission did not compile."},
		absent: []string{"No test has finished yet"},
		check: func(t *testing.T, r rendered) {
			if !r.Visible["compile-log"] || r.Visible["tests"] {
				t.Errorf("compile log visible %v, want true; empty test table visible %v, want false", r.Visible["compile-log"], r.Visible["tests"])
			}
		},
	}, {
		name: "SE",
		run:  watchRun{policy: "samples", verdict: "SE", errorMsg: judgeErr},
		show: []string{"SE judge error", judgeErr, "not a verdict on the program",
			"No test was run: the judge stopped with an error (above)."},
		absent: []string{"No test has finished yet", "compilation failed", "0 / 1"},
		check: func(t *testing.T, r rendered) {
			if !r.Visible["error"] || r.Visible["compile"] {
				t.Errorf("error visible %v, compile visible %v: want the error and no compile step", r.Visible["error"], r.Visible["compile"])
			}
		},
	}, {
		name: "SE-midway",
		run: watchRun{policy: "all", verdict: "SE", total: 6, errorMsg: "test secret/1: the checker failed: exit status 7",
			tests: []map[string]any{wtest("sample/1", "AC", nil),
				wtest("secret/1", "SE", map[string]any{"feedback": "the checker failed: exit status 7", "verdict_source": "checker"})}},
		show:   []string{"SE judge error", "2 of 6 tests run", "test secret/1: the checker failed: exit status 7"},
		absent: []string{"0 / 1", "No test"},
	}, {
		name: "running",
		run: watchRun{policy: "samples", compile: map[string]any{"ok": true, "log": ""}, total: 6,
			tests: []map[string]any{wtest("sample/1", "AC", nil)}},
		show:   []string{"problem aplusb · language cpp", "test 1 of 6 finished · 5 remaining", "live"},
		absent: []string{"6 of 6", "No test has finished yet"},
		check: func(t *testing.T, r rendered) {
			if r.Visible["final"] || r.State != "live" || r.Progress != "test 1 of 6 finished · 5 remaining" {
				t.Errorf("running: final visible %v, state %q, progress %q", r.Visible["final"], r.State, r.Progress)
			}
		},
	}, {
		name: "queued",
		run:  watchRun{queued: true},
		show: []string{"queued: waiting for a worker", "No test has finished yet."},
		check: func(t *testing.T, r rendered) {
			if r.Visible["final"] || r.Visible["about"] || r.Visible["tests"] {
				t.Errorf("queued: final, about or the test table visible: %v", r.Visible)
			}
		},
	}}
}

// TestWatchPageStates opens /watch in headless Chromium, as a contestant
// (the per-submission token), for a submission in each state, and checks
// the rendered page: the problem and the language, the progress, a
// runtime error's exit code or signal, feedback inline or "details
// hidden", skipped tests, compile and judge errors. It keeps a
// screenshot of each state (DOCKET_WATCH_SCREENSHOTS=dir to keep them).
func TestWatchPageStates(t *testing.T) {
	chromiumBinary(t) // skips, saying why, before anything starts
	shots := os.Getenv("DOCKET_WATCH_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, nil)
	states := watchStates()
	for _, s := range states {
		e.publishRun("s-"+s.name, s.run)
	}
	b := startBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p := b.newPage(ctx)
	for _, s := range states {
		t.Run(s.name, func(t *testing.T) {
			id := "s-" + s.name
			p.navigate(ctx, e.url("/watch/"+id+"?token="+SubmissionToken([]byte(testSecret), id)))
			r := waitRendered(ctx, t, p, func(r rendered) bool {
				want := "live"
				if s.run.verdict != "" {
					want = "done"
				}
				return r.Sub == id && len(r.Rows) == len(s.run.tests) && r.State == want
			})
			path := filepath.Join(shots, s.name+".png")
			if err := p.fullScreenshot(ctx, path); err != nil {
				t.Errorf("screenshot: %v", err)
			}
			t.Logf("screenshot %s", path)
			for _, want := range s.show {
				if !strings.Contains(oneSpace(r.Text), oneSpace(want)) {
					t.Errorf("the page does not show %q; it shows:\n%s", want, r.Text)
				}
			}
			for _, not := range s.absent {
				if strings.Contains(oneSpace(r.Text), not) {
					t.Errorf("the page shows %q:\n%s", not, r.Text)
				}
			}
			for _, secret := range s.leak {
				if strings.Contains(r.HTML, secret) {
					t.Errorf("the page holds %q, which the contestant may not see:\n%s", secret, r.HTML)
				}
			}
			if s.check != nil {
				s.check(t, r)
			}
		})
	}
}

// oneSpace folds runs of white space (innerText's tabs and newlines
// between cells) into one space.
func oneSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// waitRendered polls the page until ready holds, failing after 20 s.
func waitRendered(ctx context.Context, t *testing.T, p *page, ready func(rendered) bool) rendered {
	t.Helper()
	r, err := pollPage(ctx, p, renderedExpr, ready)
	if err != nil {
		t.Fatalf("the page did not reach the state: %v; last state %q rows %q text:\n%s\nconsole:\n%s",
			err, r.State, r.Rows, r.Text, p.b.cdp.consoleLog())
	}
	return r
}
