package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every example problem's own submissions get their expected verdicts
// through the real pipeline: sandbox, compilers, checkers, interactors.
func TestExampleProblems(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	dirs, _ := filepath.Glob("../../problems/*/problem.yaml")
	if len(dirs) < 9 {
		t.Fatalf("found %d example problems, want at least 9", len(dirs))
	}
	env := append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
	for _, y := range dirs {
		dir := filepath.Dir(y)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cmd := exec.Command(bin, "problem", "check", dir)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("docket problem check %s: %v\n%s", dir, err, out)
			}
			if !strings.Contains(string(out), "got their expected verdict") {
				t.Errorf("unexpected output:\n%s", out)
			}
		})
	}
}

// docket run --json prints the result of the wire protocol and exits 1 on
// anything but AC.
func TestRunJSON(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	env := append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir())
	cmd := exec.Command(bin, "run", "--json", "--problem", "../../problems/aplusb", "../../problems/aplusb/submissions/wrong_answer/minus.c")
	cmd.Env = env
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFailed {
		t.Fatalf("docket run on a wrong answer: %v, want exit 1\n%s", err, out)
	}
	var res struct {
		V       int    `json:"v"`
		Verdict string `json:"verdict"`
		Compile struct {
			OK bool `json:"ok"`
		} `json:"compile"`
		Tests []struct {
			Name    string `json:"name"`
			Verdict string `json:"verdict"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.V != 1 || res.Verdict != "WA" || !res.Compile.OK || len(res.Tests) == 0 {
		t.Errorf("result: %s", out)
	}
	if !strings.Contains(string(out), `"verdict_source": "stdout"`) {
		t.Errorf("no verdict_source stdout in %s", out)
	}
	// Usage errors exit 2.
	if err := exec.Command(bin, "run", "--problem", "../../problems/aplusb").Run(); err == nil || err.(*exec.ExitError).ExitCode() != exitUsage {
		t.Errorf("docket run without files: %v, want exit 2", err)
	}
}

// Every language of the catalog judges a+b: compiled in the sandbox, run
// in the sandbox, AC. A language whose toolchain is missing is reported
// by name (make test installs them all).
func TestEveryLanguage(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	env := append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir())
	for lang, file := range map[string]string{
		"c": "main.c", "cpp": "main.cpp", "cpp20": "main.cpp", "python3": "main.py", "pypy3": "main.py",
		"java": "Solution.java", "kotlin": "main.kt", "go": "main.go", "rust": "main.rs", "javascript": "main.js",
	} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(bin, "run", "--json", "--lang", lang, "--problem", "../../problems/aplusb", "testdata/aplusb/"+file)
			cmd.Env = env
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", lang, err, out)
			}
			var res struct {
				Verdict  string `json:"verdict"`
				Language string `json:"language"`
			}
			json.Unmarshal(out, &res)
			if res.Verdict != "AC" || res.Language != lang {
				t.Errorf("%s: %s", lang, out)
			}
		})
	}
}

// A package whose checker does not compile is reported before any
// submission is judged, as the package's fault.
func TestBrokenCheckerReported(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	dir := filepath.Join(t.TempDir(), "broken")
	if out, err := exec.Command("cp", "-r", "../../problems/kattis-checker", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "output_validators/check/check.cpp"), []byte("int main( {"), 0o644)
	cmd := exec.Command(bin, "problem", "check", dir)
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFailed || !strings.Contains(string(out), "checker does not compile") {
		t.Errorf("broken checker: %v\n%s", err, out)
	}
	// docket run on that package: SE, never CE.
	cmd = exec.Command(bin, "run", "--json", "--problem", dir, filepath.Join(dir, "submissions/accepted"))
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
	out, _ = cmd.Output()
	if !strings.Contains(string(out), `"verdict": "SE"`) {
		t.Errorf("judging against a broken checker: %s", out)
	}
}

// docket run refuses, before judging, a work or cache directory another
// user could write (mode 0777) or owns: exit 3 with the variable to fix.
// Before the fix it judged in them.
func TestRunRefusesUntrustedDirs(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	for _, v := range []string{"DOCKET_WORK_DIR", "DOCKET_CACHE_DIR"} {
		for name, plant := range map[string]func(string) error{
			"mode 0777":      func(d string) error { return os.Chmod(d, 0o777) },
			"another user's": func(d string) error { return os.Chown(d, 65534, 65534) },
		} {
			t.Run(v+" "+name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "d")
				if err := os.Mkdir(dir, 0o711); err != nil {
					t.Fatal(err)
				}
				if err := plant(dir); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(bin, "run", "--json", "--problem", "../../problems/aplusb", "testdata/aplusb/main.py")
				cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), v+"="+dir)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitSystem || !strings.Contains(stderr.String(), v) {
					t.Errorf("%v, want exit %d naming %s\nstdout %s\nstderr %s", err, exitSystem, v, out, stderr.String())
				}
			})
		}
	}
}
