package bridge

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// domState is what the test reads from the watch page.
type domState struct {
	State   string     `json:"state"`
	Status  string     `json:"status"`
	Opens   string     `json:"opens"`
	Seen    string     `json:"seen"`
	Rows    [][]string `json:"rows"`
	Final   bool       `json:"final"`
	Verdict string     `json:"verdict"`
	Score   string     `json:"score"`
	Summary string     `json:"summary"`
	Compile string     `json:"compile"`
	Attempt string     `json:"attempt"`
}

const domExpr = `(() => {
  const $ = (id) => document.getElementById(id);
  if (!$('tests')) return {state: 'not-loaded', rows: []};
  return {
    state: document.body.dataset.state || '',
    status: $('status').textContent,
    opens: document.body.dataset.opens || '',
    seen: document.body.dataset.seen || '',
    rows: Array.from(document.querySelectorAll('#tests tbody tr')).map(tr => Array.from(tr.children).map(td => td.textContent)),
    final: !$('final').hidden,
    verdict: $('verdict').textContent,
    score: $('score').textContent,
    summary: $('summary').textContent,
    compile: $('compile-status').textContent,
    attempt: $('attempt').textContent,
  };
})()`

// TestWatchPageInChromium drives the real /watch page in headless
// Chromium: history, live events, a dropped connection that EventSource
// resumes with Last-Event-ID, and the final verdict.
func TestWatchPageInChromium(t *testing.T) {
	chromiumBinary(t) // skips, saying why, before anything starts

	// Record what each events request resumed from ("<header>/<query>"),
	// and fail one on demand as a bridge without NATS would.
	var mu sync.Mutex
	var resumes []string
	var failNext atomic.Bool
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/events") {
				mu.Lock()
				resumes = append(resumes, r.Header.Get("Last-Event-ID")+"/"+r.URL.Query().Get("last_event_id"))
				mu.Unlock()
				if failNext.CompareAndSwap(true, false) {
					writeError(w, http.StatusServiceUnavailable, "stream DOCKET_EVENTS is unavailable")
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
	requests := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(resumes)
	}
	e := newEnvWith(t, nil, wrap)
	id := "s-e2e"
	var seqs []string
	pub := func(typ string, extra map[string]any) {
		seqs = append(seqs, fmt.Sprint(e.publish(id, typ, extra)))
		e.publish("s-noise", typ, nil) // gaps in our ids
	}
	pub("started", map[string]any{"worker": "w-test"})
	pub("compile", map[string]any{"compile": map[string]any{"ok": true, "log": ""}})
	pub("test", testEvent(1, "secret/1", "AC"))

	b := startBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p := b.newPage(ctx)
	p.navigate(ctx, e.url("/watch/"+id+"?token="+SubmissionToken([]byte(testSecret), id)))

	wait := func(what string, cond func(d domState) bool) domState {
		t.Helper()
		d, err := pollPage(ctx, p, domExpr, cond)
		if err != nil {
			t.Fatalf("page: %s: %v; last DOM %+v; requests %q\nconsole:\n%s",
				what, err, d, requests(), b.cdp.consoleLog())
		}
		return d
	}

	// History: three events, one test row.
	d := wait("history shown", func(d domState) bool { return len(d.Rows) == 1 && d.State == "live" })
	if d.Seen != strings.Join(seqs, ",") || d.Opens != "1" {
		t.Fatalf("after history: seen %q opens %q, want %q and 1", d.Seen, d.Opens, strings.Join(seqs, ","))
	}
	if d.Rows[0][1] != "secret/1" || d.Rows[0][2] != "AC" || d.Rows[0][3] != "3 ms" || d.Rows[0][4] != "1201 KiB" {
		t.Fatalf("test row %q", d.Rows[0])
	}
	if d.Compile != "compiled" || d.Attempt != "attempt 1 on w-test" {
		t.Fatalf("compile %q attempt %q", d.Compile, d.Attempt)
	}

	// A live event.
	pub("test", testEvent(2, "secret/2", "AC"))
	wait("live event shown", func(d domState) bool { return len(d.Rows) == 2 })

	// The bridge drops the connection; EventSource comes back by itself
	// with the last id it saw, in the Last-Event-ID header.
	e.b.CloseStreams()
	wait("reconnected", func(d domState) bool { return d.Opens == "2" && d.State == "live" })
	last := seqs[len(seqs)-1]
	if got := requests(); !slices.Equal(got, []string{"/", last + "/"}) {
		t.Fatalf("events requests (Last-Event-ID/last_event_id) %q, want [\"/\" %q]", got, last+"/")
	}
	pub("test", testEvent(3, "secret/3", "WA"))
	wait("event after the reconnect shown", func(d domState) bool { return len(d.Rows) == 3 })

	// Dropped again, and the reconnect fails with 503: EventSource gives
	// up, and the page opens a new one with ?last_event_id=.
	failNext.Store(true)
	e.b.CloseStreams()
	wait("reconnected after an HTTP error", func(d domState) bool { return d.Opens == "3" && d.State == "live" })
	last = seqs[len(seqs)-1]
	if got := requests(); len(got) != 4 || got[2] != last+"/" || got[3] != "/"+last {
		t.Fatalf("events requests %q, want the 3rd with Last-Event-ID %s and the 4th with last_event_id=%s", got, last, last)
	}

	// The final verdict.
	seqs = append(seqs, fmt.Sprint(e.finish(id, "WA", 40)))
	d = wait("final verdict shown", func(d domState) bool { return d.Final && d.State == "done" })
	if d.Verdict != "WA" || d.Score != "40 / 100" || !strings.Contains(d.Summary, "time 9 ms") || d.Status != "finished" {
		t.Fatalf("final: %+v", d)
	}
	if d.Seen != strings.Join(seqs, ",") {
		t.Fatalf("events seen %q, want each exactly once: %q", d.Seen, strings.Join(seqs, ","))
	}
	if len(d.Rows) != 3 || d.Rows[2][1] != "secret/3" || d.Rows[2][2] != "WA" || d.Rows[1][2] != "AC" {
		t.Fatalf("rows %q", d.Rows)
	}
	if path := os.Getenv("DOCKET_WATCH_SCREENSHOT"); path != "" {
		if err := p.screenshot(ctx, path); err != nil {
			t.Log("screenshot:", err)
		}
	}

	// The page closed its EventSource: no reconnect after the end.
	time.Sleep(1500 * time.Millisecond) // longer than the retry delay
	if got := requests(); len(got) != 4 {
		t.Fatalf("events requests after the final event: %q", got)
	}
}

// TestWatchPageHidesSecretFeedback: the watch page, opened with the
// per-submission token as a contestant would, shows the sample test's
// feedback and not the secret test's, nowhere in the document.
func TestWatchPageHidesSecretFeedback(t *testing.T) {
	chromiumBinary(t) // skips, saying why, before anything starts
	e := newEnv(t, nil)
	id := "s-watch-secret"
	e.judged(id, "samples")

	b := startBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := b.newPage(ctx)
	p.navigate(ctx, e.url("/watch/"+id+"?token="+SubmissionToken([]byte(testSecret), id)))
	d, err := pollPage(ctx, p, domExpr, func(d domState) bool { return d.Final && len(d.Rows) == 2 })
	if err != nil {
		t.Fatalf("the page did not show the final result: %v: %+v\nconsole:\n%s", err, d, b.cdp.consoleLog())
	}
	var html string
	if err := p.eval(ctx, "document.documentElement.outerHTML", &html); err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{secretLeak, extraLeak, "expected 2000000000"} {
		if strings.Contains(html, leak) {
			t.Errorf("the watch page shows %q to the per-submission token:\n%s", leak, html)
		}
	}
	if len(d.Rows[0]) != 6 || d.Rows[0][1] != "sample/1" || d.Rows[0][5] != sampleFeedback {
		t.Errorf("sample row %q, want its feedback %q", d.Rows[0], sampleFeedback)
	}
	if len(d.Rows[1]) != 6 || d.Rows[1][1] != "secret/01-max" || d.Rows[1][2] != "WA" || d.Rows[1][3] != "7 ms" || d.Rows[1][5] != "details hidden" {
		t.Errorf("secret row %q, want its verdict and time, and its details hidden", d.Rows[1])
	}
	if d.Verdict != "WA" {
		t.Errorf("final verdict %q", d.Verdict)
	}
	if path := os.Getenv("DOCKET_WATCH_SCREENSHOT"); path != "" {
		if err := p.screenshot(ctx, strings.TrimSuffix(path, ".png")+"-secret.png"); err != nil {
			t.Log("screenshot:", err)
		}
	}
}
