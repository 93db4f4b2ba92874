package problem

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/docketjudge/docket/langs"
)

// pgLanguages map Polygon's source types onto docket's catalog ids.
var pgLanguages = map[string]string{
	"c.gcc": "c", "c.gcc11": "c11", "c.gcc11-64": "c11",
	"cpp.g++": "cpp", "cpp.g++11": "cpp11", "cpp.g++14": "cpp14", "cpp.g++17": "cpp",
	"java8": "java", "java11": "java", "java17": "java", "java21": "java",
	"kotlin": "kotlin", "kotlin16": "kotlin", "kotlin17": "kotlin", "kotlin19": "kotlin",
	"python.3": "python3", "python.pypy3": "pypy3", "python.pypy3-64": "pypy3",
	"go": "go", "rust": "rust", "rust.2021": "rust", "csharp.mono": "csharp",
	"haskell.ghc": "haskell", "pas.fpc": "pascal", "php.5": "php", "perl.5": "perl",
	"ruby": "ruby", "ruby.2": "ruby", "ruby.3": "ruby", "ocaml": "ocaml", "scala": "scala",
	"v8.nodejs": "javascript", "v8.3": "javascript",
}

// pgGNUCpp is a GNU C++ source type that names its standard:
// cpp.g++17, cpp.gcc13-64-winlibs-g++20, cpp.msys2-mingw64-9-g++17,
// cpp.gcc14-64-msys2-g++23 (GCC on Windows; the code is GCC's C++).
var pgGNUCpp = regexp.MustCompile(`^cpp\.[a-z0-9.+-]*g\+\+(11|14|17|20|23)$`)

// pgWindows are source types only a Windows compiler builds (Delphi,
// PascalABC.NET, Microsoft's C++ and C#).
var pgWindows = regexp.MustCompile(`^(pas\.dpr|pas\.pascalabc|cpp\.ms.*|csharp\.ms.*|csharp\.dotnet.*)$`)

// pgLanguage is the catalog id for a Polygon source type, or why there
// is none.
func pgLanguage(t string) (string, error) {
	if id, ok := pgLanguages[t]; ok {
		return id, nil
	}
	if m := pgGNUCpp.FindStringSubmatch(t); m != nil {
		if m[1] == "17" {
			return "cpp", nil
		}
		return "cpp" + m[1], nil
	}
	if pgWindows.MatchString(t) {
		return "", fmt.Errorf("source type %q is a Windows compiler's, which docket does not have", t)
	}
	return "", fmt.Errorf("source type %q is not one docket knows (docs/problems.md lists them)", t)
}

// pgResources are the headers among files/resources (testlib.h and the
// author's), which go beside every program built from the package: as
// Polygon compiles them. files/testlib.h counts even when not listed.
func (l *loader) pgResources(files []pgFile) []Include {
	var out []Include
	seen := map[string]bool{}
	add := func(rel string, listed bool) {
		full, ok := l.regularFile(rel)
		name := path.Base(rel)
		switch {
		case !ok && listed:
			l.errorf("problem.xml resource %s: missing", rel)
		case !ok || seen[name]:
		case langs.ValidFileName(name) != nil:
			l.errorf("problem.xml resource %s: %v", rel, langs.ValidFileName(name))
		default:
			seen[name] = true
			out = append(out, Include{Name: name, Path: full})
		}
	}
	for _, f := range files {
		rel, ok := pgRel(f.Path)
		if !ok {
			l.errorf("problem.xml resource %q: not a path inside the package", f.Path)
			continue
		}
		if isHeader(rel) {
			add(rel, true)
		}
	}
	add("files/testlib.h", false)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// pgProgram is a program of the package from its source path and type,
// with the resources beside it; nil with the error recorded.
func (l *loader) pgProgram(what string, src *pgFile, res []Include) *Program {
	if src == nil || src.Path == "" {
		l.errorf("problem.xml %s: no <source path=...>", what)
		return nil
	}
	rel, ok := pgRel(src.Path)
	if !ok {
		l.errorf("problem.xml %s source %q: not a path inside the package", what, src.Path)
		return nil
	}
	return l.pgProgramAt(what, rel, src.Type, res)
}

func (l *loader) pgProgramAt(what, rel, typ string, res []Include) *Program {
	lang, err := pgLanguage(typ)
	if err != nil {
		l.errorf("problem.xml %s %s: %v", what, rel, err)
		return nil
	}
	return l.pgProgramLang(what, rel, lang, res)
}

// pgProgramLang is pgProgramAt with the language known (a catalog id).
func (l *loader) pgProgramLang(what, rel, lang string, res []Include) *Program {
	full, ok := l.regularFile(rel)
	if !ok {
		l.errorf("problem.xml %s source %s: missing", what, rel)
		return nil
	}
	name := path.Base(rel)
	if err := langs.ValidFileName(name); err != nil {
		l.errorf("problem.xml %s %s: %v", what, rel, err)
		return nil
	}
	prog := &Program{Dir: filepath.Dir(full), Sources: []string{name}, Language: lang}
	for _, r := range res {
		if r.Name != name {
			prog.Extra = append(prog.Extra, r)
		}
	}
	return prog
}

// pgChecker reads assets/checker: a testlib checker, its source (or the
// check.cpp Polygon copies it to). A standard checker (std::lcmp.cpp)
// is shipped as that source too. Without a checker, outputs are
// compared by docket's default comparison.
func (l *loader) pgChecker(p *Problem, c *pgChecker, res []Include) {
	if c == nil {
		return
	}
	if c.Type != "" && c.Type != "testlib" {
		l.errorf("problem.xml checker type: %q is not testlib", c.Type)
		return
	}
	if c.Source != nil {
		if rel, ok := pgRel(c.Source.Path); ok {
			if _, there := l.regularFile(rel); !there && c.Copy != nil {
				if cp, ok := pgRel(c.Copy.Path); ok {
					c.Source = &pgFile{Path: cp, Type: c.Source.Type}
				}
			}
		}
	}
	if prog := l.pgProgram("checker", c.Source, res); prog != nil {
		prog.Protocol = Testlib
		p.Checker = prog
	}
}

// pgInteractor reads assets/interactor: a testlib interactor.
func (l *loader) pgInteractor(p *Problem, c *pgProgram, res []Include) {
	if c == nil {
		return
	}
	if prog := l.pgProgram("interactor", c.Source, res); prog != nil {
		prog.Protocol = Testlib
		p.Interactor, p.Interactive = prog, true
	}
}

// PolygonTags are the solution tags of a Polygon package
// (assets/solutions), each an expected result for docket problem check.
var PolygonTags = []string{
	"main", "accepted", "wrong-answer", "presentation-error", "time-limit-exceeded",
	"memory-limit-exceeded", "time-limit-exceeded-or-accepted",
	"time-limit-exceeded-or-memory-limit-exceeded", "rejected", "failed", "do-not-run",
}

// pgSolution is one solution: its tag, source and language ("" when
// its source type is not one docket knows: a warning).
type pgSol struct {
	tag, rel, path, lang string
}

// pgSolutions reads assets/solutions. An unknown tag is an error; a
// source type docket does not know is a warning (the solution is only
// checked, never needed, unless it is the main one).
func (l *loader) pgSolutions(sols []pgSolution) []pgSol {
	var out []pgSol
	for i, s := range sols {
		where := fmt.Sprintf("problem.xml solution %d", i+1)
		if !knownTag(s.Tag) {
			l.errorf("%s tag: %q is not a Polygon tag (%s)", where, s.Tag, strings.Join(PolygonTags, ", "))
			continue
		}
		if s.Source == nil {
			l.errorf("%s: no <source>", where)
			continue
		}
		rel, ok := pgRel(s.Source.Path)
		full, there := l.regularFile(rel)
		if !ok || !there {
			l.errorf("%s source %q: missing", where, s.Source.Path)
			continue
		}
		lang, err := pgLanguage(s.Source.Type)
		if err != nil {
			l.warn(Warning{Code: WarnLanguage, Paths: []string{rel}, Message: fmt.Sprintf("%s %s: %v; docket problem check judges it by its extension", where, rel, err)})
		}
		out = append(out, pgSol{tag: s.Tag, rel: rel, path: full, lang: lang})
	}
	return out
}

func knownTag(t string) bool {
	for _, x := range PolygonTags {
		if x == t {
			return true
		}
	}
	return false
}
