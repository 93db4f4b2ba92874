package problem

import (
	"fmt"
	"path"
	"strings"
)

// Generation is how a package's missing test files are built, as
// Polygon's doall builds them: each generated test's input is what its
// generator writes to stdout, run with the test's arguments; each
// missing answer is the main solution's output on the input.
type Generation struct {
	// Generators are the programs the tests' commands name, by that
	// name (files/gen.cpp is gen), built from source in the sandbox,
	// untrusted, as a submission is.
	Generators map[string]*Program
	// Main is the solution tagged main, whose outputs are the answers.
	Main  *Program
	Tests []BuildTest
}

// BuildTest is a test with a file to build.
type BuildTest struct {
	Test      *Test
	Number    string   // Polygon's: 05
	Generator string   // "" when its input is a file of the package
	Args      []string // the generator's arguments
	Cmd       string   // the command as problem.xml writes it
	Input     string   // the package's path of its input (tests/05)
	Answer    string   // and of its answer (tests/05.a)
}

// pgGeneration settles how the tests with missing files are built.
func (l *loader) pgGeneration(p *Problem, y *pgProblem, tests []*pgTestInfo, sols []pgSol, res []Include) {
	var build []*pgTestInfo
	for _, ti := range tests {
		if !ti.hasInput || !ti.hasAns {
			build = append(build, ti)
		}
	}
	if len(build) == 0 {
		return
	}
	if p.InputFile != "" || p.OutputFile != "" {
		l.errorf("problem.xml: test %s's files must be built, which docket does only for problems on stdin and stdout (this one has input-file or output-file): run the package's doall and keep the tests", build[0].number)
		return
	}
	g := &Generation{Generators: map[string]*Program{}, Main: l.pgMain(sols, res, build[0])}
	gens := l.pgExecutables(y.Files.Executables, res)
	for _, ti := range build {
		bt := BuildTest{Test: ti.t, Number: ti.number, Input: ti.inRel, Answer: ti.ansRel}
		if !ti.hasInput {
			l.pgCommand(&bt, ti.cmd, gens, g.Generators, res)
		}
		g.Tests = append(g.Tests, bt)
	}
	if len(l.errs) == 0 {
		p.Generation = g
	}
}

// pgMain is the solution tagged main, needed for the answers.
func (l *loader) pgMain(sols []pgSol, res []Include, first *pgTestInfo) *Program {
	for _, s := range sols {
		if s.tag != "main" {
			continue
		}
		if s.lang == "" {
			l.errorf("problem.xml: the main solution %s has a source type docket does not know, and the answers of tests (%s first) come from it", s.rel, first.number)
			return nil
		}
		return l.pgProgramLang("main solution", s.rel, s.lang, res)
	}
	l.errorf("problem.xml: test %s's answer %s must be built, from the solution tagged main, and no solution is", first.number, first.ansRel)
	return nil
}

// pgExe is an executable of files/: its source (nil for a
// binary alone) by the name a command calls it.
type pgExe struct {
	rel, typ string
	binary   string
}

// pgExecutables lists files/executables by name: a source's file name
// without its extension (files/gen.cpp is gen), or a binary's.
func (l *loader) pgExecutables(ex []pgExecutable, res []Include) map[string]pgExe {
	out := map[string]pgExe{}
	for _, e := range ex {
		var x pgExe
		if e.Source != nil {
			x.rel, x.typ = e.Source.Path, e.Source.Type
		}
		if e.Binary != nil {
			x.binary = e.Binary.Path
		}
		name := path.Base(strings.ReplaceAll(firstOf(x.rel, x.binary), "\\", "/"))
		name = strings.TrimSuffix(name, path.Ext(name))
		if name == "" || name == "." {
			continue
		}
		if prev, dup := out[name]; !dup || prev.rel == "" {
			out[name] = x
		}
	}
	return out
}

// pgCommand reads a generated test's command: a generator's name and
// its arguments, run without a shell. Redirections and the generation
// script's other syntax (FreeMarker's ${...}, several tests from one
// run) are refused by name.
func (l *loader) pgCommand(bt *BuildTest, cmd string, gens map[string]pgExe, built map[string]*Program, res []Include) {
	where := fmt.Sprintf("problem.xml test %s", strings.TrimLeft(bt.Number, "0"))
	bt.Cmd = cmd
	fields := strings.Fields(cmd)
	if len(fields) == 0 {
		l.errorf("%s: %s is missing and the test has no cmd to generate it", where, bt.Input)
		return
	}
	if i := strings.IndexAny(cmd, "<>|&;$`\"'{}*?\\"); i >= 0 {
		l.errorf("%s cmd %q: %q is shell or generation-script syntax (FreeMarker, redirections, several tests from one run), which docket does not run: a command is a generator and its arguments", where, cmd, cmd[i:i+1])
		return
	}
	bt.Generator, bt.Args = fields[0], fields[1:]
	if built[bt.Generator] != nil {
		return
	}
	x, ok := gens[bt.Generator]
	switch {
	case !ok:
		l.errorf("%s cmd %q: no executable named %s in problem.xml's files", where, cmd, bt.Generator)
	case x.rel == "":
		l.errorf("%s cmd %q: generator %s is a Windows binary alone (%s), with no source to build it from", where, cmd, bt.Generator, x.binary)
	default:
		if prog := l.pgProgram("generator "+bt.Generator, &pgFile{Path: x.rel, Type: x.typ}, res); prog != nil {
			built[bt.Generator] = prog
		}
	}
}
