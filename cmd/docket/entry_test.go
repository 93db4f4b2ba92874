package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// docket run --entry chooses the main source file among a submission's
// Python files, or the main class among its Java classes; without it the
// documented rule picks the first (here the wrong one), and an entry
// point that names nothing of the submission is CE saying so.
func TestRunEntry(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	env := append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), "DOCKET_CACHE_DIR="+t.TempDir())
	for _, c := range []struct {
		name, dir, lang string
		entry           []string
		verdict, log    string
	}{
		{"python, first file", "py", "python3", nil, "WA", ""},
		{"python, --entry b.py", "py", "python3", []string{"--entry", "b.py"}, "AC", ""},
		{"python, --entry c.py", "py", "python3", []string{"--entry", "c.py"}, "CE", `entry point \"c.py\" is not a Python`},
		{"python, --entry -c", "py", "python3", []string{"--entry", "-c"}, "CE", "invalid entry point"},
		{"java, first main", "java", "java", nil, "WA", "several classes have a main method (contest.Minus, contest.Plus)"},
		{"java, --entry contest.Plus", "java", "java", []string{"--entry", "contest.Plus"}, "AC", ""},
		{"java, --entry Plus", "java", "java", []string{"--entry", "Plus"}, "CE", "no class Plus with public static void main"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", "--json", "--lang", c.lang, "--problem", "../../problems/aplusb"}, c.entry...)
			cmd := exec.Command(bin, append(args, "testdata/entry/"+c.dir)...)
			cmd.Env = env
			out, _ := cmd.Output()
			var res struct {
				Verdict string `json:"verdict"`
				Compile struct {
					Log string `json:"log"`
				} `json:"compile"`
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if res.Verdict != c.verdict || !strings.Contains(string(out), c.log) {
				t.Errorf("%s, want %s with %q in the output:\n%s", res.Verdict, c.verdict, c.log, out)
			}
		})
	}
}
