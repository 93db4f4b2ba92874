package problem

import (
	"os"
	"path/filepath"
)

// loadGrader reads graders/, the legacy format's custom grader, which
// groups with grading: custom need: a program whose stdin is the group's
// children's results ("AC 1", one a line) and whose arguments are the
// group's grader_flags, printing the group's verdict and score
// (problemtools/judge/grade.py).
func (l *loader) loadGrader(p *Problem) {
	dir := filepath.Join(l.dir, "graders")
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		p.Grader = l.validatorDir(dir, "graders")
	}
	if p.Grader != nil || p.Root == nil {
		return
	}
	var custom func(g *Group) string
	custom = func(g *Group) string {
		if g.Config.Grading == GradingCustom {
			return "data/" + g.Name
		}
		for _, c := range g.Groups {
			if n := custom(c); n != "" {
				return n
			}
		}
		return ""
	}
	if n := custom(p.Root); n != "" {
		l.errorf("%s: grading: custom, but the package has no grader (graders/, e.g. graders/grader.py)", n)
	}
}
