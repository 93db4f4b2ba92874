package verdict

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// laneJudge is a Judge on a slot of sb with n further slots as lanes,
// all released with the test.
func laneJudge(t *testing.T, sb *sandbox.Sandbox, n int) *Judge {
	t.Helper()
	return withLanes(t, sb, *slotJudge(t, sb), n)
}

// Judged on three slots at once, every example submission of packages
// that skip after a failure (pass-fail, on_reject: break, linked
// subtasks), score groups, or run tests of other kinds (interactive,
// multi-pass, two programs) gets the result it gets one test at a time:
// the same verdict, score, groups and, test by test, the same verdict,
// score and feedback, skips included. Times and memory are not compared.
func TestLanesSameResults(t *testing.T) {
	sb := testSandbox(t)
	for _, name := range []string{"aplusb", "scoring-groups", "linked-subtasks", "testlib-points", "guess-kattis", "multipass", "twostep-programs"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("..", "problems", name)
			p, err := problem.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			alone, wide := slotJudge(t, sb), laneJudge(t, sb, 2)
			wide.CacheDir = alone.CacheDir
			subs, err := problem.ExampleSubmissions(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range subs {
				sub, err := ReadSubmission(alone.Langs, "", []string{s.Path})
				if err != nil {
					t.Fatal(err)
				}
				for _, all := range []bool{false, true} {
					want := alone.Judge(context.Background(), p, sub, Options{RunAll: all})
					got := wide.Judge(context.Background(), p, sub, Options{RunAll: all})
					if w, g := resultShape(want), resultShape(got); w != g {
						t.Errorf("%s (run all %v): on three slots\n%s\none at a time\n%s", s.Rel, all, g, w)
					}
				}
			}
		})
	}
}

// resultShape is what of a result must not depend on how many tests ran
// at once: everything but times and memory.
func resultShape(r *Result) string {
	s := fmt.Sprintf("%s %g/%g %q compile %v\n", r.Verdict, r.Score, r.MaxScore, r.Error, r.Compile.OK)
	for _, t := range r.Tests {
		s += fmt.Sprintf("  test %s/%s %s %g %q sample %v\n", t.Group, t.Name, t.Verdict, t.Score, t.Feedback, t.Sample)
	}
	for _, g := range r.Groups {
		s += fmt.Sprintf("  group %s %s %g/%g\n", g.Name, g.Verdict, g.Score, g.MaxScore)
	}
	return s
}

// With lanes, tests really run on every slot (each slot's runs counted
// in the sandbox's debug log), and a pass-fail judging stopped by a
// failure early leaves no run behind: the judging returns with every
// lane idle and its slots free of processes, and skips the rest.
func TestLanesShareTests(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("judging needs the full sandbox, which needs root")
	}
	debug := filepath.Join(t.TempDir(), "debug.jsonl")
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 64000, DebugLog: debug})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	j := laneJudge(t, sb, 1)
	p := hundredTestsProblem(t)
	ok := Submission{Language: "cpp", Files: map[string][]byte{"main.cpp": []byte(aplusbCpp)}}
	if res := j.Judge(context.Background(), p, ok, Options{}); res.Verdict != AC || len(res.Tests) != 101 {
		t.Fatalf("verdict %s, %d tests: %s", res.Verdict, len(res.Tests), res.Error)
	}
	perSlot := runsPerSlot(t, debug)
	t.Logf("runs per slot: %v", perSlot)
	if perSlot[j.Slot.N] == 0 || perSlot[j.Lanes[0].N] == 0 {
		t.Errorf("runs per slot %v: want tests on both slot %d and lane %d", perSlot, j.Slot.N, j.Lanes[0].N)
	}
	// Wrong from the sample on: one test is judged, the other 100 skipped.
	wrong := Submission{Language: "c", Files: map[string][]byte{"main.c": []byte("int main(void){return 0;}\n")}}
	res := j.Judge(context.Background(), p, wrong, Options{})
	if res.Verdict != WA || len(res.Tests) != 101 || res.Tests[0].Verdict != WA || res.Tests[1].Verdict != SK || res.Tests[100].Verdict != SK {
		t.Fatalf("verdict %s, %d tests: want WA on the sample and the rest skipped", res.Verdict, len(res.Tests))
	}
}

// hundredTestsProblem loads hundredTests' package.
func hundredTestsProblem(t *testing.T) *problem.Problem {
	p, err := problem.Load(hundredTests(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runsPerSlot counts the debug log's untrusted starts by slot.
func runsPerSlot(t *testing.T, path string) map[int]int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := map[int]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct {
			Slot    int  `json:"slot"`
			Trusted bool `json:"trusted"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if !rec.Trusted {
			n[rec.Slot]++
		}
	}
	return n
}

// Abandoned with lanes, every test already running (three 60 s sleepers
// on three slots) is killed at once: nothing is heard after the cancel.
func TestAbandonWithLanes(t *testing.T) {
	sub := Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(sleeper)}}
	h := judgeAndGiveUp(t, laneJudge(t, testSandbox(t), 2), slowPackage(t), sub, Options{}, 700*time.Millisecond) // every test started
	if h.total != 1 {
		t.Errorf("%d observer calls, want only the compile's", h.total)
	}
}
