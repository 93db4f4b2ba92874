package problem

import (
	"fmt"
	"os"
	"path/filepath"
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
		{"output test out of range", cmsStd + "output_only_testcases: \"0, 2\"\n", nil, `output_only_testcases: "2" is not a test number (0 to 1)`},
		{"output test not a number", cmsStd + "output_optional_testcases: \"a\"\n", nil, `output_optional_testcases: "a" is not a test number`},
		{"output tests a list", cmsStd + "output_only_testcases: [0, 1]\n", nil, "output_only_testcases: want a comma-separated string"},
		{"output tests of output only", cmsStd + "output_only: true\noutput_only_testcases: \"0\"\n", nil, "an output_only task takes every test's output file"},
		{"communication", cmsStd, map[string]string{"check/manager.cpp": "int main(){}"}, "check/manager.cpp: Communication tasks are not supported yet"},
		{"unknown key", cmsStd + "tiem_limit: 1\n", nil, `unknown key "tiem_limit"`},
		{"no name", "title: T\ninfile: \"\"\noutfile: \"\"\nn_input: 2\n", nil, "name is missing"},
		{"points not 100", cmsStd, map[string]string{"gen/GEN": "# ST: 40\na\n# ST: 50\nb\n"}, "add up to 90, not 100"},
		{"n_input differs", cmsStd, map[string]string{"gen/GEN": "a\nb\nc\n"}, "n_input is 2, gen/GEN has 3 tests"},
		{"missing output", "name: t\ninfile: \"\"\noutfile: \"\"\nn_input: 3\n", nil, "output/output2.txt: missing"},
		{"binary checker", cmsStd, map[string]string{"check/checker": "\x7fELF"}, "a compiled comparator"},
		{"score type", cmsStd + "score_type: GroupThreshold\nscore_type_parameters: [[100, 2, 0.5]]\n", nil, `score_type: "GroupThreshold" is not supported yet`},
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
