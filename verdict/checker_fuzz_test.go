package verdict

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/verdict/feedback"
)

// FuzzCheckerVerdict feeds what a checker or interactor leaves behind (a
// testlib exit code and message; a Kattis exit code and feedback
// directory with score.txt, score_multiplier.txt and the messages) through
// the verdict mapping and the scoring arithmetic after it.
func FuzzCheckerVerdict(f *testing.F) {
	for _, s := range []struct {
		kattis, scoring bool
		exit            int
		out, score      string
	}{
		{false, true, 7, "points 0.5 half", ""}, {false, true, 7, "points 1e300", ""}, {false, false, 7, "points 1", ""},
		{false, true, 7, "points -3", ""}, {false, true, 1, "partially correct (50) x", ""}, {false, true, 0, "ok", ""},
		{false, true, 3, "FAIL bad", ""}, {false, true, 99, "", ""}, {false, true, 2, "wrong output format", ""},
		{true, true, 42, "well done", "12.5"}, {true, true, 42, "", "1e300"}, {true, true, 42, "", "-1"},
		{true, true, 42, "", "nan"}, {true, false, 42, "", "5"}, {true, true, 43, "nope", ""}, {true, true, 1, "", ""},
		{true, true, 42, strings.Repeat("é", 40<<10), "0"}, {true, true, 42, "\xff\xfe", "1e-400"},
	} {
		f.Add(s.kattis, s.scoring, s.exit, []byte(s.out), []byte(s.score))
	}
	f.Fuzz(func(t *testing.T, kattis, scoring bool, exit int, out, score []byte) {
		var tr TestResult
		if kattis {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, feedback.TeamMessageFile), out, 0o644)
			if len(score) > 0 {
				os.WriteFile(filepath.Join(dir, feedback.ScoreFile), score, 0o644)
			}
			tr = kattisVerdict(TestResult{Score: 1}, exit, dir, scoring)
		} else {
			tr = testlibVerdict(TestResult{Score: 1}, exit, out, scoring)
		}
		switch tr.Verdict {
		case AC, WA, PE, SE:
		default:
			t.Fatalf("verdict %v", tr.Verdict)
		}
		// Feedback is capped (an SE adds docket's explanation to it).
		if len(tr.Feedback) > feedbackCap+256 {
			t.Fatalf("feedback of %d bytes", len(tr.Feedback))
		}
		if tr.Verdict != AC && tr.Score != 0 {
			t.Fatalf("%v with score %v", tr.Verdict, tr.Score)
		}
		if math.IsNaN(tr.Score) || math.IsInf(tr.Score, 0) || tr.Score < 0 || !kattis && tr.Score > 1 {
			t.Fatalf("score %v", tr.Score)
		}
		// The group arithmetic rounds scores: it keeps them finite, of the
		// same sign, and within 1e-6 where a float has that precision.
		r := round(tr.Score)
		if math.IsNaN(r) || r < 0 || tr.Score < 1e9 && math.Abs(r-tr.Score) > 1e-6 || tr.Score >= 1e9 && r < tr.Score*(1-1e-9) {
			t.Fatalf("round(%v) = %v", tr.Score, r)
		}
	})
}
