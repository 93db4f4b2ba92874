package problem

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Both spellings of a multi-pass problem load, with limits.validation_passes
// (default 2) and interactive or not.
func TestMultiPassSpellings(t *testing.T) {
	validator := map[string]string{"output_validator/validate.cpp": "int main(){return 42;}\n"}
	legacyValidator := map[string]string{"output_validators/v/validate.cpp": "int main(){return 42;}\n"}
	for _, tc := range []struct {
		name        string
		yaml        string
		validator   map[string]string
		interactive bool
		passes      int
	}{
		{"2023-07 string", "problem_format_version: 2023-07-draft\ntype: multi-pass\n", validator, false, 2},
		{"2023-07 list", "problem_format_version: 2023-07-draft\ntype: [pass-fail, multi-pass]\nlimits:\n  validation_passes: 5\n", validator, false, 5},
		{"2023-07 interactive list", "problem_format_version: 2023-07-draft\ntype: [interactive, multi-pass]\n", validator, true, 2},
		{"2023-07 scoring interactive", "type: [scoring, multi-pass, interactive]\nlimits: {validation_passes: 3}\n", validator, true, 3},
		{"legacy", "validation: custom multi-pass\n", legacyValidator, false, 2},
		{"legacy interactive", "validation: custom interactive multi-pass\nlimits:\n  validation_passes: 4\n", legacyValidator, true, 4},
		{"legacy, Kattis protocol under docket:", "validation: custom multi-pass\ndocket: {checker: {protocol: kattis, source: v.cpp}}\n", map[string]string{"v.cpp": "int main(){}\n"}, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "p")
			files := map[string]string{"problem.yaml": tc.yaml, "data/secret/1.in": "1\n", "data/secret/1.ans": "1\n"}
			for k, v := range tc.validator {
				files[k] = v
			}
			write(t, d, files)
			p, err := Load(d)
			if err != nil {
				t.Fatal(err)
			}
			if !p.MultiPass || p.Interactive != tc.interactive || p.Limits.ValidationPasses != tc.passes {
				t.Errorf("multi-pass %v interactive %v passes %d, want true %v %d", p.MultiPass, p.Interactive, p.Limits.ValidationPasses, tc.interactive, tc.passes)
			}
			prog := p.Checker
			if tc.interactive {
				prog = p.Interactor
			}
			if prog == nil || prog.Protocol != Kattis {
				t.Errorf("validator %+v, want a Kattis one", prog)
			}
		})
	}
	d := filepath.Join(t.TempDir(), "plain")
	write(t, d, map[string]string{"problem.yaml": "type: pass-fail\n", "data/secret/1.in": "1\n", "data/secret/1.ans": "1\n"})
	if p, err := Load(d); err != nil || p.MultiPass || p.Limits.ValidationPasses != 0 {
		t.Errorf("a pass-fail problem: %v, multi-pass %v, passes %d", err, p != nil && p.MultiPass, p.Limits.ValidationPasses)
	}
}

// A multi-pass package docket cannot judge as written is refused on load
// with ErrMultiPass (or a clear message), naming the key.
func TestBrokenMultiPass(t *testing.T) {
	v := "int main(){return 42;}\n"
	for name, tc := range map[string]struct {
		files    map[string]string
		want     string
		sentinel bool
	}{
		"one pass":            {map[string]string{"problem.yaml": "type: multi-pass\nlimits: {validation_passes: 1}\n", "output_validator/v.cpp": v}, "validation_passes: invalid multi-pass problem: 1 is not between 2", true},
		"zero passes":         {map[string]string{"problem.yaml": "type: multi-pass\nlimits: {validation_passes: 0}\n", "output_validator/v.cpp": v}, "0 is not between 2", true},
		"negative passes":     {map[string]string{"problem.yaml": "type: multi-pass\nlimits: {validation_passes: -3}\n", "output_validator/v.cpp": v}, "-3 is not between 2", true},
		"too many passes":     {map[string]string{"problem.yaml": "type: multi-pass\nlimits: {validation_passes: 1000000}\n", "output_validator/v.cpp": v}, "1000000 is not between 2 and 100", true},
		"passes not multi":    {map[string]string{"problem.yaml": "type: pass-fail\nlimits: {validation_passes: 3}\n"}, "the problem is not multi-pass", true},
		"testlib checker":     {map[string]string{"problem.yaml": "type: multi-pass\ndocket: {checker: {source: c.cpp}}\n", "c.cpp": v}, "must use the Kattis protocol", true},
		"testlib interactor":  {map[string]string{"problem.yaml": "type: [interactive, multi-pass]\ndocket: {interactor: {source: i.cpp}}\n", "i.cpp": v}, "must use the Kattis protocol", true},
		"two-step":            {map[string]string{"problem.yaml": "type: multi-pass\ndocket: {two_step: {mode: phases}}\n", "output_validator/v.cpp": v}, "both multi-pass and two-step", true},
		"no validator":        {map[string]string{"problem.yaml": "type: multi-pass\n"}, "no output_validators/", false},
		"passes not a number": {map[string]string{"problem.yaml": "type: multi-pass\nlimits: {validation_passes: two}\n", "output_validator/v.cpp": v}, "validation_passes", false},
	} {
		t.Run(name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "p")
			tc.files["data/secret/1.in"], tc.files["data/secret/1.ans"] = "1\n", "1\n"
			write(t, d, tc.files)
			_, err := Load(d)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			if tc.sentinel && !errors.Is(err, ErrMultiPass) {
				t.Errorf("errors.Is(%v, ErrMultiPass) is false", err)
			}
		})
	}
}
