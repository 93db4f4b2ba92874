package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/internal/testprog"
)

// The runs below are benign (echo, a missing program); the guard is there
// all the same, as for every test that starts the sandbox.
func TestMain(m *testing.M) { testguard.Main(testprog.CleaningUp(m)) }

// build builds the packages (name: directory) into a directory every uid
// can read, for the sandbox's uids.
func build(t *testing.T, pkgs map[string]string) map[string]string {
	t.Helper()
	dir, err := os.MkdirTemp("", "docket-exec-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bins := map[string]string{}
	for name, pkg := range pkgs {
		bins[name] = filepath.Join(dir, name)
		if out, err := exec.Command("go", "build", "-o", bins[name], pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return bins
}

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("the full sandbox needs root (uid %d)", os.Geteuid())
	}
}

// run runs a command line with its own state directory and returns its
// stdout, stderr and exit code.
func run(t *testing.T, state string, argv ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+state)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%v: %v", argv, err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

func TestDocketExec(t *testing.T) {
	needRoot(t)
	bin := build(t, map[string]string{"docket-exec": "."})["docket-exec"]
	state := t.TempDir()
	out, errOut, code := run(t, state, bin, "--json", "--time", "1s", "--memory", "64M", "--", "/bin/echo", "hello")
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 {
		t.Fatalf("exit %d, not JSON (%v): %s%s", code, err, out, errOut)
	}
	if r["status"] != "OK" || r["stdout"] != "hello\n" || r["level"] != "full" {
		t.Errorf("unexpected result: %s", out)
	}
	// Without --json: the program's output, the status line on stderr.
	out, errOut, code = run(t, state, bin, "--", "/bin/echo", "hello")
	if code != 0 || out != "hello\n" || !strings.HasPrefix(errOut, "--- status OK") {
		t.Errorf("plain: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// A program that does not exist is a clear SE, exit 3.
	out, _, code = run(t, state, bin, "--json", "--", "/nonexistent")
	if code != 3 || !strings.Contains(out, `"status":"SE"`) || !strings.Contains(out, "nonexistent") {
		t.Errorf("missing program: exit %d, %s", code, out)
	}
	// Usage errors are exit 2; --help is exit 0 with the help on stdout.
	for _, args := range [][]string{{}, {"--bogus", "--", "/bin/true"}, {"--memory", "12Q", "--", "/bin/true"}, {"--time", "2", "--", "/bin/true"}} {
		if _, errOut, code := run(t, state, append([]string{bin}, args...)...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d (want 2), stderr %q", args, code, errOut)
		}
	}
	if out, _, code := run(t, state, bin, "--help"); code != 0 || !strings.HasPrefix(out, "usage: docket-exec [flags] [--] CMD ARGS...") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
}

// TestSameAsDocketExec checks that docket-exec is docket exec: the same
// JSON fields and values for the same runs, the same exit codes and the
// same flags and variables in --help.
func TestSameAsDocketExec(t *testing.T) {
	needRoot(t)
	bins := build(t, map[string]string{"docket-exec": ".", "docket": "../docket"})
	state := t.TempDir()
	for _, args := range [][]string{
		{"--json", "--", "/bin/echo", "hello"},
		{"--json", "--", "/nonexistent"},
		{"--json", "--env", "X=1", "--", "/bin/sh", "-c", "echo $X; exit 4"},
	} {
		small, _, smallCode := run(t, state, append([]string{bins["docket-exec"]}, args...)...)
		big, _, bigCode := run(t, state, append([]string{bins["docket"], "exec"}, args...)...)
		a, b := stable(t, small), stable(t, big)
		if smallCode != bigCode || !reflect.DeepEqual(a, b) {
			t.Errorf("%v: docket-exec exit %d %v, docket exec exit %d %v", args, smallCode, a, bigCode, b)
		}
	}
	small, _, _ := run(t, state, bins["docket-exec"], "--help")
	big, _, _ := run(t, state, bins["docket"], "exec", "--help")
	if a, b := helpBody(small), helpBody(big); a != b || !strings.Contains(a, "-memory") || !strings.Contains(a, "DOCKET_SANDBOX_DIR") {
		t.Errorf("--help differs from docket exec's:\n%s\n---\n%s", a, b)
	}
}

// stable is a --json result without the measurements that vary between
// two runs of one program (times, memory), and the sorted list of its
// fields.
func stable(t *testing.T, out string) map[string]any {
	t.Helper()
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON (%v): %s", err, out)
	}
	var keys []string
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range []string{"cpu_ms", "user_ms", "sys_ms", "wall_ms", "memory_kb"} {
		if _, ok := r[k].(float64); !ok {
			t.Errorf("%s missing or not a number: %s", k, out)
		}
		delete(r, k)
	}
	r["fields"] = strings.Join(keys, ",")
	return r
}

// helpBody is a --help from its flags on: what the two share (the
// synopsis and the example name the command).
func helpBody(help string) string {
	_, rest, _ := strings.Cut(help, "\nflags:")
	body, _, _ := strings.Cut(rest, "\nexample:")
	return body
}
