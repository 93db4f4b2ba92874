package problem

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Warning is something about a package that does not stop docket from
// judging it but that whoever pushes it should know.
type Warning struct {
	Code    string   `json:"code"`    // WarnLinkOutside, WarnTrustedCode, WarnScoreOnPassFail
	Message string   `json:"message"` // one line, for a person
	Paths   []string `json:"paths"`   // the package's files concerned, relative to it
}

// String is the warning's message.
func (w Warning) String() string { return w.Message }

const (
	// WarnLinkOutside: a statement or an attachment is a link out of
	// the package; it is left out (Unread).
	WarnLinkOutside = "link_outside"
	// WarnTrustedCode: the package has programs docket runs as the
	// problem's own, trusted to decide verdicts (TrustedPrograms).
	WarnTrustedCode = "trusted_code"
	// WarnUnused: a file of the package that judging does not read,
	// where an author may expect it to be (a Communication task's
	// graders).
	WarnUnused = "unused"
	// WarnScoreOnPassFail: the legacy validation line says score on a
	// pass-fail problem, where a score counts for nothing.
	WarnScoreOnPassFail = "score_on_pass_fail"
	// WarnLanguage: a Polygon solution's source type is not one docket
	// knows; docket problem check judges it by its file's extension.
	WarnLanguage = "language"
)

func (l *loader) warn(w Warning) { l.warnings = append(l.warnings, w) }

// TrustedPrograms lists the package's programs that docket runs with
// relaxed isolation, as the problem's own code: its checker or output
// validator, its interactor and its custom grader, as paths relative to
// the package. They
// run in the sandbox, under a uid of their own, with generous limits,
// and what they say decides every verdict of the problem.
func (p *Problem) TrustedPrograms() []string {
	var out []string
	for _, prog := range p.trusted() {
		if prog == nil {
			continue
		}
		for _, s := range prog.Sources {
			rel, err := filepath.Rel(p.Dir, filepath.Join(prog.Dir, s))
			if err != nil {
				rel = s
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	sort.Strings(out)
	return compactStrings(out)
}

// trusted are the package's own programs.
func (p *Problem) trusted() []*Program {
	progs := []*Program{p.Checker, p.Interactor, p.Grader}
	if p.Communication != nil {
		progs = append(progs, p.Communication.Manager)
	}
	return progs
}

// trustedWarning is the warning for a package with trusted programs.
func trustedWarning(p *Problem) (Warning, bool) {
	progs := p.TrustedPrograms()
	if len(progs) == 0 {
		return Warning{}, false
	}
	return Warning{Code: WarnTrustedCode, Paths: progs, Message: fmt.Sprintf(
		"the package's own programs run trusted, with relaxed isolation, and decide its verdicts: %s; "+
			"push only packages from sources you trust", strings.Join(progs, ", "))}, true
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
