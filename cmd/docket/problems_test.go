package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
)

// docket problem check judges a package's own submissions and says that
// each got its expected verdict: here a package with files and one with
// directories of programs (twostep-programs). Every example problem is
// judged in process by verdict's TestExampleSubmissions, by the same
// rules (verdict.MeetsExpectation, problem.ExampleSubmissions,
// verdict.ReadSubmission): judging them all here again took 221 s more.
func TestExampleProblems(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	env := append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
	for _, dir := range []string{"../../problems/floats", "../../problems/twostep-programs"} {
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

// docket problem check judges a Polygon package's solutions by their
// tags; the one with generated tests builds them first, saying how long
// it took, and finds them built the second time (the cache directory is
// kept).
func TestPolygonProblemCheck(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	env := append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
	for _, c := range []struct{ dir, tests string }{
		{"../../problems/polygon-aplusb", ""},
		{"../../problems/polygon-groups", "tests: built 6 in "},
		{"../../problems/polygon-groups", "tests: 6 built before, found in the cache"},
	} {
		cmd := exec.Command(bin, "problem", "check", c.dir)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("docket problem check %s: %v\n%s", c.dir, err, out)
		}
		if !strings.Contains(string(out), "got their expected verdict") || !strings.Contains(string(out), c.tests) {
			t.Errorf("docket problem check %s, want %q:\n%s", c.dir, c.tests, out)
		}
		t.Logf("docket problem check %s:\n%s", c.dir, out)
	}
}

// A runtime error says why: its exit code, and the excerpt of its stderr
// where the traceback names the exception.
func TestRunJSONStderrExcerpt(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	cmd := exec.Command(bin, "run", "--json", "--problem", "../../problems/aplusb", "../../problems/aplusb/submissions/run_time_error/raises.py")
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir())
	out, _ := cmd.Output()
	var res struct {
		Verdict string `json:"verdict"`
		Tests   []struct {
			Verdict       string `json:"verdict"`
			ExitCode      int    `json:"exit_code"`
			StderrExcerpt string `json:"stderr_excerpt"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Tests) == 0 {
		t.Fatalf("%v\n%s", err, out)
	}
	first := res.Tests[0]
	if res.Verdict != "RE" || first.ExitCode != 1 || !strings.HasPrefix(first.StderrExcerpt, "Traceback") ||
		!strings.Contains(first.StderrExcerpt, "ValueError: refusing to add") {
		t.Errorf("verdict %s, first test %+v; want RE, exit 1 and the traceback", res.Verdict, first)
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
	files := map[string]string{}
	for lang, file := range map[string]string{
		"c": "main.c", "cpp": "main.cpp", "cpp20": "main.cpp", "python3": "main.py", "pypy3": "main.py",
		"java": "Solution.java", "kotlin": "main.kt", "go": "main.go", "rust": "main.rs", "javascript": "main.js",
		"c11": "main.c", "cpp11": "main.cpp", "cpp14": "main.cpp", "cpp23": "main.cpp",
	} {
		files[lang] = "testdata/aplusb/" + file
	}
	// The rest: the accepted submissions of the languages example problem.
	for lang, file := range map[string]string{
		"pascal": "sum.pas", "haskell": "sum.hs", "ocaml": "sum.ml", "ruby": "sum.rb", "lua": "sum.lua", "perl": "sum.pl",
		"prolog": "sum.plg", "r": "sum.R", "ada": "sum.adb", "fortran": "sum.f95", "awk": "sum.awk", "bash": "sum.bash",
		"sh": "sum.sh", "csharp": "sum.cs", "scala": "Main.scala", "php": "sum.php",
	} {
		files[lang] = "../../problems/languages/submissions/accepted/" + file
	}
	cat, _, err := loadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range cat.IDs() {
		if files[id] == "" {
			t.Errorf("language %s has no a+b program here", id)
		}
	}
	for lang, file := range files {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(bin, "run", "--json", "--lang", lang, "--problem", "../../problems/aplusb", file)
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

// docket run --json prints a result even when nothing can be judged (the
// package or the submission will not load): SE, the reason in error, the
// wire protocol's shape, with the command's non-zero exit code. A harness
// reads stdout.
func TestRunJSONLoadFailures(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	tmp := t.TempDir()
	badYAML := filepath.Join(tmp, "bad-yaml")
	copyTree(t, "../../problems/aplusb", badYAML)
	if err := os.WriteFile(filepath.Join(badYAML, "problem.yaml"), []byte("limits: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cobol := filepath.Join(tmp, "main.cob")
	if err := os.WriteFile(cobol, []byte("DISPLAY 'HI'.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const good = "../../problems/aplusb"
	goodSrc := good + "/submissions/accepted/main.c"
	missingSrc := filepath.Join(tmp, "no-such.c")
	var le *problem.LoadError
	cat, _, err := loadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir string
		args      []string
		code      int
		// want is the error the command must report, from the same
		// call in this process; is checks it is the failure meant.
		want func() error
		is   func(error) bool
	}{
		{"missing problem dir", filepath.Join(tmp, "absent"), []string{goodSrc}, exitUsage,
			func() error { _, err := problem.Load(filepath.Join(tmp, "absent")); return err },
			func(err error) bool { return errors.As(err, &le) }},
		{"bad problem.yaml", badYAML, []string{goodSrc}, exitUsage,
			func() error { _, err := problem.Load(badYAML); return err },
			func(err error) bool { return errors.As(err, &le) }},
		{"unreadable source", good, []string{missingSrc}, exitUsage,
			func() error { _, err := verdict.ReadSubmission(cat, "", []string{missingSrc}); return err },
			func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{"unknown extension", good, []string{cobol}, exitUsage,
			func() error { _, err := verdict.ReadSubmission(cat, "", []string{cobol}); return err },
			func(err error) bool { return errors.Is(err, langs.ErrUnknown) }},
		{"unknown --lang", good, []string{"--lang", "cobol", cobol}, exitUsage,
			func() error { _, err := cat.Lookup("cobol"); return err },
			func(err error) bool { return errors.Is(err, langs.ErrUnknown) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want()
			if want == nil || !tc.is(want) {
				t.Fatalf("the case does not fail as meant: %v", want)
			}
			args := append([]string{"run", "--json", "--problem", tc.dir}, tc.args...)
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Fatalf("docket %s: %v, want exit %d\nstderr: %s", strings.Join(args, " "), err, tc.code, stderr.String())
			}
			dec := json.NewDecoder(bytes.NewReader(out))
			dec.DisallowUnknownFields()
			var res verdict.Result
			if err := dec.Decode(&res); err != nil {
				t.Fatalf("stdout is not a result: %v\n%s", err, out)
			}
			if res.V != 1 || res.Verdict != verdict.SE || res.Error != want.Error() {
				t.Errorf("result v=%d verdict=%s error=%q, want v=1 SE %q", res.V, res.Verdict, res.Error, want.Error())
			}
			// The wire shape: tests and groups are lists, never null.
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(out, &raw); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"tests", "groups"} {
				if string(raw[k]) != "[]" {
					t.Errorf("%s = %s, want []", k, raw[k])
				}
			}
		})
	}
}

// docket run judges output files against an OutputOnly task (no
// language, nothing compiled): two of the four files of
// problems/cms-outputonly, each the best answer, score half; a program
// beside them is CE, naming it.
func TestRunOutputFiles(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	env := append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
	const dir = "../../problems/cms-outputonly/submissions/accepted/optimal/"
	run := func(files ...string) (int, map[string]any) {
		cmd := exec.Command(bin, append([]string{"run", "--json", "--quiet", "--problem", "../../problems/cms-outputonly"}, files...)...)
		cmd.Env = env
		out, _ := cmd.Output()
		var res map[string]any
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return cmd.ProcessState.ExitCode(), res
	}
	code, res := run(dir+"output_000.txt", dir+"output_002.txt")
	tests, _ := res["tests"].([]any)
	if code != exitOK || res["verdict"] != "AC" || res["score"] != 50.0 || res["language"] != nil || len(tests) != 4 ||
		tests[1].(map[string]any)["feedback"] != "File not submitted" {
		t.Errorf("exit %d, result %v; want 0, AC 50, test 001 not submitted", code, res)
	}
	code, res = run(dir+"output_000.txt", "../../problems/cms-plus/submissions/accepted/plus.py")
	if msg, _ := res["error"].(string); code != exitFailed || res["verdict"] != "CE" || !strings.Contains(msg, "plus.py: this task takes output files alone") {
		t.Errorf("with a program: exit %d, result %v; want 1, CE", code, res)
	}
}
