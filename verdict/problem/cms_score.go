package problem

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// cmsScoring is a CMS task's score type, as its loader settles it: Sum
// (each test worth perTest points), or by subtasks, each worth its
// points times the least outcome of its tests (GroupMin) or their
// product (GroupMul): reduce is the aggregation, "min" or "mul". With
// threshold (GroupThreshold, reduce "min"), the outcomes are raw
// numbers, and a subtask is worth its points when each of its tests'
// is in (0, its threshold].
type cmsScoring struct {
	reduce    string
	threshold bool
	perTest   float64
	subtasks  []cmsGroup
	tests     int
	// outputOnly and outputOptional are a TPS BatchAndOutput task's tests
	// of output_only and of output_optional subtasks, by codename.
	outputOnly, outputOptional map[string]bool
}

// cmsGroup is one subtask: its points and its tests, by count
// (consecutive), by a pattern on their codenames (000, 001, ...), or by
// a list of codenames.
type cmsGroup struct {
	points    float64
	threshold float64 // GroupThreshold's, else 0
	count     int
	pattern   *regexp.Regexp
	names     map[string]bool
}

// cmsScoring settles the score type as italy_yaml does: task.yaml's
// score_type, score_type_parameters and n_input when it gives all
// three; else gen/GEN's subtasks (GroupMin) or its tests (Sum of
// total_value, default 100); else Sum over task.yaml's n_input.
func (l *loader) cmsScoring(y *cmsTask) cmsScoring {
	total := 100.0
	if y.TotalValue != nil {
		total = *y.TotalValue
	}
	if y.ScoreType != "" && y.ScoreTypeParams.Kind != 0 && y.NInput != nil {
		return l.cmsExplicitScoring(y)
	}
	if y.ScoreType != "" || y.ScoreTypeParams.Kind != 0 {
		l.errorf("task.yaml: score_type, score_type_parameters and n_input go together (CMS reads all three or none)")
		return cmsScoring{}
	}
	b, err := os.ReadFile(filepath.Join(l.dir, "gen", "GEN"))
	if err != nil {
		if y.NInput == nil || *y.NInput <= 0 {
			l.errorf("task.yaml: n_input is missing and there is no gen/GEN to count the tests")
			return cmsScoring{}
		}
		return cmsScoring{perTest: total / float64(*y.NInput), tests: *y.NInput}
	}
	subtasks, n, err := parseGEN(b)
	switch {
	case err != nil:
		l.errorf("%v", err)
		return cmsScoring{}
	case y.NInput != nil && *y.NInput != n:
		l.errorf("task.yaml n_input is %d, gen/GEN has %d tests", *y.NInput, n)
		return cmsScoring{}
	case n == 0:
		l.errorf("gen/GEN: no test")
		return cmsScoring{}
	case len(subtasks) == 0:
		return cmsScoring{perTest: total / float64(n), tests: n}
	}
	st := cmsScoring{reduce: "min", tests: n}
	sum := 0.0
	for _, s := range subtasks {
		st.subtasks = append(st.subtasks, cmsGroup{points: s.Points, count: s.Tests})
		sum += s.Points
	}
	if sum != 100 {
		l.errorf("gen/GEN: the subtasks' points add up to %g, not 100 (as CMS requires)", sum)
	}
	return st
}

// cmsExplicitScoring reads score_type and score_type_parameters.
func (l *loader) cmsExplicitScoring(y *cmsTask) cmsScoring {
	st := cmsScoring{tests: *y.NInput}
	if st.tests <= 0 {
		l.errorf("task.yaml n_input: %d is not a positive number of tests", st.tests)
		return st
	}
	switch y.ScoreType {
	case "Sum":
		if err := y.ScoreTypeParams.Decode(&st.perTest); err != nil || !(st.perTest >= 0) {
			l.errorf("task.yaml score_type_parameters: Sum takes one non-negative number, the points of each test")
		}
		return st
	case "GroupMin":
		st.reduce = "min"
	case "GroupMul":
		st.reduce = "mul"
	case "GroupThreshold":
		st.reduce, st.threshold = "min", true
	default:
		l.errorf("task.yaml score_type: %q is not supported yet (Sum, GroupMin, GroupMul, GroupThreshold are)", y.ScoreType)
		return st
	}
	var params [][]yaml.Node
	if err := y.ScoreTypeParams.Decode(&params); err != nil {
		l.errorf("task.yaml score_type_parameters: %s takes a list of %s, tests a count, a pattern of codenames or a list of them: %v", y.ScoreType, groupParamShape(st.threshold), err)
		return st
	}
	kinds := map[string]bool{}
	for i, p := range params {
		g, err := cmsGroupParam(p, st.threshold)
		if err != nil {
			l.errorf("task.yaml score_type_parameters[%d]: %v", i, err)
			continue
		}
		kinds[g.kind()] = true
		st.subtasks = append(st.subtasks, g)
	}
	if len(kinds) > 1 {
		l.errorf("task.yaml score_type_parameters: the subtasks' tests are given in more than one way (counts, patterns, lists); CMS takes one")
	}
	return st
}

func (g cmsGroup) kind() string {
	switch {
	case g.pattern != nil:
		return "pattern"
	case g.names != nil:
		return "list"
	}
	return "count"
}

// has reports whether the test with codename name, the i-th, is in g,
// whose counted tests start at first.
func (g cmsGroup) has(name string, i, first int) bool {
	switch {
	case g.pattern != nil:
		return g.pattern.MatchString(name)
	case g.names != nil:
		return g.names[name]
	}
	return i >= first && i < first+g.count
}

// groupParamShape is what a group score type's subtask is in
// score_type_parameters.
func groupParamShape(threshold bool) string {
	if threshold {
		return "[points, tests, threshold]"
	}
	return "[points, tests]"
}

// cmsGroupParam is one [points, tests] of a group score type, or
// GroupThreshold's [points, tests, threshold].
func cmsGroupParam(p []yaml.Node, threshold bool) (cmsGroup, error) {
	var g cmsGroup
	items := 2
	if threshold {
		items = 3
	}
	if len(p) != items {
		return g, fmt.Errorf("want %s, got %d items", groupParamShape(threshold), len(p))
	}
	if err := p[0].Decode(&g.points); err != nil || !(g.points >= 0) {
		return g, fmt.Errorf("points %q are not a non-negative number", p[0].Value)
	}
	if threshold {
		// CMS takes any number, but no outcome is in (0, t] for t <= 0:
		// such a subtask is a mistake, worth nothing to anyone.
		if err := p[2].Decode(&g.threshold); err != nil || !(g.threshold > 0) || math.IsInf(g.threshold, 0) {
			return g, fmt.Errorf("threshold %q is not a positive number (a test passes when its outcome is in (0, threshold])", p[2].Value)
		}
	}
	return cmsGroupTests(g, p[1])
}

// cmsGroupTests reads a subtask's tests into g: a count, a pattern of
// codenames or a list of them.
func cmsGroupTests(g cmsGroup, n yaml.Node) (cmsGroup, error) {
	if n.Kind == yaml.SequenceNode {
		var names []string
		if err := n.Decode(&names); err != nil || len(names) == 0 {
			return g, fmt.Errorf("tests: want codenames (a list of strings)")
		}
		g.names = map[string]bool{}
		for _, n := range names {
			g.names[n] = true
		}
		return g, nil
	}
	if n.Tag == "!!int" {
		c, err := strconv.Atoi(n.Value)
		if err != nil || c <= 0 {
			return g, fmt.Errorf("%q tests: want a positive count", n.Value)
		}
		g.count = c
		return g, nil
	}
	// CMS matches the pattern with Python's re.match: at the codename's
	// start; a test may match several subtasks.
	re, err := regexp.Compile(`^(?:` + n.Value + `)`)
	if err != nil {
		return g, fmt.Errorf("pattern %q: %v", n.Value, err)
	}
	g.pattern = re
	return g, nil
}
