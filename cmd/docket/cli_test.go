package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/internal/testprog"
)

func TestMain(m *testing.M) { testguard.Main(testprog.CleaningUp(afterTests{m})) }

// afterTests runs the tests, then removes what was shared between them
// (the docket binary the cluster tests build once).
type afterTests struct{ m *testing.M }

func (a afterTests) Run() int {
	code := a.m.Run()
	for _, f := range testCleanups {
		f()
	}
	return code
}

var testCleanups []func()

// docketBinary builds bin/docket into a directory every uid can read.
func docketBinary(t testing.TB) string {
	t.Helper()
	// Not t.TempDir: its parent is private to root, and the binary must be
	// runnable by other uids too.
	dir, err := os.MkdirTemp("", "docket-cli-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "docket")
	var out []byte
	out, err = exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("the full sandbox needs root (uid %d)", os.Geteuid())
	}
}

func TestExecJSON(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	state := t.TempDir()
	cmd := exec.Command(bin, "exec", "--json", "--time", "1s", "--memory", "64M", "--", "/bin/echo", "hello")
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+state, "DOCKET_NATS_URL=nats://secret@host")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("docket exec: %v\n%s", err, out)
	}
	var r map[string]any
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"status", "verdict_source", "exit_code", "signal", "cpu_ms", "wall_ms", "memory_kb", "stdout", "stderr"} {
		if _, ok := r[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, out)
		}
	}
	if r["status"] != "OK" || r["stdout"] != "hello\n" || r["level"] != "full" {
		t.Errorf("unexpected result: %s", out)
	}

	// A program that does not exist is a clear SE, exit 3.
	cmd = exec.Command(bin, "exec", "--json", "--", "/nonexistent")
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+state)
	out, _ = cmd.Output()
	if cmd.ProcessState.ExitCode() != exitSystem || !strings.Contains(string(out), `"status":"SE"`) || !strings.Contains(string(out), "nonexistent") {
		t.Errorf("missing program: exit %d, %s", cmd.ProcessState.ExitCode(), out)
	}
	// A usage error is exit 2.
	if err := exec.Command(bin, "exec").Run(); err == nil || err.(*exec.ExitError).ExitCode() != exitUsage {
		t.Errorf("docket exec without a command: %v, want exit 2", err)
	}
}

func TestSelftest(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	cmd := exec.Command(bin, "selftest", "--json")
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("selftest failed as root: %v\n%s", err, out)
	}
	var rep selftestReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Capabilities.LevelName != "full" || !rep.MeetsMin || len(rep.Checks) < 10 {
		t.Errorf("selftest as root: level %s meets %v, %d checks", rep.Capabilities.LevelName, rep.MeetsMin, len(rep.Checks))
	}
	names := map[string]bool{}
	for _, c := range rep.Checks {
		names[c.Name] = true
		if !c.Passed {
			t.Errorf("escape check %s failed: %s", c.Name, c.Detail)
		}
	}
	if !names["clone namespaces"] {
		t.Errorf("no clone namespaces check among %v", names)
	}
}

// Not root: the probe degrades to a weaker level, reports each missing
// layer, and selftest exits non-zero below the default minimum (full).
func TestSelftestDegrades(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	state, err := os.MkdirTemp("", "docket-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(state)
	os.Chmod(state, 0o777)
	cmd := exec.Command(bin, "selftest", "--json")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "DOCKET_SANDBOX_DIR=" + filepath.Join(state, "nobody")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.Output()
	if err == nil {
		t.Fatalf("selftest as nobody exited 0: %s", out)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFailed {
		t.Fatalf("selftest as nobody: %v, want exit 1\n%s%s", err, out, ee.Stderr)
	}
	var rep selftestReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.MeetsMin || rep.Capabilities.LevelName == "full" {
		t.Errorf("nobody got level %s (meets min %v)", rep.Capabilities.LevelName, rep.MeetsMin)
	}
	missing := map[string]bool{}
	for _, l := range rep.Capabilities.Layers {
		if !l.Active {
			if l.Detail == "" {
				t.Errorf("layer %s missing without a reason", l.Name)
			}
			missing[l.Name] = true
		}
	}
	if !missing["uid"] {
		t.Errorf("uid switch not reported missing for nobody: %+v", rep.Capabilities.Layers)
	}
	t.Logf("as nobody: level %s, missing %v", rep.Capabilities.LevelName, missing)
}
