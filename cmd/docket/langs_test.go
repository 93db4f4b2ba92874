package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An interpreted language's compile step checks the source without
// running it: a syntax error is CE, with the tool's message in the
// compile log, never RE at the first test. (The accepted programs of the
// same languages, TestEveryLanguage, show that the check passes a good
// program and that it still runs from source.)
func TestInterpretedSyntaxErrorIsCE(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	env := append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
	const dir = "../../problems/languages/submissions/compile_error/"
	for lang, c := range map[string]struct{ file, msg string }{
		"python3": {"broken.py", "SyntaxError"}, "pypy3": {"broken.pypy3.py", "SyntaxError"},
		"javascript": {"broken.js", "SyntaxError"}, "ruby": {"broken.rb", "syntax error"},
		"lua": {"broken.lua", "unexpected symbol"}, "perl": {"broken.pl", "syntax error"},
		"prolog": {"broken.plg", "Syntax error"}, "r": {"broken.R", "unexpected end of input"},
		"awk": {"broken.awk", "syntax error"}, "bash": {"broken.bash", "syntax error"},
		"sh": {"broken.sh", "Syntax error"}, "php": {"broken.php", "Parse error"},
	} {
		t.Run(lang, func(t *testing.T) {
			cmd := exec.Command(bin, "run", "--json", "--lang", lang, "--problem", "../../problems/languages", dir+c.file)
			cmd.Env = env
			out, _ := cmd.Output()
			var res struct {
				Verdict string `json:"verdict"`
				Compile struct {
					OK  bool   `json:"ok"`
					Log string `json:"log"`
				} `json:"compile"`
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if res.Verdict != "CE" || res.Compile.OK || !strings.Contains(res.Compile.Log, c.msg) {
				t.Errorf("%s: verdict %s, compile log %q; want CE with %q", c.file, res.Verdict, res.Compile.Log, c.msg)
			}
		})
	}
}

// A language whose toolchain is missing on the host: docket langs says
// which program is missing, and a job in it is SE with that reason, never
// CE or RE. The languages file breaks a compiled language's compiler and
// an interpreted one's interpreter (its syntax checker, luac5.4, stays).
func TestMissingToolchain(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	file := filepath.Join(t.TempDir(), "langs.yaml")
	os.WriteFile(file, []byte(`languages:
  - id: lua
    run: [docket-no-lua, "{main}"]
  - id: cobol
    name: COBOL
    extensions: [.cob]
    source: main.cob
    compile: [docket-no-cobc, -x, -o, "{exe}", "{main}"]
    run: ["./{exe}"]
`), 0o644)
	env := append(os.Environ(), "DOCKET_LANGS_FILE="+file, "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
	cmd := exec.Command(bin, "langs", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("docket langs: %v\n%s", err, out)
	}
	var rows []struct {
		ID, Reason string
		Available  bool
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{"lua": "docket-no-lua", "cobol": "docket-no-cobc"}
	for _, r := range rows {
		if missing, ok := want[r.ID]; ok {
			if r.Available || !strings.Contains(r.Reason, missing) {
				t.Errorf("%s: available %v, reason %q; want unavailable for %s", r.ID, r.Available, r.Reason, missing)
			}
			delete(want, r.ID)
		}
	}
	if len(want) > 0 {
		t.Errorf("docket langs does not list %v", want)
	}
	src := filepath.Join(t.TempDir(), "main.cob")
	os.WriteFile(src, []byte("DISPLAY 'HI'.\n"), 0o644)
	for lang, c := range map[string]struct{ file, missing string }{
		"lua":   {"../../problems/languages/submissions/accepted/sum.lua", "docket-no-lua"},
		"cobol": {src, "docket-no-cobc"},
	} {
		cmd := exec.Command(bin, "run", "--json", "--lang", lang, "--problem", "../../problems/aplusb", c.file)
		cmd.Env = env
		out, _ := cmd.Output()
		var res struct{ Verdict, Error string }
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("%s: %v\n%s", lang, err, out)
		}
		if res.Verdict != "SE" || !strings.Contains(res.Error, "unavailable on this worker") || !strings.Contains(res.Error, c.missing) {
			t.Errorf("%s: verdict %s, error %q; want SE naming %s", lang, res.Verdict, res.Error, c.missing)
		}
	}
}
