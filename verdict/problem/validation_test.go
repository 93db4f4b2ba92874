package problem

import (
	"path/filepath"
	"strings"
	"testing"
)

// Every legacy validation line loads as problemtools reads it (score says
// the validator scores, type says whether the problem is scoring), or
// fails naming what is wrong; multi-pass is DOMjudge's word.
func TestLegacyValidationLine(t *testing.T) {
	for _, tc := range []struct {
		yaml                           string
		interactive, multiPass, scores bool
		kind                           Kind
		warn                           string // a warning code, or ""
		err                            string // a load error's text, or ""
		noValidator                    bool   // the package has no output_validators/
	}{
		{yaml: "validation: default\n", kind: PassFail, noValidator: true},
		{yaml: "validation: default\n", err: "default, but the package has an output validator in output_validators/v/"},
		{yaml: "type: pass-fail\n", kind: PassFail}, // no line: the validator is used
		{yaml: "validation: custom\n", kind: PassFail},
		{yaml: "validation: custom score\ntype: scoring\n", scores: true, kind: Scoring},
		{yaml: "validation: custom score\n", scores: true, kind: PassFail, warn: WarnScoreOnPassFail},
		{yaml: "validation: custom score\ntype: pass-fail\n", scores: true, kind: PassFail, warn: WarnScoreOnPassFail},
		{yaml: "validation: custom interactive\n", interactive: true, kind: PassFail},
		{yaml: "validation: custom interactive score\ntype: scoring\n", interactive: true, scores: true, kind: Scoring},
		{yaml: "validation: custom score interactive\ntype: scoring\n", interactive: true, scores: true, kind: Scoring},
		{yaml: "validation: custom interactive score\n", interactive: true, scores: true, kind: PassFail, warn: WarnScoreOnPassFail},
		{yaml: "validation: custom multi-pass\n", multiPass: true, kind: PassFail},
		{yaml: "validation: custom interactive multi-pass\n", interactive: true, multiPass: true, kind: PassFail},
		{yaml: "validation: custom interactive score multi-pass\ntype: scoring\n", interactive: true, multiPass: true, scores: true, kind: Scoring},
		{yaml: "validation: '  custom   interactive '\n", interactive: true, kind: PassFail},
		{yaml: "validation: custom interactiv\n", err: `unknown word "interactiv" after custom`},
		{yaml: "validation: custom scoring\ntype: scoring\n", err: `unknown word "scoring" after custom`},
		{yaml: "validation: default score\n", err: `"default score": default takes no further words`},
		{yaml: "validation: default interactive\n", err: `"default interactive": default takes no further words`},
		{yaml: "validation: interactive\n", err: `"interactive" does not begin with default or custom`},
		{yaml: "validation: Custom\n", err: `"Custom" does not begin with default or custom`},
	} {
		t.Run(strings.TrimSpace(tc.yaml), func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "p")
			files := map[string]string{"problem.yaml": tc.yaml, "data/secret/1.in": "1\n", "data/secret/1.ans": "1\n"}
			if !tc.noValidator {
				files["output_validators/v/validate.cpp"] = "int main(){return 42;}\n"
			}
			write(t, d, files)
			p, err := Load(d)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), "problem.yaml validation: ") || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Interactive != tc.interactive || p.MultiPass != tc.multiPass || p.ValidatorScores != tc.scores || p.Kind != tc.kind {
				t.Errorf("interactive %v multi-pass %v scores %v kind %s, want %v %v %v %s",
					p.Interactive, p.MultiPass, p.ValidatorScores, p.Kind, tc.interactive, tc.multiPass, tc.scores, tc.kind)
			}
			var codes []string
			for _, w := range p.Warnings {
				if w.Code != WarnTrustedCode {
					codes = append(codes, w.Code)
				}
			}
			if got := strings.Join(codes, ","); got != tc.warn {
				t.Errorf("warnings %q, want %q", got, tc.warn)
			}
			// The package's validator is used: as the interactor of an
			// interactive problem, else as the checker.
			prog := p.Checker
			if tc.interactive {
				prog = p.Interactor
			}
			if tc.noValidator {
				if prog != nil {
					t.Errorf("validator %+v, want the default comparison", prog)
				}
				return
			}
			if prog == nil || prog.Protocol != Kattis {
				t.Errorf("validator %+v, want the Kattis one of output_validators/", prog)
			}
		})
	}
}
