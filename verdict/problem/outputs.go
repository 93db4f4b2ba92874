package problem

import (
	"sort"
	"strconv"
	"strings"

	"github.com/docketjudge/docket/langs"
	"go.yaml.in/yaml/v3"
)

// A CMS OutputOnly task takes output files instead of a program, one per
// test, named as CMS's submission format names them:
// output_<codename>.txt. A BatchAndOutput task takes a program and such
// files for some of its tests (cms/grading/tasktypes/OutputOnly.py and
// BatchAndOutput.py in cms-dev/cms).

// OutputRule is how a test takes a submitted output file.
type OutputRule string

const (
	// OutputNone: the test runs the program (Batch).
	OutputNone OutputRule = ""
	// OutputRequired: the test is judged from the submitted file alone;
	// without it the test scores 0 (an OutputOnly task's every test, a
	// BatchAndOutput task's output_only_testcases).
	OutputRequired OutputRule = "required"
	// OutputOptional: judged from the submitted file when there is one,
	// else by running the program (output_optional_testcases).
	OutputOptional OutputRule = "optional"
)

// OutputFileName is the name of the submitted output file of the test
// with codename c, as CMS's submission format names it.
func OutputFileName(c string) string { return "output_" + c + ".txt" }

// IsOutputFileName reports whether name has the form of a submitted
// output file, output_<codename>.txt (whether the task has that test is
// the task's to say: Problem.OutputFiles).
func IsOutputFileName(name string) bool {
	c, ok := strings.CutPrefix(name, "output_")
	if !ok {
		return false
	}
	c, ok = strings.CutSuffix(c, ".txt")
	return ok && c != ""
}

// TakesOutputs reports whether a submission to p may hold output files:
// p is an OutputOnly or BatchAndOutput task.
func (p *Problem) TakesOutputs() bool { return p.OutputOnly || p.BatchAndOutput }

// OutputFiles are the names of the output files a submission to p may
// hold, sorted: the submission format's output_<codename>.txt.
func (p *Problem) OutputFiles() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range p.Tests {
		if t.OutputFile != "" && !seen[t.OutputFile] {
			seen[t.OutputFile] = true
			out = append(out, t.OutputFile)
		}
	}
	sort.Strings(out)
	return out
}

// setOutputRule gives the test with codename c the rule r and its file's
// name; a name that is no valid file name (a TPS codename may be
// anything) is a load error, since no submission could carry it.
func (l *loader) setOutputRule(t *Test, r OutputRule) {
	name := OutputFileName(t.Name)
	if err := langs.ValidFileName(name); err != nil {
		l.errorf("test %q: its output file cannot be submitted: %v", t.Name, err)
		return
	}
	t.Output, t.OutputFile = r, name
}

// cmsOutputRules sets the rules of a CMS task's tests (by codename,
// before cmsGroups names them): every test required for output_only;
// else output_only_testcases required and output_optional_testcases
// optional, which makes the task BatchAndOutput.
func (l *loader) cmsOutputRules(p *Problem, y *cmsTask, tests []*Test) {
	only := l.cmsTestNumbers("output_only_testcases", y.OutputOnlyTests, len(tests))
	optional := l.cmsTestNumbers("output_optional_testcases", y.OutputOptional, len(tests))
	if y.OutputOnly {
		if only != nil || optional != nil {
			l.errorf("task.yaml: output_only_testcases and output_optional_testcases are for a task with a program (BatchAndOutput); an output_only task takes every test's output file")
		}
		p.OutputOnly = true
		for _, t := range tests {
			l.setOutputRule(t, OutputRequired)
		}
		return
	}
	if only == nil && optional == nil {
		return
	}
	p.BatchAndOutput = true
	for i, t := range tests {
		switch {
		case only[i]: // in both lists: CMS requires it
			l.setOutputRule(t, OutputRequired)
		case optional[i]:
			l.setOutputRule(t, OutputOptional)
		}
	}
}

// cmsTestNumbers reads a task.yaml list of tests as italy_yaml does: a
// comma-separated string of test numbers (or one number), each below n;
// nil for none (absent, null or "").
func (l *loader) cmsTestNumbers(key string, v yaml.Node, n int) map[int]bool {
	if v.Kind == 0 || v.Tag == "!!null" || v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) == "" {
		return nil
	}
	if v.Kind != yaml.ScalarNode {
		l.errorf("task.yaml line %d %s: want a comma-separated string of test numbers (\"0, 3\"), as CMS reads it", v.Line, key)
		return nil
	}
	out := map[int]bool{}
	for _, f := range strings.Split(v.Value, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 || i >= n {
			l.errorf("task.yaml %s: %q is not a test number (0 to %d)", key, strings.TrimSpace(f), n-1)
			continue
		}
		out[i] = true
	}
	return out
}

// tpsOutputRules sets the rules of a TPS task's tests: every test
// required for OutputOnly; for BatchAndOutput, the tests of subtasks
// with output_only required and of those with output_optional optional.
func (l *loader) tpsOutputRules(p *Problem, taskType string, st cmsScoring, tests []*Test) {
	switch taskType {
	case "OutputOnly":
		p.OutputOnly = true
		for _, t := range tests {
			l.setOutputRule(t, OutputRequired)
		}
	case "BatchAndOutput":
		p.BatchAndOutput = true
		for _, t := range tests {
			switch {
			case st.outputOnly[t.Name]:
				l.setOutputRule(t, OutputRequired)
			case st.outputOptional[t.Name]:
				l.setOutputRule(t, OutputOptional)
			}
		}
	}
}
