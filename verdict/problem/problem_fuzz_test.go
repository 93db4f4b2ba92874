package problem

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// packageSeeds are the example problems' problem.yaml files and every
// testdata.yaml / test_group.yaml under their data/.
func packageSeeds(f *testing.F) (problems, groups []string) {
	read := func(pattern string) []string {
		paths, _ := filepath.Glob(pattern)
		var out []string
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			out = append(out, string(b))
		}
		return out
	}
	problems = read("../../problems/*/problem.yaml")
	for _, pat := range []string{"../../problems/*/data/*/testdata.yaml", "../../problems/*/data/*/*/testdata.yaml", "../../problems/*/data/*/*/test_group.yaml"} {
		groups = append(groups, read(pat)...)
	}
	if len(problems) < 5 || len(groups) < 2 {
		f.Fatalf("found %d problem.yaml and %d testdata.yaml seeds under problems/", len(problems), len(groups))
	}
	return problems, groups
}

func FuzzProblemYAML(f *testing.F) {
	problems, groups := packageSeeds(f)
	for _, p := range problems {
		f.Add(p, "")
	}
	for _, g := range groups {
		f.Add("type: scoring\n", g)
	}
	for _, s := range []struct{ problem, group string }{
		{"limits:\n  time_limit: .nan\n", ""},
		{"limits:\n  time_limit: .inf\n", ""},
		{"limits:\n  time_limit: 1e300\n", ""},
		{"limits:\n  time_limit: -1\n", ""},
		{"docket:\n  time_limit: -2\n", ""},
		{"docket:\n  time_limit: .nan\n", ""},
		{"limits:\n  memory: 9223372036854775807\n  output: -1\n", ""},
		{"name: {en: A, de: B}\ntype: [scoring, interactive]\ndocket:\n  interactor: {source: checker.cpp}\n", ""},
		{"docket:\n  checker: {protocol: kattis, source: ../../etc/passwd}\n", ""},
		{"docket:\n  checker: {source: /etc/passwd}\n", ""},
		{"docket:\n  checker: {protocol: testlib, source: checker.cpp}\n", ""},
		{"validation: custom score\n", "grading: custom\naccept_score: 2\nreject_score: .nan\n"},
		{"docket:\n  two_step: {mode: programs, handoff: {file: .}}\n", ""},
		{"docket:\n  two_step: {mode: phases, handoff: {file: x.txt}, first_args: [a], second_args: [b]}\n", ""},
		{"docket:\n  two_step: {handoff: stdin}\n", ""},
		{"type: scoring\n", "range: 0 .inf\nmax_score: 1e999\n"},
		{"type: scoring\n", "on_reject: continue\ngrader_flags: min ignore_sample\nscore_aggregation: sum\n"},
		{"&a [*a]", ""}, {"{", "["}, {"", ""}, {"name: !!binary AAAA\n", "accept_score: !!str x\n"},
	} {
		f.Add(s.problem, s.group)
	}
	f.Fuzz(func(t *testing.T, problemYAML, groupYAML string) {
		dir := filepath.Join(t.TempDir(), "fuzzed")
		files := map[string]string{
			"problem.yaml":        problemYAML,
			"checker.cpp":         "int main() {}\n",
			"data/sample/1.in":    "1\n",
			"data/sample/1.ans":   "1\n",
			"data/secret/g/1.in":  "2\n",
			"data/secret/g/1.ans": "2\n",
		}
		if groupYAML != "" {
			files["data/secret/testdata.yaml"] = groupYAML
		}
		for name, body := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := Load(dir)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || len(le.Errors) == 0 || p != nil {
				t.Fatalf("Load: %T %v (problem %v), want a *LoadError", err, err, p != nil)
			}
			return
		}
		checkProblem(t, p, dir)
		again, err := Load(dir)
		if err != nil || again.Digest != p.Digest {
			t.Fatalf("second load: %v, digest %s then %s", err, p.Digest, again.Digest)
		}
	})
}

// checkProblem asserts what the judge relies on in a loaded package.
func checkProblem(t *testing.T, p *Problem, dir string) {
	t.Helper()
	if p.Name == "" || p.Kind != PassFail && p.Kind != Scoring || !strings.HasPrefix(p.Digest, "sha256:") {
		t.Fatalf("name %q, kind %q, digest %q", p.Name, p.Kind, p.Digest)
	}
	l := p.Limits
	if l.Time < 0 || l.Time > MaxTime || (l.Time > 0) != (l.TimeSource != "") {
		t.Fatalf("time limit %v from %q", l.Time, l.TimeSource)
	}
	for _, mb := range []int{l.MemoryMB, l.OutputMB, l.ValidationMB} {
		if mb < 0 || mb > MaxMB {
			t.Fatalf("limits %+v", l)
		}
	}
	if ts := p.TwoStep; ts != nil {
		h := ts.HandoffFile
		if p.Interactive || h != "" && (h == "." || h == ".." || strings.ContainsAny(h, "/\\\x00") || len(h) > 255) {
			t.Fatalf("two-step %+v, interactive %v", *ts, p.Interactive)
		}
	}
	for _, prog := range []*Program{p.Checker, p.Interactor} {
		if prog == nil {
			continue
		}
		rel, err := filepath.Rel(p.Dir, prog.Dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || prog.Protocol != Kattis && prog.Protocol != Testlib || len(prog.Sources) == 0 {
			t.Fatalf("program %+v outside %s or without sources", *prog, dir)
		}
		for _, s := range prog.Sources {
			if st, err := os.Stat(filepath.Join(prog.Dir, s)); err != nil || !st.Mode().IsRegular() {
				t.Fatalf("program source %s: %v", s, err)
			}
		}
	}
	if p.Interactive && p.Interactor == nil {
		t.Fatal("interactive without an interactor")
	}
	if len(p.Tests) == 0 {
		t.Fatal("no tests")
	}
	var walk func(g *Group)
	walk = func(g *Group) {
		checkGroupConfig(t, g.Config)
		for _, c := range g.Groups {
			walk(c)
		}
	}
	walk(p.Root)
}

func checkGroupConfig(t *testing.T, c GroupConfig) {
	t.Helper()
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if c.OnReject != "break" && c.OnReject != "continue" {
		t.Fatalf("on_reject %q", c.OnReject)
	}
	if !finite(c.AcceptScore) || !finite(c.RejectScore) || c.MaxScore != nil && !finite(*c.MaxScore) {
		t.Fatalf("scores %v %v %v", c.AcceptScore, c.RejectScore, c.MaxScore)
	}
	if r := c.Range; r != nil && (!finite(r[0]) || !finite(r[1]) || r[0] > r[1]) {
		t.Fatalf("range %v", *r)
	}
	switch c.Grading {
	case "", "default":
	case GradingCustom:
		return // a custom grader's flags are its own
	default:
		t.Fatalf("grading %q", c.Grading)
	}
	for _, f := range c.GraderFlags {
		switch f {
		case "min", "sum", "max", "avg", "first_error", "worst_error", "ignore_sample", "accept_if_any_accepted", "always_accept":
		default:
			t.Fatalf("grader flag %q", f)
		}
	}
}

func FuzzTestdataYAML(f *testing.F) {
	_, groups := packageSeeds(f)
	for _, g := range groups {
		f.Add([]byte(g))
	}
	for _, s := range []string{
		"", "on_reject: continue\n", "on_reject: stop\n", "grader_flags: min first_error\n", "grader_flags: bogus\n",
		"accept_score: 25\nreject_score: 0\n", "accept_score: .nan\n", "reject_score: -.inf\n", "accept_score: x\n",
		"max_score: 40\nscore_aggregation: min\n", "max_score: .inf\n", "score_aggregation: avg\n",
		"range: 0 100\n", "range: 100 0\n", "range: nan nan\n", "range: -inf inf\n", "range: 1\n",
		"output_validator_flags: case_sensitive space_change_sensitive\n", "input_validator_flags: {a: b}\n",
		"[1, 2]", "accept_score: [1]\n", "&a {b: *a}\n", "\t", "on_reject: !!int 5\n",
		"grading: custom\ngrader_flags: subtask_score=30 first_error\n", "grading: magic\n", "grading: default\ngrader_flags: subtask_score=1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c := GroupConfig{OnReject: "break", AcceptScore: 1}
		if err := applyGroupYAML(&c, b); err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		checkGroupConfig(t, c)
		// Applying the same file twice (a child group inheriting it and
		// repeating it) gives the same config but for repeated aggregation.
		d := c
		d.GraderFlags = append([]string(nil), c.GraderFlags...)
		if err := applyGroupYAML(&d, b); err != nil {
			t.Fatalf("second application: %v", err)
		}
		checkGroupConfig(t, d)
	})
}
