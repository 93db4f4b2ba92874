package problem

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/docketjudge/docket/langs"
)

// A TPS task folder, the format IOI has used since 2017, as CMS's TPS
// loader reads it (cmscontrib/loaders/tps.py in cms-dev/cms):
// problem.json, tests/<codename>.in and .out, subtasks/*.json, graders/
// and checker/checker.cpp. It reads into the same Problem as a CMS task
// folder (cms.go), with the same score types and comparator protocol.

// isTPSTask: the folder has problem.json and neither problem.yaml nor
// task.yaml.
func isTPSTask(dir string) bool {
	return exists(dir, "problem.json") && missing(dir, "problem.yaml") && !isCMSTask(dir)
}

// tpsTask is problem.json: the keys docket reads. TPS tools write more
// (has_grader, description, ...), which describe the folder docket reads
// anyway and are left alone.
type tpsTask struct {
	Code           string          `json:"code"`
	Name           string          `json:"name"`
	TimeLimit      *float64        `json:"time_limit"`
	MemoryLimit    *int64          `json:"memory_limit"`
	TaskType       string          `json:"task_type"`
	TaskTypeParams json.RawMessage `json:"task_type_params"`
	HasManager     bool            `json:"has_manager"`
	FeedbackLevel  string          `json:"feedback_level"`
}

// tpsSubtask is subtasks/<name>.json.
type tpsSubtask struct {
	Score          *float64 `json:"score"`
	Testcases      []string `json:"testcases"`
	OutputOnly     bool     `json:"output_only"`
	OutputOptional bool     `json:"output_optional"`
}

func (l *loader) loadTPS(p *Problem) {
	var y tpsTask
	b, err := os.ReadFile(filepath.Join(l.dir, "problem.json"))
	if err == nil {
		err = json.Unmarshal(b, &y)
	}
	if err != nil {
		l.errorf("problem.json: %v", err)
		return
	}
	p.Kind, p.CMSName, p.Name = Scoring, y.Code, firstOf(y.Name, y.Code)
	if y.Code == "" {
		l.errorf("problem.json: code is missing (the task's short name, which names the submission's file)")
	}
	l.cmsLimits(p, &cmsTask{TimeLimit: y.TimeLimit, MemoryLimit: y.MemoryLimit})
	if p.Limits.TimeSource != "" {
		p.Limits.TimeSource = "problem.json time_limit"
	}
	tt := l.tpsTaskType(y)
	params := l.tpsParams(y, tt)
	prefix := "task_type_parameters_" + tt + "_"
	p.InputFile, p.OutputFile = params[prefix+"io_0_inputfile"], params[prefix+"io_1_outputfile"]
	codenames := l.tpsCodenames()
	st := l.tpsScoring(codenames, tt)
	if len(l.errs) > 0 {
		return
	}
	l.feedbackLevel(p, "problem.json", y.FeedbackLevel)
	var tests []*Test
	for _, c := range codenames {
		// Every test is public, as CMS's TPS loader makes it: what a
		// contestant sees of it is up to feedback_level.
		tests = append(tests, &Test{Name: c, In: l.cmsFile("tests/" + c + ".in"), Ans: l.cmsFile("tests/" + c + ".out"), Public: true})
	}
	if len(l.errs) > 0 {
		return
	}
	l.tpsOutputRules(p, tt, st, tests)
	l.cmsGroups(p, st, tests)
	if tt == "Communication" {
		l.tpsCommunication(p, params)
		return
	}
	if exists(l.dir, "graders/manager.cpp") {
		l.errorf("graders/manager.cpp: a manager in a %s task (task_type Communication runs one)", tt)
	}
	l.tpsChecker(p)
	if tt != "OutputOnly" && params[prefix+"compilation"] != "alone" {
		l.graderDir(p, "graders")
	}
}

// tpsTaskTypes are the task types docket judges, as CMS spells them.
var tpsTaskTypes = []string{"Batch", "OutputOnly", "BatchAndOutput", "Communication"}

// tpsTaskType is problem.json's task_type as CMS spells it (TPS tools
// write "batch"); another is an error, as is has_manager in a task type
// without a manager.
func (l *loader) tpsTaskType(y tpsTask) string {
	for _, t := range tpsTaskTypes {
		if !strings.EqualFold(y.TaskType, t) {
			continue
		}
		if y.HasManager && t != "Communication" {
			l.errorf("problem.json has_manager: a %s task has no manager (task_type Communication runs one)", t)
			return ""
		}
		return t
	}
	l.errorf("problem.json task_type %q: only Batch, OutputOnly, BatchAndOutput and Communication tasks are supported yet (TwoSteps is not)", y.TaskType)
	return ""
}

// tpsCommunication reads a TPS Communication task as CMS's TPS loader
// does: graders/manager.cpp is the manager, built from its source;
// graders/grader.<ext> is each language's stub (named stub.<ext> in the
// box), the FIFOs the program's stdin and stdout; num_processes from
// task_type_params (default 1).
func (l *loader) tpsCommunication(p *Problem, params map[string]string) {
	mgr, _ := l.cmsProgram("graders", "manager")
	if mgr == nil || filepath.Ext(mgr.Sources[0]) != ".cpp" {
		l.errorf("graders/manager.cpp: missing (a TPS Communication task's manager)")
		return
	}
	c := &Communication{Manager: mgr, Processes: 1}
	if v, ok := params["task_type_parameters_Communication_num_processes"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			l.errorf("problem.json task_type_params task_type_parameters_Communication_num_processes: %q is not a number", v)
		}
		c.Processes = n
	}
	l.stubs(p, "graders", "grader")
	l.communication(p, c, "problem.json task_type_params task_type_parameters_Communication_num_processes")
}

// tpsParams reads task_type_params (a JSON object, or a string holding
// one, as TPS writes it): a Batch or BatchAndOutput task's
// task_type_parameters_<type>_io_0_inputfile, _io_1_outputfile and
// _compilation. An OutputOnly task runs nothing and has none.
func (l *loader) tpsParams(y tpsTask, tt string) map[string]string {
	if tt == "" || tt == "OutputOnly" {
		return nil
	}
	raw := y.TaskTypeParams
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	params := map[string]string{}
	if len(raw) > 0 && string(raw) != "null" && string(raw) != `""` {
		var values map[string]json.RawMessage
		if err := json.Unmarshal(raw, &values); err != nil {
			l.errorf("problem.json task_type_params: %v", err)
		}
		for k, v := range values {
			params[k] = paramText(v)
		}
	}
	for _, k := range []string{"task_type_parameters_" + tt + "_io_0_inputfile", "task_type_parameters_" + tt + "_io_1_outputfile"} {
		if params[k] != "" {
			if err := langs.ValidFileName(params[k]); err != nil {
				l.errorf("problem.json task_type_params %s: %v", k, err)
			}
		}
	}
	return params
}

// paramText is a task_type_params value as text: a string's content,
// or a number (num_processes) as written.
func paramText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// tpsCodenames are the tests: tests/<codename>.in, sorted.
func (l *loader) tpsCodenames() []string {
	entries, err := os.ReadDir(filepath.Join(l.dir, "tests"))
	if err != nil {
		l.errorf("tests/: %v", err)
		return nil
	}
	var out []string
	for _, e := range entries {
		if c, ok := strings.CutSuffix(e.Name(), ".in"); ok {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		l.errorf("tests/: no test (<codename>.in and .out)")
	}
	return out
}

// tpsScoring reads subtasks/*.json, in file name order: each subtask's
// score and tests by codename (GroupMin); no subtasks is Sum, 100
// shared by the tests. A BatchAndOutput task's subtasks may be
// output_only or output_optional (tpsOutputRules); an OutputOnly task's
// tests are all output files whatever its subtasks say, as in CMS.
func (l *loader) tpsScoring(codenames []string, tt string) cmsScoring {
	st := cmsScoring{tests: len(codenames)}
	files, _ := filepath.Glob(filepath.Join(l.dir, "subtasks", "*.json"))
	sort.Strings(files)
	if len(files) == 0 {
		if len(codenames) > 0 {
			st.perTest = 100 / float64(len(codenames))
		}
		return st
	}
	st.reduce = "min"
	known := map[string]bool{}
	for _, c := range codenames {
		known[c] = true
	}
	for _, f := range files {
		rel := "subtasks/" + filepath.Base(f)
		var s tpsSubtask
		b, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(b, &s)
		}
		switch {
		case err != nil:
			l.errorf("%s: %v", rel, err)
		case s.Score == nil || !(*s.Score >= 0):
			l.errorf("%s: score is missing or negative", rel)
		case (s.OutputOnly || s.OutputOptional) && tt == "Batch":
			l.errorf("%s: output_only and output_optional subtasks need problem.json task_type BatchAndOutput, not Batch", rel)
		default:
			g := cmsGroup{points: *s.Score, names: map[string]bool{}}
			for _, c := range s.Testcases {
				if !known[c] {
					l.errorf("%s: test %q is not in tests/", rel, c)
				}
				g.names[c] = true
			}
			st.subtasks = append(st.subtasks, g)
			st.markOutputs(s, g.names)
		}
	}
	return st
}

// tpsChecker reads checker/checker.cpp, a comparator in CMS's protocol
// (TPS's testlib prints it), with the headers of checker/; without it,
// white-diff.
func (l *loader) tpsChecker(p *Problem) {
	if prog, _ := l.cmsProgram("checker", "checker"); prog != nil {
		prog.Protocol = CMS
		p.Checker = prog
		return
	}
	l.useWhiteDiff(p)
}

// markOutputs records the tests of an output_only or output_optional
// subtask (a test in both kinds is output_only, as CMS has it).
func (st *cmsScoring) markOutputs(s tpsSubtask, names map[string]bool) {
	for c := range names {
		switch {
		case s.OutputOnly:
			st.outputOnly = setAdd(st.outputOnly, c)
		case s.OutputOptional:
			st.outputOptional = setAdd(st.outputOptional, c)
		}
	}
}

func setAdd(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}
