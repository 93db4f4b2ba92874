package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// docket run judges with several tests at once when --parallel-tests or
// DOCKET_PARALLEL_TESTS asks (the flag wins), with the verdicts of one
// at a time; a count out of range is refused, naming where it came from.
func TestRunParallelTests(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	env := []string{"DOCKET_SANDBOX_DIR=" + t.TempDir(), "DOCKET_CACHE_DIR=" + t.TempDir()}
	for _, c := range []struct {
		name    string
		env     []string
		args    []string
		verdict string
	}{
		{"flag, accepted", nil, []string{"--parallel-tests", "3", "../../problems/aplusb/submissions/accepted/main.c"}, "AC"},
		{"environment, wrong answer", []string{"DOCKET_PARALLEL_TESTS=2"}, []string{"../../problems/aplusb/submissions/wrong_answer/minus.c"}, "WA"},
		{"flag over a bad environment", []string{"DOCKET_PARALLEL_TESTS=0"}, []string{"--parallel-tests", "2", "../../problems/aplusb/submissions/accepted/main.c"}, "AC"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", "--json", "--problem", "../../problems/aplusb"}, c.args...)
			out, errOut, code := runBin(t, bin, append(env, c.env...), args...)
			var res struct {
				Verdict string `json:"verdict"`
				Tests   []struct {
					Verdict string `json:"verdict"`
				} `json:"tests"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, errOut)
			}
			if res.Verdict != c.verdict || len(res.Tests) == 0 {
				t.Errorf("exit %d: verdict %s with %d tests, want %s:\n%s", code, res.Verdict, len(res.Tests), c.verdict, errOut)
			}
		})
	}
	_, errOut, code := runBin(t, bin, append(env, "DOCKET_PARALLEL_TESTS=65"), "run", "--problem", "../../problems/aplusb", "../../problems/aplusb/submissions/accepted/main.c")
	if code != exitSystem || !strings.Contains(errOut, "DOCKET_PARALLEL_TESTS") {
		t.Errorf("DOCKET_PARALLEL_TESTS=65: exit %d, want %d naming the variable: %s", code, exitSystem, errOut)
	}
	_, errOut, code = runBin(t, bin, env, "run", "--parallel-tests", "0", "--problem", "../../problems/aplusb", "../../problems/aplusb/submissions/accepted/main.c")
	if code != exitUsage {
		t.Errorf("--parallel-tests 0: exit %d, want %d: %s", code, exitUsage, errOut)
	}
}
