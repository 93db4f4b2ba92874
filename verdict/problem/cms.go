package problem

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/docketjudge/docket/internal/yamlkeys"
	"github.com/docketjudge/docket/langs"
	"go.yaml.in/yaml/v3"
)

// A CMS task folder, as CMS's italy_yaml loader reads it
// (cmscontrib/loaders/italy_yaml.py in cms-dev/cms): task.yaml, the
// tests in input/inputN.txt and output/outputN.txt, subtasks from
// gen/GEN, graders and headers in sol/, a comparator in check/ or cor/.
// docket reads it into the same Problem as a Kattis package: a scoring
// problem whose every test is judged (CMS never stops at a failure), its
// subtasks groups under secret/, its score CMS's.

// IsPackage reports whether dir holds a package Load reads: a
// problem.yaml, a CMS task's task.yaml, a TPS task's problem.json or a
// Polygon package's problem.xml.
func IsPackage(dir string) bool {
	return exists(dir, "problem.yaml") || exists(dir, "task.yaml") || exists(dir, "problem.json") || exists(dir, "problem.xml")
}

// isCMSTask: the folder has task.yaml and no problem.yaml.
func isCMSTask(dir string) bool {
	return exists(dir, "task.yaml") && missing(dir, "problem.yaml")
}

// exists: dir/name can be stat'ed; missing: it does not exist (another
// error is neither).
func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

func missing(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return os.IsNotExist(err)
}

// cmsTask is task.yaml: the keys docket reads.
type cmsTask struct {
	Name            string    `yaml:"name"`
	NomeBreve       string    `yaml:"nome_breve"`
	Title           string    `yaml:"title"`
	Nome            string    `yaml:"nome"`
	TimeLimit       *float64  `yaml:"time_limit"`
	Timeout         *float64  `yaml:"timeout"`
	MemoryLimit     *int64    `yaml:"memory_limit"`
	Memlimit        *int64    `yaml:"memlimit"`
	Infile          *string   `yaml:"infile"`
	Outfile         *string   `yaml:"outfile"`
	NInput          *int      `yaml:"n_input"`
	TotalValue      *float64  `yaml:"total_value"`
	ScoreType       string    `yaml:"score_type"`
	ScoreTypeParams yaml.Node `yaml:"score_type_parameters"`
	OutputOnly      bool      `yaml:"output_only"`
	OutputOnlyTests yaml.Node `yaml:"output_only_testcases"`
	OutputOptional  yaml.Node `yaml:"output_optional_testcases"`
	NumProcesses    *int      `yaml:"num_processes"`
	UserIO          string    `yaml:"user_io"`
	PublicTestcases yaml.Node `yaml:"public_testcases"`
	Risultati       yaml.Node `yaml:"risultati"` // public_testcases' Italian name
	FeedbackLevel   string    `yaml:"feedback_level"`
}

// cmsPolicyKeys are task.yaml keys about the contest's policy (tokens,
// submission limits, scoring mode, statements, precision of the shown
// score), which judging does not depend on: read and left to the
// backend.
var cmsPolicyKeys = map[string]bool{
	"primary_language": true, "score_mode": true, "version": true, "score_precision": true,
	"max_submission_number": true, "max_user_test_number": true, "min_submission_interval": true,
	"min_user_test_interval": true, "token_mode": true, "token_max_number": true, "token_min_interval": true,
	"token_gen_initial": true, "token_gen_number": true, "token_gen_interval": true, "token_gen_max": true,
	"token_initial": true, "token_gen_time": true, "token_max": true, "token_total": true,
}

// readTaskYAML decodes task.yaml; a key that is neither read nor a
// policy key is an error naming it.
func (l *loader) readTaskYAML() *cmsTask {
	y := &cmsTask{}
	b, err := os.ReadFile(filepath.Join(l.dir, "task.yaml"))
	if err != nil {
		l.errorf("task.yaml: %v", err)
		return y
	}
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		l.errorf("task.yaml: %v", err)
		return y
	}
	if len(n.Content) == 0 {
		l.errorf("task.yaml: empty")
		return y
	}
	root := n.Content[0]
	if root.Kind != yaml.MappingNode {
		l.errorf("task.yaml: not a mapping of keys")
		return y
	}
	for _, k := range yamlkeys.Unknown(root, y, cmsPolicyKeys) {
		l.errorf("task.yaml line %d: unknown key %q", k.Line, k.Value)
	}
	if err := root.Decode(y); err != nil {
		l.errorf("task.yaml: %v", err)
	}
	return y
}

// loadCMS reads a CMS task folder into p.
func (l *loader) loadCMS(p *Problem) {
	y := l.readTaskYAML()
	if len(l.errs) > 0 {
		return
	}
	p.Kind = Scoring
	p.CMSName = firstOf(y.Name, y.NomeBreve)
	p.Name = firstOf(y.Title, y.Nome, p.CMSName)
	if p.CMSName == "" {
		l.errorf("task.yaml: name is missing (the task's short name, which names the submission's file)")
	}
	l.cmsLimits(p, y)
	l.cmsFiles(p, y)
	st := l.cmsScoring(y)
	if len(l.errs) > 0 {
		return
	}
	tests := l.cmsTests(st.tests)
	l.cmsPublic(y, tests)
	l.feedbackLevel(p, "task.yaml", y.FeedbackLevel)
	if len(l.errs) > 0 {
		return
	}
	l.cmsOutputRules(p, y, tests)
	l.cmsGroups(p, st, tests)
	l.cmsComparator(p)
	if p.OutputOnly { // no program, nothing to grade (CMS reads no sol/ then)
		return
	}
	if l.cmsCommunication(p, y) {
		l.unusedGraders("sol")
		return
	}
	l.cmsGraders(p)
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// cmsLimits reads time_limit (timeout), in seconds, and memory_limit
// (memlimit), in MiB.
func (l *loader) cmsLimits(p *Problem, y *cmsTask) {
	for _, c := range []struct {
		t   *float64
		key string
	}{{y.TimeLimit, "time_limit"}, {y.Timeout, "timeout"}} {
		if c.t == nil || p.Limits.Time != 0 {
			continue
		}
		d, err := seconds(*c.t)
		if err != nil {
			l.errorf("task.yaml %s: %v", c.key, err)
			continue
		}
		p.Limits.Time, p.Limits.TimeSource = d, "task.yaml "+c.key
	}
	for _, m := range []*int64{y.MemoryLimit, y.Memlimit} {
		if m == nil || p.Limits.MemoryMB != 0 {
			continue
		}
		if *m <= 0 || *m > 1<<20 {
			l.errorf("task.yaml memory_limit: %d MiB is not between 1 and 1048576", *m)
			continue
		}
		p.Limits.MemoryMB = int(*m)
	}
}

// cmsFiles reads infile and outfile: CMS's default is input.txt and
// output.txt, "" is stdin and stdout. A name is one file of the box, by
// the file name rule (it reaches the program's working directory).
func (l *loader) cmsFiles(p *Problem, y *cmsTask) {
	p.InputFile, p.OutputFile = deref(y.Infile, "input.txt"), deref(y.Outfile, "output.txt")
	for key, name := range map[string]string{"infile": p.InputFile, "outfile": p.OutputFile} {
		if name == "" {
			continue
		}
		if err := langs.ValidFileName(name); err != nil {
			l.errorf("task.yaml %s: %v", key, err)
		}
	}
	if p.InputFile != "" && p.InputFile == p.OutputFile {
		l.errorf("task.yaml: infile and outfile are both %q", p.InputFile)
	}
}

func deref(s *string, d string) string {
	if s == nil {
		return d
	}
	return *s
}

// cmsPublic marks the tests that task.yaml's public_testcases (or its
// Italian name, risultati) makes public, as italy_yaml reads it: "all",
// or indices separated by commas (index i is input<i>.txt); none when it
// is missing or empty.
func (l *loader) cmsPublic(y *cmsTask, tests []*Test) {
	n, key := y.PublicTestcases, "public_testcases"
	if n.Kind == 0 {
		n, key = y.Risultati, "risultati"
	}
	if n.Kind == 0 || n.Tag == "!!null" {
		return
	}
	v := strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode || v == "" {
		l.errorf("task.yaml %s: want all or test indices separated by commas (0,2,5)", key)
		return
	}
	if v == "all" {
		for _, t := range tests {
			t.Public = true
		}
		return
	}
	for _, x := range strings.Split(v, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || i < 0 || i >= len(tests) {
			l.errorf("task.yaml %s: %q is not a test's index (0 to %d)", key, strings.TrimSpace(x), len(tests)-1)
			continue
		}
		tests[i].Public = true
	}
}

// feedbackLevel reads a CMS or TPS task's feedback_level from file: full,
// restricted or oi_restricted; restricted, CMS's default, when it is
// not set.
func (l *loader) feedbackLevel(p *Problem, file, v string) {
	switch v {
	case "":
		p.CMSFeedbackLevel = "restricted"
	case "full", "restricted", "oi_restricted":
		p.CMSFeedbackLevel = v
	default:
		l.errorf("%s feedback_level: %q is not full, restricted or oi_restricted", file, v)
	}
}
