package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/protocol"
)

// hostile is what a submission may hold for an operator's terminal: an
// OSC title, an OSC 52 clipboard write, a clear screen, and C1's CSI
// (0x9b, in UTF-8), which encoding/json leaves raw.
const hostile = "\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\u009b31m"

// rawControl is the first rune a terminal would act on in s, or "".
func rawControl(s string) string {
	for _, r := range s {
		if r == 0x1b || r == 0x07 || r >= 0x80 && r < 0xa0 {
			return string(r)
		}
	}
	return ""
}

// docket run never prints a raw control character that came from the
// submission or the package: gcc echoes the source line with the escape
// sequences into the compile log, the default comparison quotes the
// team's output in its feedback, and a test's file name holds one too.
// Each is escaped in the human output and in --json (which stays valid
// JSON, with the same strings).
func TestTerminalSafeRun(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	env := []string{"DOCKET_SANDBOX_DIR=" + t.TempDir(), "DOCKET_CACHE_DIR=" + t.TempDir()}
	pkg := filepath.Join(t.TempDir(), "esc")
	for n, b := range map[string]string{
		"problem.yaml": "name: esc\n", "data/secret/1.in": "1 2\n", "data/secret/1.ans": "3\n",
		"data/secret/2" + hostile + ".in": "1 2\n", "data/secret/2" + hostile + ".ans": "3\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(pkg, n)), 0o755)
		if err := os.WriteFile(filepath.Join(pkg, n), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := t.TempDir()
	ce := filepath.Join(src, "ce.c")
	os.WriteFile(ce, []byte("int main(void) { return \""+hostile+"\" undeclared; }\n"), 0o644)
	wa := filepath.Join(src, "wa.py")
	os.WriteFile(wa, []byte("print('"+strings.ReplaceAll(hostile, "\x1b", "\\x1b")+"')\n"), 0o644)
	for _, c := range []struct {
		file, want string // want: what shows the hostile part was there
	}{{ce, `\x1b]0;pwned`}, {wa, `\x1b]0;pwned`}} {
		out, errOut, code := runBin(t, bin, env, "run", "--all", "--problem", pkg, c.file)
		if code != exitFailed {
			t.Fatalf("docket run %s: exit %d:\n%s%s", c.file, code, out, errOut)
		}
		if r := rawControl(out + errOut); r != "" {
			t.Errorf("docket run %s printed %q raw:\n%q\n%q", filepath.Base(c.file), r, out, errOut)
		}
		if !strings.Contains(out+errOut, c.want) {
			t.Errorf("docket run %s: the escaped sequence %q is not shown:\n%s%s", filepath.Base(c.file), c.want, out, errOut)
		}
		js, _, _ := runBin(t, bin, env, "run", "--all", "--json", "--problem", pkg, c.file)
		if r := rawControl(js); r != "" {
			t.Errorf("docket run --json %s printed %q raw", filepath.Base(c.file), r)
		}
		var res protocol.Result
		if err := json.Unmarshal([]byte(js), &res); err != nil || !strings.Contains(js, `\u009b`) {
			t.Errorf("docket run --json %s: %v, or the CSI is not escaped as \\u009b:\n%s", filepath.Base(c.file), err, js)
		}
	}
	if _, errOut, _ := runBin(t, bin, env, "run", "--all", "--problem", pkg, wa); !strings.Contains(errOut, `secret/2\x1b]0;pwned`) {
		t.Errorf("the test's name is not shown escaped:\n%s", errOut)
	}
}

// docket submit --follow prints the events and the result a worker
// published: a compile log, a test's name and feedback, each with the
// hostile sequences, are escaped too. The events are published here, as
// a worker would, so no worker runs.
func TestTerminalSafeFollow(t *testing.T) {
	bin := docketBinary(t)
	js, url := aplusbServer(t)
	ctx := context.Background()
	subj := protocol.Subjects{Prefix: "docket"}
	id := "esc-1"
	test := protocol.TestResult{Name: "secret/" + hostile, Verdict: "WA", Feedback: "got " + hostile}
	res := protocol.Result{V: 1, SubmissionID: id, Verdict: "CE", Compile: protocol.CompileResult{Log: "main.c:1: error: " + hostile}}
	for i, ev := range []protocol.Event{
		{Type: protocol.EventStarted, Worker: "w1"},
		{Type: protocol.EventTest, Test: &test, Index: 1, Total: 1},
		{Type: protocol.EventFinal, Result: &res},
	} {
		ev.V, ev.SubmissionID, ev.Seq, ev.Attempt = 1, id, i+1, 1
		b, _ := json.Marshal(ev)
		if _, err := js.Publish(ctx, subj.Events(id), b); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(t.TempDir(), "main.py")
	os.WriteFile(src, []byte("print(3)\n"), 0o644)
	stdout, stderr, code := runBin(t, bin, []string{"DOCKET_NATS_URL=" + url}, "submit", "--problem", "aplusb", "--id", id, "--follow", "--timeout", "20s", src)
	out := stdout + stderr
	if code != exitFailed {
		t.Fatalf("submit --follow: exit %d:\n%s", code, out)
	}
	if r := rawControl(out); r != "" {
		t.Errorf("submit --follow printed %q raw:\n%q", r, out)
	}
	for _, want := range []string{`secret/\x1b]0;pwned`, `got \x1b]0;pwned`, `error: \x1b]0;pwned`} {
		if !strings.Contains(out, want) {
			t.Errorf("submit --follow does not show %q:\n%s", want, out)
		}
	}
}

// The logs of docket's processes (one JSON object a line) hold no raw
// control character either: a package's file name or a message quoting a
// submission is escaped inside its string, and the line decodes to the
// same text.
func TestTerminalSafeLog(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	log := queueEnv{LogLevel: "info"}.logger("test")
	os.Stderr = old
	log.Warn().Strs("paths", []string{"problem_statement/" + hostile}).Msg("left out " + hostile)
	w.Close()
	b, _ := io.ReadAll(r)
	if c := rawControl(string(b)); c != "" {
		t.Errorf("the log holds %q raw: %q", c, b)
	}
	var line struct {
		Message string   `json:"message"`
		Paths   []string `json:"paths"`
	}
	if err := json.Unmarshal(b, &line); err != nil || line.Message != "left out "+hostile || line.Paths[0] != "problem_statement/"+hostile {
		t.Errorf("the log line %q decodes to %+v (%v)", b, line, err)
	}
}
