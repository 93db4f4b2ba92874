package problem

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// pgTest is one test of the testset as the loader settles it.
type pgTestInfo struct {
	t        *Test
	number   string // Polygon's: 01, 02, ...
	inRel    string // the package's path of its input (input-path-pattern)
	ansRel   string // and of its answer
	cmd      string // a generated test's command, when its input is missing
	group    string
	points   *float64
	hasInput bool
	hasAns   bool
}

// pgPattern is a path pattern with one %d (%02d): input-path-pattern,
// answer-path-pattern.
var pgPattern = regexp.MustCompile(`^([^%]*)%(0?[1-9]?)d([^%]*)$`)

// pgGroupName: a group's name becomes a group of docket's, secret/<name>.
var pgGroupName = regexp.MustCompile(`^[A-Za-z0-9_.+-]{1,64}$`)

// pgTests reads the testset's tests: their files by the path patterns,
// whether they are samples (public), their points and group. A test
// whose input is missing is generated from its command; one whose
// answer is missing gets it from the main solution (pgGeneration).
func (l *loader) pgTests(p *Problem, ts *pgTestset) []*pgTestInfo {
	if n := strings.TrimSpace(ts.TestCount); n != "" {
		if c, err := strconv.Atoi(n); err != nil || c != len(ts.Tests) {
			l.errorf("problem.xml testset tests: test-count is %q but there are %d <test> elements", ts.TestCount, len(ts.Tests))
			return nil
		}
	}
	if len(ts.Tests) == 0 {
		l.errorf("problem.xml testset tests: no test")
		return nil
	}
	in, okIn := l.pgPatternOf("input-path-pattern", ts.InputPattern)
	ans, okAns := l.pgPatternOf("answer-path-pattern", ts.AnswerPattern)
	if !okIn || !okAns {
		return nil
	}
	var out []*pgTestInfo
	for i, x := range ts.Tests {
		if ti := l.pgTest(p, i+1, x, in, ans); ti != nil {
			out = append(out, ti)
		}
	}
	return out
}

// pgPatternOf checks a path pattern: one %d, a path inside the package.
func (l *loader) pgPatternOf(key, v string) (string, bool) {
	v = strings.TrimSpace(v)
	if !pgPattern.MatchString(v) {
		l.errorf("problem.xml testset tests %s: %q is not a path with one %%d (tests/%%02d)", key, v)
		return "", false
	}
	if _, ok := pgRel(fmt.Sprintf(v, 1)); !ok {
		l.errorf("problem.xml testset tests %s: %q is not a path inside the package", key, v)
		return "", false
	}
	return v, true
}

// pgRel cleans a package path from problem.xml (slashes); false for one
// that is absolute or leaves the package.
func pgRel(p string) (string, bool) {
	c := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	if p == "" || path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") || c == "." {
		return "", false
	}
	return c, true
}

func (l *loader) pgTest(p *Problem, i int, x pgTest, in, ans string) *pgTestInfo {
	ti := &pgTestInfo{number: fmt.Sprintf("%02d", i), group: x.Group}
	ti.inRel, _ = pgRel(fmt.Sprintf(in, i))
	ti.ansRel, _ = pgRel(fmt.Sprintf(ans, i))
	where := fmt.Sprintf("problem.xml test %d", i)
	ti.t = &Test{Public: x.Sample == "true"}
	if x.Points != "" {
		v, err := strconv.ParseFloat(x.Points, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) {
			l.errorf("%s points: %q is not a non-negative number", where, x.Points)
			return nil
		}
		ti.points = &v
	}
	ti.t.In, ti.hasInput = l.regularFile(ti.inRel)
	ti.t.Ans, ti.hasAns = l.regularFile(ti.ansRel)
	switch x.Method {
	case "manual", "":
		if !ti.hasInput {
			l.errorf("%s: %s is missing (a manual test's input)", where, ti.inRel)
			return nil
		}
	case "generated":
		if !ti.hasInput {
			ti.cmd = strings.TrimSpace(x.Cmd)
		}
	default:
		l.errorf("%s method: %q is not manual or generated", where, x.Method)
		return nil
	}
	if !ti.hasAns && p.Interactive {
		l.errorf("%s: %s is missing: an interactive problem's answers come from its interactor, which docket does not run to build them; run the package's doall and keep the answers", where, ti.ansRel)
		return nil
	}
	return ti
}

// pgGroups puts the tests in docket's groups. A problem without points
// is pass-fail: every test under secret/, judging stopping at the first
// failure. With points it is scoring, every test judged: without
// groups, each test is worth its points; with groups, each is
// secret/<name>: each-test, its tests worth their points; complete-group,
// worth its points (or its tests' together) only when every test
// passes (docket's min). A group's dependencies must be fully passed
// for it to score (GroupConfig.Requires).
func (l *loader) pgGroups(p *Problem, ts *pgTestset, tests []*pgTestInfo) {
	scoring := false
	for _, ti := range tests {
		scoring = scoring || ti.points != nil
	}
	for _, g := range ts.Groups {
		scoring = scoring || g.Points != ""
	}
	base := GroupConfig{OnReject: "break", AcceptScore: 1, ValidatorFlags: p.ValidatorFlags}
	if scoring {
		p.Kind, base.OnReject = Scoring, "continue"
	}
	secret := &Group{Name: "secret", Config: base}
	p.Root = &Group{Config: base, Groups: []*Group{secret}}
	grouped := false
	for _, ti := range tests {
		grouped = grouped || ti.group != ""
	}
	l.pgFeedback(p, ts.Groups)
	if !scoring || !grouped {
		for _, ti := range tests {
			l.pgAdd(secret, ti, scoring)
		}
		p.Tests = secret.Tests
		return
	}
	l.pgScoredGroups(p, secret, ts.Groups, tests)
}

// pgAdd puts a test in g, named after its number; a test of a scoring
// group that counts each test is worth its points (none: 0).
func (l *loader) pgAdd(g *Group, ti *pgTestInfo, eachTest bool) {
	ti.t.Name, ti.t.Group = g.Name+"/"+ti.number, g
	if eachTest {
		v := 0.0
		if ti.points != nil {
			v = *ti.points
		}
		ti.t.Points = &v
	}
	g.Tests = append(g.Tests, ti.t)
}

// pgScoredGroups makes a group of each group the tests name, in the
// order they first appear.
func (l *loader) pgScoredGroups(p *Problem, secret *Group, declared []pgGroup, tests []*pgTestInfo) {
	decl := map[string]pgGroup{}
	for _, g := range declared {
		decl[g.Name] = g
	}
	made := map[string]*Group{}
	for _, ti := range tests {
		if ti.group == "" {
			l.errorf("problem.xml test %s: no group, while other tests have one", strings.TrimLeft(ti.number, "0"))
			continue
		}
		g := made[ti.group]
		if g == nil {
			g = l.pgGroup(secret, decl[ti.group], ti.group, made)
			if g == nil {
				return
			}
			made[ti.group] = g
			secret.Groups = append(secret.Groups, g)
		}
		l.pgAdd(g, ti, !g.Config.HasFlag("min"))
		if g.Config.HasFlag("min") && !pgHasPoints(decl[ti.group]) && ti.points != nil {
			g.Config.AcceptScore += *ti.points // complete-group: its tests' points together
		}
	}
	for _, g := range secret.Groups {
		p.Tests = append(p.Tests, g.Tests...)
	}
}

func pgHasPoints(g pgGroup) bool { return g.Points != "" }

// pgGroup makes the group name (declared d, if it is), its dependencies
// among the groups made before it.
func (l *loader) pgGroup(secret *Group, d pgGroup, name string, made map[string]*Group) *Group {
	where := fmt.Sprintf("problem.xml group %q", name)
	if !pgGroupName.MatchString(name) {
		l.errorf("%s: a group's name is 1 to 64 letters, digits and _ . + -", where)
		return nil
	}
	g := &Group{Name: "secret/" + name, Config: secret.Config}
	switch d.PointsPolicy {
	case "complete-group":
		g.Config.GraderFlags = []string{"min"}
		g.Config.AcceptScore = 0
		if d.Points != "" {
			v, err := strconv.ParseFloat(d.Points, 64)
			if err != nil || v < 0 || math.IsInf(v, 0) {
				l.errorf("%s points: %q is not a non-negative number", where, d.Points)
				return nil
			}
			g.Config.AcceptScore = v
		}
	case "each-test", "":
	default:
		l.errorf("%s points-policy: %q is not complete-group or each-test", where, d.PointsPolicy)
		return nil
	}
	for _, dep := range d.Dependencies {
		req := made[dep.Group]
		if req == nil {
			l.errorf("%s: depends on group %q, which is not a group of tests before it", where, dep.Group)
			return nil
		}
		g.Config.Requires = append(g.Config.Requires, req.Name)
	}
	return g
}

// pgFeedback maps the groups' feedback-policy onto the problem's
// feedback policy, one for the whole problem: complete (every test's
// details) is all; icpc (the first failed test's) and points (the
// group's points) are samples (the samples' details only); none is
// none. Groups that differ get the most restrictive.
func (l *loader) pgFeedback(p *Problem, groups []pgGroup) {
	rank := map[string]int{"complete": 3, "icpc": 2, "points": 2, "none": 1}
	policies := map[int]FeedbackPolicy{3: FeedbackAll, 2: FeedbackSamples, 1: FeedbackNone}
	least := 0
	for _, g := range groups {
		if g.FeedbackPolicy == "" {
			continue
		}
		r, ok := rank[g.FeedbackPolicy]
		if !ok {
			l.errorf("problem.xml group %q feedback-policy: %q is not none, points, icpc or complete", g.Name, g.FeedbackPolicy)
			continue
		}
		if least == 0 || r < least {
			least = r
		}
	}
	if least > 0 {
		p.Feedback = policies[least]
	}
}
