package problem

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// problems/tps-plus, a TPS task folder, is read as CMS's TPS loader
// reads it: problem.json's code, name and limits, tests/ by codename,
// subtasks/*.json in file name order (GroupMin; a test in several
// subtasks is one test, its Key), checker/checker.cpp in CMS's
// protocol, graders/ with their header.
func TestTPSTaskLoaded(t *testing.T) {
	p, err := Load("../../problems/tps-plus")
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, g := range p.Root.Groups[0].Groups {
		var keys []string
		for _, tc := range g.Tests {
			keys = append(keys, tc.Key)
		}
		groups = append(groups, fmt.Sprintf("%s %g %s", g.Name, g.Config.AcceptScore, strings.Join(keys, ",")))
	}
	want := "secret/subtask1 0 0-01; secret/subtask2 40 0-01,1-01,1-02; secret/subtask3 60 0-01,1-01,1-02,2-01,2-02"
	if got := strings.Join(groups, "; "); got != want {
		t.Errorf("groups %s, want %s", got, want)
	}
	if p.CMSName != "plus" || p.Name != "A plus B, the function (TPS)" || p.Limits.MemoryMB != 256 || p.Limits.TimeSource != "problem.json time_limit" ||
		p.Checker == nil || p.Checker.Protocol != CMS || len(p.Includes["cpp"]) != 2 || p.InputFile != "" || p.OutputFile != "" {
		t.Errorf("task %+v", p)
	}
	subs, err := ExampleSubmissions("../../problems/tps-plus")
	if err != nil || len(subs) != 4 || subs[0].Rel != "correct/plus.py" {
		t.Errorf("solutions: %+v %v", subs, err)
	}
}

// tpsDir is a TPS task folder of two tests with problem.json j and the
// extra files.
func tpsDir(t testing.TB, j string, extra map[string]string) string {
	d := filepath.Join(t.TempDir(), "tps")
	files := map[string]string{"problem.json": j, "tests/a.in": "1\n", "tests/a.out": "1\n", "tests/b.in": "2\n", "tests/b.out": "2\n"}
	for k, v := range extra {
		files[k] = v
	}
	write(t, d, files)
	return d
}

const tpsStd = `{"code": "t", "name": "T", "time_limit": 1, "memory_limit": 64, "task_type": "Batch"}`

func TestTPSRefused(t *testing.T) {
	for _, c := range []struct {
		name, json string
		extra      map[string]string
		want       string
	}{
		{"communication without manager", `{"code": "t", "task_type": "Communication"}`, nil, `graders/manager.cpp: missing`},
		{"manager in batch", tpsStd, map[string]string{"graders/manager.cpp": "int main(){}"}, "graders/manager.cpp: a manager in a Batch task"},
		{"two-step", `{"code": "t", "task_type": "TwoSteps"}`, nil, `task_type "TwoSteps": only Batch, OutputOnly, BatchAndOutput and Communication`},
		{"too many processes", `{"code": "t", "task_type": "Communication", "task_type_params": {"task_type_parameters_Communication_num_processes": 9}}`, map[string]string{"graders/manager.cpp": "int main(){}"}, "9 processes; docket runs 1 to 8"},
		{"processes not a number", `{"code": "t", "task_type": "Communication", "task_type_params": {"task_type_parameters_Communication_num_processes": "two"}}`, map[string]string{"graders/manager.cpp": "int main(){}"}, `"two" is not a number`},
		{"output only subtask", tpsStd, map[string]string{"subtasks/1.json": `{"score": 100, "testcases": ["a"], "output_only": true}`}, "output_only and output_optional subtasks need problem.json task_type BatchAndOutput, not Batch"},
		{"output file not a file name", `{"code": "t", "task_type": "OutputOnly"}`, map[string]string{"tests/x y.in": "1\n", "tests/x y.out": "1\n"}, `test "x y": its output file cannot be submitted`},
		{"unknown test", tpsStd, map[string]string{"subtasks/1.json": `{"score": 100, "testcases": ["a", "c"]}`}, `test "c" is not in tests/`},
		{"no score", tpsStd, map[string]string{"subtasks/1.json": `{"testcases": ["a"]}`}, "score is missing"},
		{"bad json", `{"code": `, nil, "problem.json:"},
		{"no code", `{"task_type": "batch"}`, nil, "code is missing"},
		{"missing answer", tpsStd, map[string]string{"tests/c.in": "3\n"}, "tests/c.out: missing"},
		{"feedback level", `{"code": "t", "task_type": "batch", "feedback_level": "some"}`, nil, `problem.json feedback_level: "some" is not full, restricted or oi_restricted`},
		{"option-like file", `{"code": "t", "task_type": "batch", "task_type_params": "{\"task_type_parameters_Batch_io_0_inputfile\": \"-x\"}"}`, nil, "invalid file name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Load(tpsDir(t, c.json, c.extra)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load: %v, want %q", err, c.want)
			}
		})
	}
	p, err := Load(tpsDir(t, `{"code": "t", "task_type": "batch", "task_type_params": {"task_type_parameters_Batch_io_0_inputfile": "in.txt"}}`, nil))
	if err != nil || p.InputFile != "in.txt" || p.OutputFile != "" || p.Root.Groups[0].Config.AcceptScore != 50 {
		t.Errorf("params as an object, no subtasks: %v %+v", err, p)
	}
}

func FuzzTPSProblemJSON(f *testing.F) {
	f.Add([]byte(tpsStd))
	f.Add([]byte(`{"code": "t", "task_type": "batch", "task_type_params": "{\"task_type_parameters_Batch_compilation\": \"alone\"}", "time_limit": -1}`))
	dir := tpsDir(f, tpsStd, map[string]string{"subtasks/1.json": `{"score": 30, "testcases": ["a"]}`, "subtasks/2.json": `{"score": 70, "testcases": ["a", "b"]}`})
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, "problem.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Load(dir)
		if err != nil {
			return
		}
		if p.Kind != Scoring || len(p.Tests) != 3 || p.CMSName == "" {
			t.Fatalf("%q loaded as %+v", b, p)
		}
	})
}

// A TPS Communication task: graders/manager.cpp the manager, with the
// headers of graders/; graders/grader.<ext> each language's stub, named
// stub.<ext>; num_processes from task_type_params, as a number or a
// string; the FIFOs the program's stdin and stdout.
func TestTPSCommunication(t *testing.T) {
	p, err := Load(tpsDir(t, `{"code": "t", "task_type": "Communication", "task_type_params": "{\"task_type_parameters_Communication_num_processes\": 2}"}`,
		map[string]string{"graders/manager.cpp": "int main(){}", "graders/t.h": "", "graders/grader.cpp": "int main(){}", "graders/grader.java": "class grader {}"}))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Communication
	if c == nil || c.Processes != 2 || c.FIFOArgs || c.Manager.Protocol != CMS || strings.Join(c.Manager.Sources, " ") != "manager.cpp t.h" {
		t.Fatalf("communication: %+v", c)
	}
	if p.Checker != nil {
		t.Errorf("a Communication task has no comparator: %+v", p.Checker)
	}
	cpp := p.Includes["cpp"]
	if len(cpp) != 2 || cpp[0].Name != "stub.cpp" || !cpp[0].Main || cpp[1].Name != "t.h" || p.Includes["java"][0].Name != "stub.java" {
		t.Errorf("stubs: %+v", p.Includes)
	}
	if !slices.Contains(p.TrustedPrograms(), "graders/manager.cpp") {
		t.Errorf("trusted programs: %v", p.TrustedPrograms())
	}
}

// Every TPS test is public, as CMS's TPS loader makes it, and
// feedback_level says how much of them a contestant sees (restricted by
// default).
func TestTPSFeedbackLevel(t *testing.T) {
	for j, want := range map[string]string{tpsStd: "restricted", `{"code": "t", "task_type": "Batch", "feedback_level": "full"}`: "full"} {
		p, err := Load(tpsDir(t, j, map[string]string{"subtasks/1.json": `{"score": 100, "testcases": ["a", "b"]}`}))
		if err != nil {
			t.Fatal(err)
		}
		if p.CMSFeedbackLevel != want || len(p.Tests) != 2 || !p.Tests[0].Public || !p.Tests[1].Public {
			t.Errorf("%s: level %q, tests %+v %+v", j, p.CMSFeedbackLevel, p.Tests[0], p.Tests[1])
		}
	}
}
