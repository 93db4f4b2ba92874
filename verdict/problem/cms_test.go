package problem

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// problems/cms-plus, CMS's italy_yaml format, is read as CMS reads it:
// the limits, the tests by codename, gen/GEN's subtasks as groups
// (GroupMin: each worth its points, scored by its least outcome), every
// test judged, white-diff, the graders of sol/ with its header, and the
// task's name for the submission's file.
func TestCMSTaskLoaded(t *testing.T) {
	p, err := Load("../../problems/cms-plus")
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != Scoring || p.CMSName != "plus" || p.Name != "A plus B, the function (CMS)" || p.Limits.Time != time.Second ||
		p.Limits.TimeSource != "task.yaml time_limit" || p.Limits.MemoryMB != 256 {
		t.Errorf("task: %+v", p)
	}
	var groups []string
	for _, g := range p.Root.Groups[0].Groups {
		var names []string
		for _, tc := range g.Tests {
			names = append(names, strings.TrimPrefix(tc.Name, g.Name+"/"))
		}
		groups = append(groups, fmt.Sprintf("%s %g %v %s %v %s", g.Name, g.Config.AcceptScore, g.Config.GraderFlags, g.Config.OnReject, g.Config.ValidatorFlags, strings.Join(names, ",")))
	}
	want := []string{
		"secret/subtask1 0 [min] continue [white_diff] 000",
		"secret/subtask2 40 [min] continue [white_diff] 001,002",
		"secret/subtask3 60 [min] continue [white_diff] 003,004",
	}
	if strings.Join(groups, "\n") != strings.Join(want, "\n") || len(p.Tests) != 5 {
		t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(groups, "\n"), strings.Join(want, "\n"))
	}
	var inc []string
	for _, lang := range []string{"cpp", "java", "python3"} {
		for _, f := range p.Includes[lang] {
			inc = append(inc, fmt.Sprintf("%s/%s %v", lang, f.Name, f.Main))
		}
	}
	if got := strings.Join(inc, " "); got != "cpp/grader.cpp true cpp/plus.h false java/grader.java true java/plus.h false python3/grader.py true python3/plus.h false" {
		t.Errorf("graders: %s", got)
	}
	if p.Checker != nil {
		t.Errorf("a checker without check/: %+v", p.Checker)
	}
}

func TestParseGEN(t *testing.T) {
	for _, c := range []struct {
		gen   string
		subs  string
		tests int
		err   string
	}{
		{"a\nb\n# comment\n\nc\n", "[]", 3, ""},
		{"# ST: 30\na\n#COPY: x.txt\n# ST: 70\nb  # trailing comment\n", "[{30 2} {70 1}]", 3, ""},
		{"#ST:0\n#COPY: s\n# ST: 100\nx\n", "[{0 1} {100 1}]", 2, ""},
		{"a\n# ST: 100\nb\n", "", 0, "1 tests before the first subtask"},
		{"# ST: 50\n# ST: 50\na\n", "", 0, "the subtask before it has no test"},
		{"# ST: 100\n", "", 0, "the last subtask has no test"},
		{"# ST: ten\na\n", "", 0, "not a subtask's points"},
		{"# ST: -5\na\n", "", 0, "not a subtask's points"},
		{"x # ST: 5\n", "", 0, "a test and a command on one line"},
	} {
		subs, n, err := parseGEN([]byte(c.gen))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want %q", c.gen, err, c.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(subs) != c.subs || n != c.tests {
			t.Errorf("%q: %v %d %v, want %s %d", c.gen, subs, n, err, c.subs, c.tests)
		}
	}
}

func FuzzParseGEN(f *testing.F) {
	f.Add([]byte("# ST: 30\na\n#COPY: x\n# ST: 70\nb\n"))
	f.Add([]byte("a\n#\n# ST:\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		subs, n, err := parseGEN(b)
		if err != nil {
			return
		}
		total := 0
		for _, s := range subs {
			if s.Tests <= 0 || s.Points < 0 {
				t.Fatalf("subtask %+v", s)
			}
			total += s.Tests
		}
		if len(subs) > 0 && total != n || n < 0 {
			t.Fatalf("%v: %d tests, the subtasks hold %d", subs, n, total)
		}
	})
}

// cmsTask writes a CMS task folder of n tests with task.yaml y and the
// extra files, for the refusal tests.
func cmsTaskDir(t testing.TB, y string, n int, extra map[string]string) string {
	d := filepath.Join(t.TempDir(), "task")
	files := map[string]string{"task.yaml": y}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("input/input%d.txt", i)] = "1\n"
		files[fmt.Sprintf("output/output%d.txt", i)] = "1\n"
	}
	for k, v := range extra {
		files[k] = v
	}
	write(t, d, files)
	return d
}

const cmsStd = "name: t\ntitle: T\ninfile: \"\"\noutfile: \"\"\nn_input: 2\n"

// What docket cannot judge of a CMS task yet, or what is wrong in one,
// is a load error that names it, never a task judged some other way.
func TestCMSRefused(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		extra      map[string]string
		want       string
	}{
		{"option-like infile", "name: t\ninfile: -x.txt\noutfile: \"\"\nn_input: 2\n", nil, `task.yaml infile: invalid file name "-x.txt"`},
		{"one file both ways", "name: t\ninfile: io.txt\noutfile: io.txt\nn_input: 2\n", nil, `infile and outfile are both "io.txt"`},
		{"binary manager", cmsStd, map[string]string{"check/manager": "\x7fELF"}, "check/manager: not an executable for this worker"},
		{"processes without manager", cmsStd + "num_processes: 2\n", nil, "num_processes and user_io are for Communication tasks"},
		{"bad user_io", cmsStd + "user_io: pipes\n", map[string]string{"cor/manager.cpp": "int main(){}"}, `user_io: "pipes" is neither std_io nor fifo_io`},
		{"communication and output files", cmsStd + "output_only_testcases: \"0\"\n", map[string]string{"cor/manager.cpp": "int main(){}"}, "a Communication task takes no output files"},
		{"no processes", cmsStd + "num_processes: 0\n", map[string]string{"cor/manager.cpp": "int main(){}"}, "0 processes; docket runs 1 to 8"},
		{"output test out of range", cmsStd + "output_only_testcases: \"0, 2\"\n", nil, `output_only_testcases: "2" is not a test number (0 to 1)`},
		{"output test not a number", cmsStd + "output_optional_testcases: \"a\"\n", nil, `output_optional_testcases: "a" is not a test number`},
		{"output tests a list", cmsStd + "output_only_testcases: [0, 1]\n", nil, "output_only_testcases: want a comma-separated string"},
		{"output tests of output only", cmsStd + "output_only: true\noutput_only_testcases: \"0\"\n", nil, "an output_only task takes every test's output file"},
		{"unknown key", cmsStd + "tiem_limit: 1\n", nil, `unknown key "tiem_limit"`},
		{"no name", "title: T\ninfile: \"\"\noutfile: \"\"\nn_input: 2\n", nil, "name is missing"},
		{"points not 100", cmsStd, map[string]string{"gen/GEN": "# ST: 40\na\n# ST: 50\nb\n"}, "add up to 90, not 100"},
		{"n_input differs", cmsStd, map[string]string{"gen/GEN": "a\nb\nc\n"}, "n_input is 2, gen/GEN has 3 tests"},
		{"missing output", "name: t\ninfile: \"\"\noutfile: \"\"\nn_input: 3\n", nil, "output/output2.txt: missing"},
		{"binary checker", cmsStd, map[string]string{"check/checker": "\x7fELF"}, "check/checker: not an executable for this worker"},
		{"score type", cmsStd + "score_type: GroupFancy\nscore_type_parameters: [[100, 2]]\n", nil, `score_type: "GroupFancy" is not supported yet`},
		{"mixed test kinds", cmsStd + "score_type: GroupMin\nscore_type_parameters: [[50, 1], [50, \"001\"]]\n", nil, "in more than one way"},
		{"pattern matching nothing", cmsStd + "score_type: GroupMin\nscore_type_parameters: [[50, \"00[01]\"], [50, \"9\"]]\n", nil, "secret/subtask2 has no test"},
		{"half a score type", cmsStd + "score_type: Sum\n", nil, "go together"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(cmsTaskDir(t, c.yaml, 2, c.extra))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load: %v, want %q", err, c.want)
			}
		})
	}
}

// Sum: each test worth total_value / n_input, or score_type_parameters;
// GroupMin subtasks by count or by a pattern of codenames; a comparator
// in check/ in CMS's protocol, with its headers.
func TestCMSScoreTypes(t *testing.T) {
	p, err := Load(cmsTaskDir(t, cmsStd+"total_value: 50\n", 2, nil))
	if err != nil || p.Root.Groups[0].Config.AcceptScore != 25 || len(p.Root.Groups[0].Tests) != 2 || p.InputFile != "" || p.OutputFile != "" {
		t.Fatalf("Sum of total_value: %v", err)
	}
	p, err = Load(cmsTaskDir(t, "name: t\nn_input: 2\n", 2, nil))
	if err != nil || p.InputFile != "input.txt" || p.OutputFile != "output.txt" {
		t.Fatalf("CMS's default files: %v %+v", err, p)
	}
	p, err = Load(cmsTaskDir(t, cmsStd+"score_type: Sum\nscore_type_parameters: 7\n", 2, nil))
	if err != nil || p.Root.Groups[0].Config.AcceptScore != 7 {
		t.Fatalf("explicit Sum: %v", err)
	}
	p, err = Load(cmsTaskDir(t, cmsStd+"score_type: GroupMin\nscore_type_parameters: [[30, \"000\"], [70, \"00[1-9]\"]]\n", 2,
		map[string]string{"check/checker.cpp": "int main(){}", "check/testlib.h": "", "check/README": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	if g := p.Root.Groups[0].Groups; len(g) != 2 || g[1].Config.AcceptScore != 70 || len(g[1].Tests) != 1 || g[1].Tests[0].Name != "secret/subtask2/001" {
		t.Errorf("patterns: %+v", g)
	}
	if c := p.Checker; c == nil || c.Protocol != CMS || strings.Join(c.Sources, " ") != "checker.cpp testlib.h" || len(p.ValidatorFlags) != 0 {
		t.Errorf("comparator %+v, flags %v", c, p.ValidatorFlags)
	}
	// GroupMul by lists of codenames; a test in no subtask is judged and
	// worth nothing, as in CMS.
	p, err = Load(cmsTaskDir(t, "name: t\ninfile: \"\"\noutfile: \"\"\nn_input: 3\nscore_type: GroupMul\nscore_type_parameters: [[100, [\"000\", \"002\"]]]\n", 3, nil))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range p.Root.Groups[0].Groups {
		for _, tc := range g.Tests {
			got = append(got, fmt.Sprintf("%s %g %v", tc.Name, g.Config.AcceptScore, g.Config.GraderFlags))
		}
	}
	if strings.Join(got, ", ") != "secret/subtask1/000 100 [mul], secret/subtask1/002 100 [mul], secret/unscored/001 0 []" {
		t.Errorf("GroupMul by lists: %v", got)
	}
}

func FuzzCMSTaskYAML(f *testing.F) {
	for _, s := range []string{cmsStd, cmsStd + "score_type: GroupMin\nscore_type_parameters: [[50, 1], [50, \"001\"]]\n",
		"name: t\ntime_limit: .nan\nmemory_limit: -1\ninfile: \"\"\noutfile: \"\"\nn_input: 2\n", "[", "name: [1]\n"} {
		f.Add([]byte(s))
	}
	dir := cmsTaskDir(f, cmsStd, 3, map[string]string{"gen/GEN": "# ST: 40\na\n# ST: 60\nb\nc\n"})
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, "task.yaml"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Load(dir)
		if err != nil {
			return
		}
		if p.Kind != Scoring || len(p.Tests) == 0 || p.Limits.Time < 0 || p.Limits.MemoryMB < 0 {
			t.Fatalf("%q loaded as %+v", b, p)
		}
		for _, tc := range p.Tests {
			if tc.Group == nil || tc.In == "" || tc.Ans == "" || !(tc.Group.Config.AcceptScore >= 0) {
				t.Fatalf("%q: test %+v", b, tc)
			}
		}
	})
}

// A CMS Communication task: check/manager.<ext> (or cor/) the manager;
// sol/stub.<ext> each language's stub, which makes user_io fifo_io by
// default, as CMS's loader sets it; a grader beside it is not used, and
// a warning says so.
func TestCMSCommunication(t *testing.T) {
	p, err := Load(cmsTaskDir(t, cmsStd+"num_processes: 2\n", 2, map[string]string{
		"check/manager.cpp": "int main(){}", "sol/stub.cpp": "int main(){}", "sol/t.h": "", "sol/grader.cpp": "int main(){}"}))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Communication
	if c == nil || c.Processes != 2 || !c.FIFOArgs || c.Manager.Sources[0] != "manager.cpp" {
		t.Fatalf("communication: %+v", c)
	}
	if cpp := p.Includes["cpp"]; len(cpp) != 2 || cpp[0].Name != "stub.cpp" || !cpp[0].Main {
		t.Errorf("stubs: %+v", p.Includes)
	}
	if !slices.ContainsFunc(p.Warnings, func(w Warning) bool { return w.Code == WarnUnused && w.Paths[0] == "sol/grader.cpp" }) {
		t.Errorf("warnings: %+v", p.Warnings)
	}
	p, err = Load(cmsTaskDir(t, cmsStd+"user_io: std_io\n", 2, map[string]string{"cor/manager.py": "print(1)"}))
	if err != nil || p.Communication == nil || p.Communication.FIFOArgs || p.Communication.Processes != 1 || len(p.Includes) != 0 {
		t.Fatalf("std_io, no stubs: %v %+v", err, p)
	}
}

// GroupThreshold: [points, tests, threshold] per subtask, tests given as
// for the other group types; its groups take the least of their tests'
// pass or fail (min) and carry the threshold; the comparator's outcomes
// are raw. A test in no subtask passes on any positive outcome.
func TestCMSGroupThreshold(t *testing.T) {
	y := "name: t\ninfile: \"\"\noutfile: \"\"\nn_input: 3\nscore_type: GroupThreshold\nscore_type_parameters: [[40, \"000\", 0.5], [60, \"00[01]\", 2]]\n"
	p, err := Load(cmsTaskDir(t, y, 3, nil))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range p.Root.Groups[0].Groups {
		got = append(got, fmt.Sprintf("%s %g %v %g %d", g.Name, g.Config.AcceptScore, g.Config.GraderFlags, *g.Config.Threshold, len(g.Tests)))
	}
	if want := "secret/subtask1 40 [min] 0.5 1, secret/subtask2 60 [min] 2 2, secret/unscored 0 [] +Inf 1"; strings.Join(got, ", ") != want || !p.CMSRawOutcomes {
		t.Errorf("groups %s, want %s (raw outcomes %v)", strings.Join(got, ", "), want, p.CMSRawOutcomes)
	}
	p, err = Load(cmsTaskDir(t, cmsStd+"score_type: GroupMin\nscore_type_parameters: [[100, 2]]\n", 2, nil))
	if err != nil || p.CMSRawOutcomes || p.Root.Groups[0].Groups[0].Config.Threshold != nil {
		t.Errorf("GroupMin: %v, raw outcomes %v", err, p != nil && p.CMSRawOutcomes)
	}
	for _, c := range []struct{ params, want string }{
		{"[[100, 2]]", "score_type_parameters[0]: want [points, tests, threshold], got 2 items"},
		{"[[100, 2, 0.5, 1]]", "score_type_parameters[0]: want [points, tests, threshold], got 4 items"},
		{"[[100, 2, 0]]", `score_type_parameters[0]: threshold "0" is not a positive number`},
		{"[[100, 2, -1]]", `threshold "-1" is not a positive number`},
		{"[[100, 2, .inf]]", `threshold ".inf" is not a positive number`},
		{"[[100, 2, x]]", `threshold "x" is not a positive number`},
		{"[[-5, 2, 1]]", `points "-5" are not a non-negative number`},
		{"[[100, \"(\", 1]]", `pattern "("`},
		{"7", "GroupThreshold takes a list of [points, tests, threshold]"},
		{"[[50, 1, 1], [50, \"001\", 1]]", "in more than one way"},
	} {
		_, err := Load(cmsTaskDir(t, cmsStd+"score_type: GroupThreshold\nscore_type_parameters: "+c.params+"\n", 2, nil))
		if err == nil || !strings.Contains(err.Error(), "task.yaml "+"score_type_parameters") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.params, err, c.want)
		}
	}
}

// public_testcases (or risultati) makes tests public: all, or indices;
// a public test stays in its subtask, scored. feedback_level is CMS's,
// restricted by default.
func TestCMSPublicTestcases(t *testing.T) {
	public := func(p *Problem) string {
		var out []string
		for _, tc := range p.Tests {
			if tc.Public {
				out = append(out, tc.Name)
			}
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct{ extra, public, level string }{
		{"", "", "restricted"},
		{"public_testcases: all\nfeedback_level: full\n", "secret/000 secret/001 secret/002", "full"},
		{"public_testcases: \"0, 2\"\nfeedback_level: oi_restricted\n", "secret/000 secret/002", "oi_restricted"},
		{"risultati: \"1\"\n", "secret/001", "restricted"},
		{"public_testcases: 2\n", "secret/002", "restricted"},
		{"public_testcases:\n", "", "restricted"},
	} {
		p, err := Load(cmsTaskDir(t, "name: t\nn_input: 3\n"+c.extra, 3, nil))
		if err != nil || public(p) != c.public || p.CMSFeedbackLevel != c.level {
			t.Errorf("%q: %v: public %q, level %q; want %q, %q", c.extra, err, public(p), p.CMSFeedbackLevel, c.public, c.level)
		}
	}
	// In subtasks: each subtask's copy of a test is public with it; a
	// test in no subtask, which CMS shows nowhere, never is.
	p, err := Load(cmsTaskDir(t, "name: t\nn_input: 3\nscore_type: GroupMin\nscore_type_parameters: [[50, [\"000\", \"001\"]], [50, [\"001\"]]]\npublic_testcases: all\n", 3, nil))
	if err != nil || public(p) != "secret/subtask1/000 secret/subtask1/001 secret/subtask2/001" || p.Root.Groups[0].Groups[0].Config.AcceptScore != 50 {
		t.Errorf("subtasks: %v: public %q", err, public(p))
	}
	for _, c := range []struct{ extra, want string }{
		{"public_testcases: \"0,3\"\n", `task.yaml public_testcases: "3" is not a test's index (0 to 2)`},
		{"public_testcases: \"-1\"\n", `task.yaml public_testcases: "-1" is not a test's index`},
		{"public_testcases: \"0,,1\"\n", `task.yaml public_testcases: "" is not a test's index`},
		{"risultati: some\n", `task.yaml risultati: "some" is not a test's index`},
		{"public_testcases: [0, 1]\n", "task.yaml public_testcases: want all or test indices"},
		{"feedback_level: partial\n", `task.yaml feedback_level: "partial" is not full, restricted or oi_restricted`},
	} {
		if _, err := Load(cmsTaskDir(t, "name: t\nn_input: 3\n"+c.extra, 3, nil)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.extra, err, c.want)
		}
	}
}
