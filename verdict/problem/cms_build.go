package problem

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/docketjudge/docket/langs"
)

// cmsTests are the task's tests: input/input<i>.txt and
// output/output<i>.txt for i below n, named by CMS's codenames (000).
func (l *loader) cmsTests(n int) []*Test {
	var tests []*Test
	for i := 0; i < n; i++ {
		in := l.cmsFile(fmt.Sprintf("input/input%d.txt", i))
		ans := l.cmsFile(fmt.Sprintf("output/output%d.txt", i))
		tests = append(tests, &Test{Name: fmt.Sprintf("%03d", i), In: in, Ans: ans})
	}
	return tests
}

// cmsFile is the path to read for rel, a regular file of the task (a
// link resolved inside it), or "" with the error recorded.
func (l *loader) cmsFile(rel string) string {
	path, ok := l.regularFile(rel)
	if !ok {
		l.errorf("%s: missing (the task has it by its n_input or gen/GEN)", rel)
	}
	return path
}

// regularFile is the path to read for rel if it is a regular file of
// the package or a link to one inside it (checkLinks resolved every
// link).
func (l *loader) regularFile(rel string) (string, bool) {
	if full, ok := l.links[rel]; ok {
		return full, true
	}
	path := filepath.Join(l.dir, rel)
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return path, true
}

// cmsGroups puts the tests under secret/ and, for GroupMin, one group
// per subtask (secret/subtask1, ...): a GroupMin subtask scores its
// points times its least outcome (docket's min over its tests, each
// worth the points), a Sum test its points times its outcome. Every
// test is judged (on_reject: continue).
func (l *loader) cmsGroups(p *Problem, st cmsScoring, tests []*Test) {
	base := GroupConfig{OnReject: "continue", AcceptScore: 1, ValidatorFlags: p.ValidatorFlags}
	secret := &Group{Name: "secret", Config: base}
	p.Root = &Group{Config: base, Groups: []*Group{secret}}
	if st.reduce == "" {
		secret.Config.AcceptScore = st.perTest
		for _, t := range tests {
			t.Name, t.Group = "secret/"+t.Name, secret
			secret.Tests = append(secret.Tests, t)
		}
		p.Tests = secret.Tests
		return
	}
	p.CMSRawOutcomes = st.threshold
	inSome := make([]bool, len(tests))
	next := 0
	for k, sub := range st.subtasks {
		g := &Group{Name: fmt.Sprintf("secret/subtask%d", k+1), Config: base}
		g.Config.AcceptScore, g.Config.GraderFlags = sub.points, []string{st.reduce}
		if st.threshold {
			g.Config.Threshold = &sub.threshold
		}
		secret.Groups = append(secret.Groups, g)
		for i, t := range tests {
			if sub.has(t.Name, i, next) {
				// A test in several subtasks is one test (its Key),
				// judged once and counted in each, as CMS does.
				inSome[i] = true
				addKeyed(g, t)
			}
		}
		next += sub.count
	}
	for i, t := range tests {
		if !inSome[i] {
			// In no subtask: judged, as CMS evaluates it, and worth nothing;
			// CMS shows it in no subtask, so never to a contestant.
			addKeyed(unscoredGroup(secret, base, st.threshold), t).Public = false
		}
	}
	for _, g := range secret.Groups {
		if len(g.Tests) == 0 {
			l.errorf("%s has no test", g.Name)
		}
		p.Tests = append(p.Tests, g.Tests...)
	}
}

// addKeyed adds to g the test t by its codename, its Key, and returns it.
func addKeyed(g *Group, t *Test) *Test {
	k := &Test{Name: g.Name + "/" + t.Name, Group: g, In: t.In, Ans: t.Ans, Key: t.Name, Public: t.Public,
		Output: t.Output, OutputFile: t.OutputFile}
	g.Tests = append(g.Tests, k)
	return k
}

// unscoredGroup is secret/unscored, the group of the tests in no
// subtask, made on first use: worth nothing. Under GroupThreshold its
// tests, which no threshold judges, pass on any positive outcome.
func unscoredGroup(secret *Group, base GroupConfig, threshold bool) *Group {
	last := secret.Groups[len(secret.Groups)-1]
	if last.Name == "secret/unscored" {
		return last
	}
	g := &Group{Name: "secret/unscored", Config: base}
	g.Config.AcceptScore = 0
	if threshold {
		inf := math.Inf(1)
		g.Config.Threshold = &inf
	}
	secret.Groups = append(secret.Groups, g)
	return g
}

// cmsComparator reads the comparator, check/checker.<ext> or
// cor/correttore.<ext> (its source: docket compiles it; headers beside
// it come along) or, without a source, the executable check/checker or
// cor/correttore, in CMS's protocol. Without one, outputs are compared
// by CMS's white-diff.
func (l *loader) cmsComparator(p *Problem) {
	for _, c := range []struct{ dir, name string }{{"check", "checker"}, {"cor", "correttore"}} {
		prog, found := l.cmsProgramOrExecutable(c.dir, c.name)
		if !found {
			continue
		}
		if prog != nil {
			prog.Protocol = CMS
			p.Checker = prog
		}
		return
	}
	l.useWhiteDiff(p)
}

// useWhiteDiff compares every test's output by CMS's white-diff.
func (l *loader) useWhiteDiff(p *Problem) {
	p.ValidatorFlags = append(p.ValidatorFlags, "white_diff")
	for _, g := range allGroups(p.Root) {
		g.Config.ValidatorFlags = p.ValidatorFlags
	}
}

// cmsProgramOrExecutable is cmsProgram or else dir/name, an executable
// (cmsExecutable): the Makefile of a CMS task builds the executable
// from the source, and CMS's italy_yaml loader takes the executable;
// docket builds from the source whenever the folder has it. found
// reports either; prog is nil after a load error.
func (l *loader) cmsProgramOrExecutable(dir, name string) (prog *Program, found bool) {
	prog, binary := l.cmsProgram(dir, name)
	switch {
	case prog != nil:
		return prog, true
	case binary:
		return l.cmsExecutable(dir, name), true
	}
	return nil, false
}

// cmsProgram finds dir/name.<ext>, a source, with the headers of dir;
// binary reports dir/name without an extension.
func (l *loader) cmsProgram(dir, name string) (prog *Program, binary bool) {
	entries, err := os.ReadDir(filepath.Join(l.dir, dir))
	if err != nil {
		return nil, false
	}
	var main string
	var headers []string
	for _, e := range entries {
		n := e.Name()
		switch {
		case n == name:
			binary = true
		case strings.TrimSuffix(n, filepath.Ext(n)) == name && isSource(n) && !isHeader(n):
			main = n
		case isHeader(n):
			headers = append(headers, n)
		}
	}
	if main == "" {
		return nil, binary
	}
	sort.Strings(headers)
	return &Program{Dir: filepath.Join(l.dir, dir), Sources: append([]string{main}, headers...)}, false
}

// cmsGraderLangs maps sol/grader.<ext> to the language directory the
// grader serves (an include directory: its family follows).
var cmsGraderLangs = map[string]string{
	".c": "c", ".cpp": "cpp", ".java": "java", ".py": "python3", ".pas": "pascal",
	".cs": "csharp", ".hs": "haskell", ".php": "php", ".rs": "rust",
}

// cmsGraders reads sol/ (graderDir).
func (l *loader) cmsGraders(p *Problem) { l.graderDir(p, "sol") }

// graderDir reads a task's graders: each grader.<ext> of dir is the main
// file of its language's submissions, with the headers of dir (.h,
// lib.pas) beside it: CMS's "grader" compilation.
func (l *loader) graderDir(p *Problem, dir string) { l.mainDir(p, dir, "grader", "grader") }

// mainDir reads the main files of dir named base.<ext> (graders, or a
// Communication task's stubs), each named as.<ext> in the box, as CMS
// names them, with the headers of dir beside them.
func (l *loader) mainDir(p *Problem, dir, base, as string) {
	entries, err := os.ReadDir(filepath.Join(l.dir, dir))
	if err != nil {
		return
	}
	var headers []Include
	graders := map[string]Include{}
	for _, e := range entries {
		n := e.Name()
		path, ok := l.regularFile(dir + "/" + n)
		if !ok || langs.ValidFileName(n) != nil {
			continue // not a file a grader needs: a directory, a note
		}
		if lang, ok := mainFileLang(n, base); ok {
			graders[lang] = Include{Name: as + filepath.Ext(n), Path: path, Main: true}
		} else if strings.HasSuffix(n, ".h") || strings.HasSuffix(n, "lib.pas") {
			headers = append(headers, Include{Name: n, Path: path})
		}
	}
	for lang, g := range graders {
		if p.Includes == nil {
			p.Includes = map[string][]Include{}
		}
		p.Includes[lang] = append([]Include{g}, headers...)
	}
}

// mainFileLang reports whether n is base.<ext> for a language CMS
// compiles with graders or stubs (grader.cpp, stub.py), and that
// language's include directory.
func mainFileLang(n, base string) (string, bool) {
	lang, ok := cmsGraderLangs[filepath.Ext(n)]
	return lang, ok && strings.TrimSuffix(n, filepath.Ext(n)) == base
}

// allGroups is g and every group below it.
func allGroups(g *Group) []*Group {
	out := []*Group{g}
	for _, c := range g.Groups {
		out = append(out, allGroups(c)...)
	}
	return out
}
