package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
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

// A job's entry_point reaches the judge through the queue: docket submit
// --entry b.py is accepted where the same files without it are WA, and a
// job whose entry point could be read as an option gets a final CE
// (refused when decoded, not redelivered).
func TestWorkerEntryPoint(t *testing.T) {
	f := newQueueFixture(t, "10s")
	f.startWorker("w1")
	submit := func(id string, entry ...string) {
		args := append([]string{"submit", "--problem", "aplusb", "--lang", "python3", "--id", id}, entry...)
		cmd := exec.Command(f.bin, append(args, "testdata/entry/py")...)
		cmd.Env = f.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("docket submit: %v\n%s", err, out)
		}
	}
	submit("entry-b", "--entry", "b.py")
	submit("entry-none")
	b, _ := json.Marshal(map[string]any{"v": 1, "submission_id": "entry-bad", "problem": "aplusb", "language": "python3",
		"files": map[string]string{"a.py": "print(1)"}, "entry_point": "-c"})
	f.submitRaw("default", "entry-bad", b)
	for id, want := range map[string]string{"entry-b": "AC", "entry-none": "WA", "entry-bad": "CE"} {
		r := f.result(id, 60*time.Second)
		if r["verdict"] != want {
			t.Errorf("%s: verdict %v, want %s (%v)", id, r["verdict"], want, r["error"])
		}
	}
	if r := f.result("entry-bad", time.Second); !strings.Contains(r["error"].(string), "invalid entry point") {
		t.Errorf("entry-bad: error %q does not say why", r["error"])
	}
}
