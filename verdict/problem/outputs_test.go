package problem

import (
	"fmt"
	"strings"
	"testing"
)

// outputRules lists a loaded task's tests as "name rule file".
func outputRules(p *Problem) string {
	var out []string
	for _, t := range p.Tests {
		out = append(out, fmt.Sprintf("%s %s %s", t.Name, t.Output, t.OutputFile))
	}
	return strings.Join(out, "; ")
}

// A CMS task with output_only: true is OutputOnly: every test takes
// output_<codename>.txt, and sol/'s graders (a program's) are not read;
// output_only_testcases and output_optional_testcases (comma-separated
// test numbers, as italy_yaml reads them) make a BatchAndOutput task,
// a test in both lists required.
func TestCMSOutputRules(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		only, bao  bool
		rules      string
	}{
		{"output only", cmsStd + "output_only: true\n", true, false,
			"secret/000 required output_000.txt; secret/001 required output_001.txt; secret/002 required output_002.txt"},
		{"batch and output", cmsStd + "output_only_testcases: \"2\"\noutput_optional_testcases: \"0, 2\"\n", false, true,
			"secret/000 optional output_000.txt; secret/001  ; secret/002 required output_002.txt"},
		{"one number", cmsStd + "output_optional_testcases: 1\n", false, true,
			"secret/000  ; secret/001 optional output_001.txt; secret/002  "},
		{"empty lists", cmsStd + "output_only_testcases: \"\"\noutput_optional_testcases:\n", false, false,
			"secret/000  ; secret/001  ; secret/002  "},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := strings.Replace(c.yaml, "n_input: 2", "n_input: 3", 1)
			p, err := Load(cmsTaskDir(t, y, 3, map[string]string{"sol/grader.cpp": "int main(){}"}))
			if err != nil {
				t.Fatal(err)
			}
			if p.OutputOnly != c.only || p.BatchAndOutput != c.bao || outputRules(p) != c.rules || (len(p.Includes) == 0) != c.only {
				t.Errorf("OutputOnly %v, BatchAndOutput %v, graders %d, tests %s; want %v %v %s", p.OutputOnly, p.BatchAndOutput, len(p.Includes), outputRules(p), c.only, c.bao, c.rules)
			}
		})
	}
}

// With subtasks, a test keeps its rule in each subtask it is in, and
// OutputFiles lists each file once.
func TestCMSOutputRulesInSubtasks(t *testing.T) {
	y := cmsStd + "output_only: true\nscore_type: GroupMin\nscore_type_parameters: [[40, \"00[01]\"], [60, \"001\"]]\n"
	p, err := Load(cmsTaskDir(t, y, 2, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := "secret/subtask1/000 required output_000.txt; secret/subtask1/001 required output_001.txt; secret/subtask2/001 required output_001.txt"
	if got := outputRules(p); got != want || strings.Join(p.OutputFiles(), ",") != "output_000.txt,output_001.txt" {
		t.Errorf("tests %s, files %v; want %s", got, p.OutputFiles(), want)
	}
}

// A TPS task_type OutputOnly takes every test's output file by its TPS
// codename (output_a.txt), with no graders; BatchAndOutput takes the
// files of its output_only subtasks' tests (required) and of its
// output_optional subtasks' (optional), reading its io parameters under
// its own prefix.
func TestTPSOutputRules(t *testing.T) {
	graders := map[string]string{"graders/grader.cpp": "int main(){}"}
	p, err := Load(tpsDir(t, `{"code": "t", "task_type": "OutputOnly"}`, graders))
	if err != nil {
		t.Fatal(err)
	}
	if want := "secret/a required output_a.txt; secret/b required output_b.txt"; !p.OutputOnly || outputRules(p) != want || len(p.Includes) != 0 {
		t.Errorf("OutputOnly: %v %s, %d graders; want %s", p.OutputOnly, outputRules(p), len(p.Includes), want)
	}
	extra := map[string]string{
		"subtasks/1.json": `{"score": 30, "testcases": ["a"], "output_only": true}`,
		"subtasks/2.json": `{"score": 70, "testcases": ["a", "b"], "output_optional": true}`,
	}
	p, err = Load(tpsDir(t, `{"code": "t", "task_type": "BatchAndOutput", "task_type_params": {"task_type_parameters_BatchAndOutput_io_1_outputfile": "out.txt"}}`, extra))
	if err != nil {
		t.Fatal(err)
	}
	want := "secret/subtask1/a required output_a.txt; secret/subtask2/a required output_a.txt; secret/subtask2/b optional output_b.txt"
	if got := outputRules(p); !p.BatchAndOutput || p.OutputOnly || got != want || p.OutputFile != "out.txt" {
		t.Errorf("BatchAndOutput: %v, tests %s, outfile %q; want %s", p.BatchAndOutput, got, p.OutputFile, want)
	}
}

func TestIsOutputFileName(t *testing.T) {
	for name, want := range map[string]bool{
		"output_000.txt": true, "output_1-01.txt": true, "output_.txt": false, "output_000": false,
		"out_000.txt": false, "output_000.txt.cpp": false, "plus.cpp": false,
	} {
		if IsOutputFileName(name) != want {
			t.Errorf("%q: %v, want %v", name, !want, want)
		}
	}
}
