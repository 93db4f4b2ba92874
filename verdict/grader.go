package verdict

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// A custom grader (grading: custom in a group's testdata.yaml) decides a
// group's verdict and score from its children's, as problemtools runs
// one (problemtools/judge/grade.py): stdin holds a line per judged child
// (a test, or a subgroup's own result), "VERDICT SCORE"; its arguments
// are the group's grader_flags; it prints "VERDICT SCORE" and exits 0.
// Verdicts are Kattis's: AC, WA, TLE, RTE, MLE, OLE, JE.

// graderVerdicts maps docket's verdicts onto a grader's, and
// fromGrader a grader's back onto docket's.
var (
	graderVerdicts = map[Verdict]string{AC: "AC", WA: "WA", PE: "WA", TLE: "TLE", RE: "RTE", MLE: "MLE", OLE: "OLE", SE: "JE"}
	fromGrader     = map[string]Verdict{"AC": AC, "WA": WA, "TLE": TLE, "RTE": RE, "MLE": MLE, "OLE": OLE, "JE": SE}
)

// graderOutput is what a grader must print (problemtools' pattern).
var graderOutput = regexp.MustCompile(`^(AC|WA|TLE|RTE|MLE|OLE|JE)\s+(-?[0-9.]+)\s*$`)

// addResult records a child for the group's custom grader: its result,
// unless it was skipped, and its perfect result, AC at max.
func (tl *groupTally) addResult(v Verdict, score, max float64) {
	if gv, ok := graderVerdicts[v]; ok {
		tl.results = append(tl.results, gv+" "+strconv.FormatFloat(score, 'g', -1, 64))
	}
	tl.perfect = append(tl.perfect, "AC "+strconv.FormatFloat(max, 'g', -1, 64))
}

// customGrade runs the package's grader on a group's results, and in a
// scoring problem once more on its perfect results: what the grader
// gives when everything is accepted is the group's maximum. A grader
// that fails (a crash, an exit code but 0, output of another form, JE)
// is the package's fault: the group is SE, with the reason in the
// result's error.
func (r *judging) customGrade(g *problem.Group, tl *groupTally) (score, max float64, v Verdict) {
	score, v, err := r.runGrader(g, tl.results)
	if err == nil && v == SE {
		err = fmt.Errorf("the grader judged its group JE (judge error)")
	}
	if err == nil && r.p.Kind == problem.Scoring {
		max, _, err = r.runGrader(g, tl.perfect)
	}
	if err != nil {
		r.graderFailed = true
		if r.res.Error == "" {
			r.res.Error = fmt.Sprintf("custom grader, group data/%s: %v", g.Name, err)
		}
		return 0, 0, SE
	}
	return score, max, v
}

func (r *judging) runGrader(g *problem.Group, results []string) (float64, Verdict, error) {
	if r.grader == nil {
		return 0, SE, fmt.Errorf("no grader built")
	}
	box := filepath.Join(r.ws, fmt.Sprintf("grade-%d", len(r.res.Groups)))
	if err := mkBox(box, r.slot.TrustedUID); err != nil {
		return 0, SE, err
	}
	defer os.RemoveAll(box)
	if err := populate(box, r.grader); err != nil {
		return 0, SE, err
	}
	var stdout, stderr bytes.Buffer
	cmd := r.trustedCommand(r.grader, box)
	cmd.Stdin = strings.NewReader(strings.Join(results, "\n") + "\n")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Args = r.grader.command(checkerMemoryMB, g.Config.GraderFlags...)
	var res *sandbox.Result
	var err error
	r.timed(func() { res, err = cmd.Run() })
	if err != nil {
		return 0, SE, err
	}
	if res.Status != sandbox.OK || res.ExitCode != 0 {
		return 0, SE, fmt.Errorf("%s, exit code %d (want 0): %s", res.Status, res.ExitCode, oneLineOf(stderr.String()))
	}
	m := graderOutput.FindStringSubmatch(stdout.String())
	if m == nil {
		return 0, SE, fmt.Errorf("printed %q, not VERDICT SCORE (AC, WA, TLE, RTE, MLE, OLE or JE, then a number)", oneLineOf(stdout.String()))
	}
	score, err := strconv.ParseFloat(m[2], 64)
	if err != nil {
		return 0, SE, fmt.Errorf("score %q: %v", m[2], err)
	}
	return score, fromGrader[m[1]], nil // graderOutput admits its keys only
}

// oneLineOf is s cut to one short line, for an error message.
func oneLineOf(s string) string { return truncate(strings.Join(strings.Fields(s), " "), 200) }
