package problem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A statement or an attachment that links out of the package, as every
// problem.pdf of DOMjudge's example problems does, is a warning and is
// left out of the digest: the package loads. The same link where docket
// reads (tests, validators, includes, graders, a docket.checker named in
// problem.yaml, even under a statement's directory) still refuses it.
func TestLinkOutsideInUnreadFiles(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(outside, []byte("%PDF\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"problem.yaml": "name: x\n", "data/sample/1.in": "1\n", "data/sample/1.ans": "1\n"}
	for _, tc := range []struct {
		name, link, target string
		yaml               string // problem.yaml, "" for base's
		refused            error  // nil: a warning
	}{
		{name: "problem.pdf", link: "problem.pdf", target: outside},
		{name: "problem.pdf relative", link: "problem.pdf", target: "../../doc.pdf"},
		{name: "problem.en.html", link: "problem.en.html", target: outside},
		{name: "statement", link: "problem_statement/problem.en.tex", target: outside},
		{name: "statement dir", link: "statement", target: filepath.Dir(outside)},
		{name: "attachment", link: "attachments/sample.zip", target: outside},
		{name: "test", link: "data/secret/1.in", target: outside, refused: ErrLinkAbsolute},
		{name: "validator", link: "output_validators/v/check.py", target: outside, refused: ErrLinkAbsolute},
		{name: "include", link: "include/cpp/grader.h", target: outside, refused: ErrLinkAbsolute},
		{name: "grader", link: "graders/grader.cpp", target: outside, refused: ErrLinkAbsolute},
		{name: "pdf in data", link: "data/problem.pdf", target: outside, refused: ErrLinkAbsolute},
		{name: "checker in attachments", link: "attachments/check.py", target: outside, refused: ErrLinkAbsolute,
			yaml: "name: x\ndocket:\n  checker:\n    source: attachments/check.py\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "pkg", "p")
			write(t, d, base)
			if tc.yaml != "" {
				write(t, d, map[string]string{"problem.yaml": tc.yaml})
			}
			symlink(t, tc.target, filepath.Join(d, tc.link))
			p, err := Load(d)
			if tc.refused != nil {
				if !errors.Is(err, tc.refused) {
					t.Fatalf("Load: %v, want %v", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			w := findWarning(p, WarnLinkOutside)
			if w == nil || len(w.Paths) != 1 || w.Paths[0] != tc.link || !strings.Contains(w.Message, "left out") {
				t.Fatalf("warnings %+v, want %s for %s", p.Warnings, WarnLinkOutside, tc.link)
			}
			os.Remove(filepath.Join(d, tc.link))
			q, err := Load(d)
			if err != nil || q.Digest != p.Digest {
				t.Errorf("digest with the link %s, without %s (%v): the link is not left out", p.Digest, q.Digest, err)
			}
		})
	}
}

// A package with an output validator or an interactor gets a warning
// naming its programs; one judged by the default comparison none.
func TestTrustedCodeWarning(t *testing.T) {
	d := filepath.Join(t.TempDir(), "p")
	write(t, d, map[string]string{"problem.yaml": "name: x\n", "data/sample/1.in": "1\n", "data/sample/1.ans": "1\n"})
	p, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if w := findWarning(p, WarnTrustedCode); w != nil {
		t.Errorf("default comparison: warning %+v", w)
	}
	write(t, d, map[string]string{"problem.yaml": "name: x\nvalidation: custom\n",
		"output_validators/v/check.py": "exit(42)\n", "output_validators/v/util.h": ""})
	if p, err = Load(d); err != nil {
		t.Fatal(err)
	}
	w := findWarning(p, WarnTrustedCode)
	if w == nil || strings.Join(w.Paths, " ") != "output_validators/v/check.py output_validators/v/util.h" ||
		!strings.Contains(w.Message, "output_validators/v/check.py") || !strings.Contains(w.Message, "sources you trust") {
		t.Fatalf("warnings %+v, want %s naming the validator", p.Warnings, WarnTrustedCode)
	}
}

func findWarning(p *Problem, code string) *Warning {
	for i := range p.Warnings {
		if p.Warnings[i].Code == code {
			return &p.Warnings[i]
		}
	}
	return nil
}
