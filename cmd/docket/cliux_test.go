package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
)

// runBin runs the built docket with env added, returning stdout, stderr
// and the exit code.
func runBin(t *testing.T, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("docket %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

func TestParseInterspersed(t *testing.T) {
	for _, c := range []struct {
		args []string
		prob string
		pos  []string
	}{
		{[]string{"a.c", "--problem", "P"}, "P", []string{"a.c"}},
		{[]string{"--problem", "P", "a.c", "b.c"}, "P", []string{"a.c", "b.c"}},
		{[]string{"a.c", "--problem=P", "b.c"}, "P", []string{"a.c", "b.c"}},
		{[]string{"--problem", "P", "--", "-x.c", "--problem"}, "P", []string{"-x.c", "--problem"}},
		{[]string{"a.c", "--", "--help"}, "", []string{"a.c", "--help"}},
		{[]string{"-", "--problem", "P"}, "P", []string{"-"}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		prob := fs.String("problem", "", "")
		if err := parseInterspersed(fs, c.args); err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if *prob != c.prob || !reflect.DeepEqual(append([]string{}, fs.Args()...), c.pos) {
			t.Errorf("%q: problem %q args %q, want %q %q", c.args, *prob, fs.Args(), c.prob, c.pos)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(new(bytes.Buffer))
	fs.String("problem", "", "")
	if err := parseInterspersed(fs, []string{"a.c", "-x.c"}); err == nil {
		t.Error("a file named -x.c before -- was taken as a file, not refused as an unknown flag")
	}
}

// TestFlagsAfterArguments: docket run FILE --problem DIR reads --problem
// (the missing package is named, not "--problem required"), and a file
// named like a flag after -- is a file.
func TestFlagsAfterArguments(t *testing.T) {
	bin := docketBinary(t)
	dir := t.TempDir()
	_, errOut, code := runBin(t, bin, nil, "run", "a.c", "--problem", dir+"/nope")
	if code != exitUsage || !strings.Contains(errOut, dir+"/nope") || strings.Contains(errOut, "required") {
		t.Errorf("run FILE --problem DIR: exit %d, %s", code, errOut)
	}
	_, errOut, code = runBin(t, bin, nil, "run", "--problem", "../../problems/aplusb", "--", "-x.c")
	if code != exitUsage || !strings.Contains(errOut, "-x.c") || strings.Contains(errOut, "flag provided but not defined") {
		t.Errorf("run -- -x.c: exit %d, %s", code, errOut)
	}
	_, errOut, code = runBin(t, bin, nil, "run", "--problem", "../../problems/aplusb", "-x.c")
	if code != exitUsage || !strings.Contains(errOut, "flag provided but not defined: -x.c") {
		t.Errorf("run -x.c without --: exit %d, %s", code, errOut)
	}
}

// TestHelpEverywhere: every command and problem subcommand answers
// --help and -h on stdout with exit 0, its environment derived from
// envGroups, and an example; none of them acts (push and list with an
// unreachable NATS would fail with exit 3).
func TestHelpEverywhere(t *testing.T) {
	bin := docketBinary(t)
	env := []string{"DOCKET_NATS_URL=nats://127.0.0.1:1"}
	cmds := [][]string{{"problem", "check"}, {"problem", "push"}, {"problem", "list"}}
	for name := range commands {
		if name != "problem" {
			cmds = append(cmds, []string{name})
		}
	}
	for _, c := range cmds {
		for _, h := range []string{"--help", "-h"} {
			out, errOut, code := runBin(t, bin, env, append(append([]string{}, c...), h)...)
			name := strings.Join(c, " ")
			if code != exitOK || !strings.HasPrefix(out, "usage: docket "+name) || !strings.Contains(out, "\nexample:\n  docket") && !strings.Contains(out, "\nexample:\n  DOCKET_") {
				t.Errorf("docket %s %s: exit %d\n%s%s", name, h, code, out, errOut)
			}
			for _, g := range envGroups {
				if contains(g.commands, name) != strings.Contains(out, "environment:") && contains(g.commands, name) {
					t.Errorf("docket %s %s: no environment section", name, h)
				}
			}
		}
	}
	out, _, code := runBin(t, bin, env, "submit", "--help")
	if code != 0 || !strings.Contains(out, "DOCKET_QUEUE") || strings.Contains(out, "DOCKET_SANDBOX_DIR") || strings.Contains(out, "DOCKET_ACK_WAIT") {
		t.Errorf("submit --help: the environment is not submit's own:\n%s", out)
	}
	out, _, code = runBin(t, bin, env, "problem", "push", "--", "--help")
	if code == exitOK || strings.HasPrefix(out, "usage:") {
		t.Errorf("problem push -- --help printed help or succeeded (exit %d): %s", code, out)
	}
	out, _, code = runBin(t, bin, nil, "problem", "--help")
	if code != 0 || !strings.Contains(out, "push DIR|ZIP...") {
		t.Errorf("problem --help: exit %d\n%s", code, out)
	}
	out, _, code = runBin(t, bin, nil, "--help")
	if code != 0 || !strings.Contains(out, "version") || !strings.Contains(out, "Exit codes") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
}

func TestVersion(t *testing.T) {
	bin := docketBinary(t)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, code := runBin(t, bin, nil, args...)
		if code != 0 || !strings.HasPrefix(out, "docket dev (commit ") {
			t.Errorf("docket %v: exit %d %q", args, code, out)
		}
	}
	// The Makefile's -X reaches the variable.
	dir := t.TempDir()
	b, err := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7", "-o", dir+"/d", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	out, _, _ := runBin(t, dir+"/d", nil, "--version")
	if !strings.HasPrefix(out, "docket v9.8.7 (commit ") {
		t.Errorf("-X main.version: %q", out)
	}
}

// TestLimitFlags: a duration without a unit names the units; zero and
// negative limits are refused; all exit 2 before anything runs.
func TestLimitFlags(t *testing.T) {
	bin := docketBinary(t)
	env := []string{"DOCKET_NATS_URL=nats://127.0.0.1:1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--problem", "../../problems/aplusb", "--time-limit", "2", "a.c"}, "units: ns, us, ms, s, m, h"},
		{[]string{"run", "--problem", "../../problems/aplusb", "--time-limit", "0s", "a.c"}, "greater than zero"},
		{[]string{"run", "--problem", "../../problems/aplusb", "--time-limit", "-1s", "a.c"}, "greater than zero"},
		{[]string{"run", "--problem", "../../problems/aplusb", "--memory", "-5", "a.c"}, "greater than zero"},
		{[]string{"submit", "--problem", "aplusb", "a.c", "--time-limit", "1500"}, "has no unit"},
		{[]string{"submit", "--problem", "aplusb", "a.c", "--timeout", "0s"}, "greater than zero"},
	} {
		_, errOut, code := runBin(t, bin, env, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("docket %q: exit %d, want 2 and %q:\n%s", c.args, code, c.want, errOut)
		}
	}
}

// TestSubmitChecks: docket submit refuses (exit 2, nothing enqueued) a
// problem not in the store, an unknown language, and an id that already
// has a result; --force enqueues the first two; --follow says it waits
// and, with no worker, why.
func TestSubmitChecks(t *testing.T) {
	bin := docketBinary(t)
	js, url := aplusbServer(t)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "main.py")
	os.WriteFile(src, []byte("print(3)\n"), 0o644)
	res, _ := json.Marshal(protocol.Result{V: 1, SubmissionID: "done-1", Verdict: "WA"})
	if _, err := js.Publish(ctx, protocol.Subjects{Prefix: "docket"}.Results("done-1"), res); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--problem", "nope", src}, `problem "nope" is not in the store`},
		{[]string{"--problem", "aplusb", "--lang", "cobol", src}, `unknown language "cobol"`},
		{[]string{"--problem", "aplusb", "--id", "done-1", src}, "done-1 was already judged (verdict WA"},
		{[]string{"--force", "--problem", "aplusb", "--id", "done-1", src}, "submit again under a new --id"},
	} {
		code, stderr := runSubmitCmd(t, bin, url, nil, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("submit %q: exit %d, want 2 and %q:\n%s", c.args, code, c.want, stderr)
		}
	}
	if n := jobsStored(t, js); n != 0 {
		t.Fatalf("%d jobs enqueued by refused submissions", n)
	}
	for _, args := range [][]string{{"--force", "--problem", "nope", src}, {"--force", "--problem", "aplusb", "--lang", "cobol", src}, {"--problem", "aplusb", src}} {
		if code, stderr := runSubmitCmd(t, bin, url, nil, args...); code != exitOK {
			t.Errorf("submit %q: exit %d: %s", args, code, stderr)
		}
	}
	if n := jobsStored(t, js); n != 3 {
		t.Errorf("%d jobs enqueued, want 3", n)
	}
	code, stderr := runSubmitCmd(t, bin, url, nil, "--problem", "aplusb", "--follow", "--timeout", "12s", src)
	if code != exitSystem || !strings.Contains(stderr, "queued on default: waiting for a worker (") ||
		!strings.Contains(stderr, "still queued after 10s: ") || !strings.Contains(stderr, "worker") {
		t.Errorf("--follow without a worker: exit %d:\n%s", code, stderr)
	}
	t.Logf("--follow without a worker:\n%s", stderr)
}

// TestRunShowsRuntimeError: docket run says how a runtime error ended
// (exit code or signal) and shows the stderr excerpt under the test;
// --json carries the excerpt.
func TestRunShowsRuntimeError(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	env := []string{"DOCKET_SANDBOX_DIR=" + t.TempDir(), "DOCKET_CACHE_DIR=" + t.TempDir()}
	dir := "../../problems/aplusb/submissions/run_time_error/"
	for file, want := range map[string]string{
		"exit3.cpp":    "RE  exit 3",
		"segfault.cpp": "RE  SIGSEGV",
		"raises.py":    "      stderr: Traceback (most recent call last):",
	} {
		_, errOut, code := runBin(t, bin, env, "run", dir+file, "--problem", "../../problems/aplusb")
		if code != exitFailed || !strings.Contains(errOut, want) {
			t.Errorf("docket run %s: exit %d, want 1 and %q:\n%s", file, code, want, errOut)
		}
	}
	// An unknown language named on the command line is a usage error.
	_, errOut, code := runBin(t, bin, env, "run", "--lang", "cobol", "--problem", "../../problems/aplusb", dir+"raises.py")
	if code != exitUsage || !strings.Contains(errOut, `unknown language "cobol"`) {
		t.Errorf("--lang cobol: exit %d, want 2:\n%s", code, errOut)
	}
	out, _, _ := runBin(t, bin, env, "run", "--json", "--problem", "../../problems/aplusb", dir+"raises.py")
	if !strings.Contains(out, `"stderr_excerpt": "Traceback`) || !strings.Contains(out, `"exit_code": 1`) {
		t.Errorf("--json lacks the exit code or the stderr excerpt:\n%s", out)
	}
}

// TestLangsFast: docket langs answers within a second once the versions
// are cached (the first run asks every toolchain, side by side), with the
// same answer, aliases shown.
func TestLangsFast(t *testing.T) {
	bin := docketBinary(t)
	env := []string{"DOCKET_CACHE_DIR=" + t.TempDir()}
	start := time.Now()
	first, errOut, code := runBin(t, bin, env, "langs")
	t.Logf("first docket langs (every version command): %v", time.Since(start))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	start = time.Now()
	second, _, _ := runBin(t, bin, env, "langs")
	took := time.Since(start)
	t.Logf("second docket langs (cached): %v", took)
	if took > time.Second || second != first {
		t.Errorf("cached docket langs took %v (want < 1s); same output: %v\n%s\n%s", took, second == first, first, second)
	}
	if !strings.Contains(first, "ALIASES") || !strings.Contains(first, "c17") {
		t.Errorf("aliases not shown:\n%s", first)
	}
}

// TestProblemMessages: problem check names a missing directory (exit 2),
// lists a package's errors one per line, says plainly that a package has
// no submissions/, and shows its steps on stderr; problem push shows its
// steps; problem list has a header.
func TestProblemMessages(t *testing.T) {
	bin := docketBinary(t)
	tmp := t.TempDir()
	_, errOut, code := runBin(t, bin, nil, "problem", "check", tmp+"/nope")
	if code != exitUsage || !strings.Contains(errOut, "is not a directory") {
		t.Errorf("missing directory: exit %d: %s", code, errOut)
	}
	bad := tmp + "/bad"
	os.MkdirAll(bad, 0o755)
	os.WriteFile(bad+"/problem.yaml", []byte("name: x\nlimits: [\n"), 0o644)
	_, errOut, code = runBin(t, bin, nil, "problem", "check", bad)
	if code != exitFailed || !strings.Contains(errOut, "2 errors:\n  - problem.yaml: ") || !strings.Contains(errOut, "\n  - data/: missing") {
		t.Errorf("broken package: exit %d, want its errors one per line:\n%s", code, errOut)
	}
	nosubs := tmp + "/nosubs"
	if out, err := exec.Command("cp", "-r", "../../problems/samples-only", nosubs).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	os.RemoveAll(nosubs + "/submissions")
	_, errOut, code = runBin(t, bin, nil, "problem", "check", nosubs)
	if code != exitFailed || !strings.Contains(errOut, "has no submissions/ directory, so there is nothing to check") {
		t.Errorf("no submissions/: exit %d:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "* loading the package") {
		t.Errorf("problem check shows no steps:\n%s", errOut)
	}
	_, url := submitServer(t)
	env := []string{"DOCKET_NATS_URL=" + url}
	_, errOut, code = runBin(t, bin, env, "problem", "push", "../../problems/samples-only")
	if code != 0 || !strings.Contains(errOut, "* connecting to NATS\n* validating and uploading ../../problems/samples-only") {
		t.Errorf("problem push: exit %d:\n%s", code, errOut)
	}
	_, errOut, code = runBin(t, bin, env, "problem", "push", "../../problems/aplusb", tmp+"/nope")
	if code != exitUsage || !strings.Contains(errOut, "is not a directory or a zip archive; nothing was pushed") {
		t.Errorf("problem push of a missing directory: exit %d:\n%s", code, errOut)
	}
	out, errOut, code := runBin(t, bin, env, "problem", "list")
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < 2 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(lines[0], "DIGEST") || !strings.HasPrefix(lines[1], "samples-only ") {
		t.Errorf("problem list: exit %d:\n%s%s", code, out, errOut)
	}
}

// TestTestEachScript: make test's runner names each package before it
// starts, runs them all, and fails naming the packages that failed.
func TestTestEachScript(t *testing.T) {
	script, err := filepath.Abs("../../scripts/test-each.sh")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.21\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { t.Fatal(\"meant to fail\") }\n",
		"c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) {}\n",
		"a/a.go":      "package a\n",
		"b/b.go":      "package b\n",
		"c/c.go":      "package c\n",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(mod, name)), 0o755)
		if err := os.WriteFile(filepath.Join(mod, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(script, "-p", "1", "-count=1", "--", "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	s := string(out)
	if !ok || ee.ExitCode() != 1 || !strings.Contains(s, "== [1/3] example.com/m/a  (") ||
		!strings.Contains(s, "== [3/3] example.com/m/c  (") || !strings.Contains(s, "ok  \texample.com/m/c") ||
		!strings.HasSuffix(s, "FAIL: example.com/m/b\n") {
		t.Errorf("test-each.sh: %v\n%s", err, out)
	}
}
