package verdict

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/verdict/problem"
)

// withIncludes adds the problem's include files for the submission's
// language to its files, as problemtools does (problemtools/model/
// includes.py): include/default/ for every language, then the
// language's own directory. A package's file replaces a submitted one of
// the same name (the grader is the judge's), which the notes say. When
// the language's directory holds a main.* source (a grader with main),
// it is the entry point: main names it, a file or, for a language that
// runs a class, the class.
func withIncludes(c *langs.Catalog, lang *langs.Language, p *problem.Problem, files map[string][]byte) (out map[string][]byte, main string, notes []string, err error) {
	dirs := includeDirs(c, lang, p.Includes)
	if err := needGrader(p, lang, dirs); err != nil {
		return nil, "", nil, err
	}
	files, notes = taskNamed(p, lang, files, graderExt(lang, p.Includes, dirs))
	if len(dirs) == 0 {
		return files, "", notes, nil
	}
	out = make(map[string][]byte, len(files))
	for n, b := range files {
		out[n] = b
	}
	for _, d := range dirs {
		for _, inc := range p.Includes[d] {
			b, err := os.ReadFile(inc.Path)
			if err != nil {
				return nil, "", nil, fmt.Errorf("the problem's include/%s/%s: %w", d, inc.Name, err)
			}
			if _, mine := files[inc.Name]; mine {
				notes = append(notes, fmt.Sprintf("the problem's include/%s/%s replaces the submission's file of that name", d, inc.Name))
			}
			out[inc.Name] = b
			if inc.Main || d != problem.IncludeDefault && main == "" && includeMain.MatchString(inc.Name) && hasExt(inc.Name, lang.Extensions) {
				main = inc.Name
			}
		}
	}
	if main != "" && lang.FindMainClass {
		main = strings.TrimSuffix(main, filepath.Ext(main))
	}
	return out, main, notes, nil
}

// ErrNoGrader means a CMS or TPS task compiles its submissions with a
// grader and has none for the submission's language.
var ErrNoGrader = errors.New("no grader for the language")

// needGrader refuses a submission to a CMS or TPS task with graders in
// a language none of them serves: CMS compiles every submission of such
// a task with grader.%l and stops with a configuration error ("missing
// manager") without one. Judged alone, the contestant's function would
// be CE or WA for the task's omission.
func needGrader(p *problem.Problem, lang *langs.Language, dirs []string) error {
	if p.CMSName == "" || len(p.Includes) == 0 || len(dirs) > 0 {
		return nil
	}
	var graders []string
	for _, inc := range p.Includes {
		for _, f := range inc {
			if f.Main {
				graders = append(graders, f.Name)
			}
		}
	}
	sort.Strings(graders)
	return fmt.Errorf("%w %s: the task compiles every submission with its language's grader, and has %s", ErrNoGrader, lang.Name, strings.Join(graders, ", "))
}

// taskNamed names a CMS task's submission as CMS's submission format
// does, <task name>.<ext>, when it is one source file of the language
// (a grader includes or imports it by that name); other submissions
// keep their names. ext is the grader's extension, "" without a grader
// (the submission's own is kept): CMS names both grader.%l and the
// submission's <task>.%l with the language's one extension, and a
// grader may find the submission only by it: Free Pascal looks up the
// unit plus of "uses plus" as plus.pas or plus.pp, never plus.p.
func taskNamed(p *problem.Problem, lang *langs.Language, files map[string][]byte, ext string) (map[string][]byte, []string) {
	if p.CMSName == "" || len(files) != 1 {
		return files, nil
	}
	for n, b := range files {
		want := p.CMSName + filepath.Ext(n)
		if ext != "" {
			want = p.CMSName + ext
		}
		if n == want || !hasExt(n, lang.Extensions) || langs.ValidFileName(want) != nil {
			return files, nil
		}
		return map[string][]byte{want: b}, []string{fmt.Sprintf("%s is named %s in the box, as the task's submission format names it", n, want)}
	}
	return files, nil
}

// graderExt is the extension of lang's main include file among dirs (a
// CMS task's grader.<ext>), "" without one.
func graderExt(lang *langs.Language, inc map[string][]problem.Include, dirs []string) string {
	for _, d := range dirs {
		for _, f := range inc[d] {
			if f.Main && hasExt(f.Name, lang.Extensions) {
				return filepath.Ext(f.Name)
			}
		}
	}
	return ""
}

// includeMain is problemtools' rule for an include's main file.
var includeMain = regexp.MustCompile(`(?i)^main\.`)

// includeDirs are the include directories for lang: default/ if there,
// then the directory naming lang (its id or an alias), else one naming a
// language of its family (the same main source extension: include/cpp/
// for cpp20, include/python3/ for pypy3), the first in sorted order. A
// directory naming no language of the catalog applies to none.
func includeDirs(c *langs.Catalog, lang *langs.Language, inc map[string][]problem.Include) []string {
	var out, family []string
	if _, ok := inc[problem.IncludeDefault]; ok {
		out = append(out, problem.IncludeDefault)
	}
	exact := ""
	for d := range inc {
		l, err := c.Lookup(d)
		switch {
		case d == problem.IncludeDefault || err != nil:
		case l.ID == lang.ID:
			exact = d
		case strings.EqualFold(filepath.Ext(l.Source), filepath.Ext(lang.Source)):
			family = append(family, d)
		}
	}
	sort.Strings(family)
	switch {
	case exact != "":
		out = append(out, exact)
	case len(family) > 0:
		out = append(out, family[0])
	}
	return out
}
