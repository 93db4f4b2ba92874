package problem

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pgXML is a problem.xml around tests (the <tests> element's content),
// groups (<groups>'s, none when empty) and assets (<assets>'s).
func pgXML(tests, groups, assets string) string {
	g := ""
	if groups != "" {
		g = "<groups>" + groups + "</groups>"
	}
	return `<?xml version="1.0" encoding="utf-8" standalone="no"?>
<problem revision="1" short-name="t">
  <names><name language="english" value="T"/></names>
  <judging input-file="" output-file="">
    <testset name="pretests"><time-limit>1</time-limit></testset>
    <testset name="tests">
      <time-limit>2500</time-limit>
      <memory-limit>268435456</memory-limit>
      <input-path-pattern>tests/%02d</input-path-pattern>
      <answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests>` + tests + `</tests>` + g + `
    </testset>
  </judging>
  <files>
    <resources><file path="files/testlib.h" type="h.g++"/><file path="files/olymp.sty"/></resources>
    <executables>
      <executable><source path="files/gen.cpp" type="cpp.g++17"/><binary path="files/gen.exe" type="exe.win32"/></executable>
      <executable><binary path="files/old.exe" type="exe.win32"/></executable>
    </executables>
  </files>
  <assets>` + assets + `</assets>
</problem>`
}

// pgChecked is a checker and a main solution, as every package has.
const pgChecked = `<checker name="std::lcmp.cpp" type="testlib"><source path="files/check.cpp" type="cpp.g++17"/><copy path="check.cpp"/></checker>
<solutions><solution tag="main"><source path="solutions/sol.cpp" type="cpp.gcc13-64-winlibs-g++20"/></solution>
<solution tag="wrong-answer"><source path="solutions/wa.py" type="python.pypy3"/></solution></solutions>`

// pgDir is a Polygon package of problem.xml x, two tests as files
// (tests/01 and 02, with answers) and the files a package ships.
func pgDir(t testing.TB, x string, extra map[string]string) string {
	d := filepath.Join(t.TempDir(), "pg")
	files := map[string]string{"problem.xml": x, "tests/01": "1\n", "tests/01.a": "1\n", "tests/02": "2\n", "tests/02.a": "2\n",
		"files/testlib.h": "// testlib\n", "files/check.cpp": "int main(){}\n", "check.cpp": "int main(){}\n", "files/gen.cpp": "int main(){}\n",
		"solutions/sol.cpp": "int main(){}\n", "solutions/wa.py": "print(0)\n"}
	for k, v := range extra {
		if v == "" {
			delete(files, k)
			continue
		}
		files[k] = v
	}
	write(t, d, files)
	return d
}

// A package of tests as files is a pass-fail problem: limits from
// milliseconds and bytes, samples public, the checker testlib's with
// files/testlib.h beside it, solutions under their tags.
func TestPolygonLoaded(t *testing.T) {
	d := pgDir(t, pgXML(`<test method="manual" sample="true"/><test method="generated" cmd="gen 2"/>`, "", pgChecked), nil)
	p, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != PassFail || p.Name != "T" || p.Limits.Time.Milliseconds() != 2500 || p.Limits.MemoryMB != 256 ||
		p.Limits.TimeSource != "problem.xml time-limit" || p.Generation != nil || p.Interactive || p.InputFile != "" {
		t.Errorf("problem %+v", p)
	}
	var names []string
	for _, tc := range p.Tests {
		names = append(names, fmt.Sprintf("%s %v", tc.Name, tc.Public))
	}
	if got := strings.Join(names, ", "); got != "secret/01 true, secret/02 false" {
		t.Errorf("tests %s", got)
	}
	c := p.Checker
	if c == nil || c.Protocol != Testlib || c.Language != "cpp" || c.Sources[0] != "check.cpp" || filepath.Base(c.Dir) != "files" ||
		len(c.Extra) != 1 || c.Extra[0].Name != "testlib.h" {
		t.Errorf("checker %+v", c)
	}
	if w := findWarning(p, WarnTrustedCode); w == nil || !slices.Equal(w.Paths, []string{"files/check.cpp"}) {
		t.Errorf("trusted warning %+v", w)
	}
	subs, err := ExampleSubmissions(d)
	if err != nil || len(subs) != 2 || subs[0].Rel != "main/sol.cpp" || subs[0].Language != "cpp20" || subs[1].Expect != "wrong-answer" || subs[1].Language != "pypy3" {
		t.Errorf("solutions %+v %v", subs, err)
	}
}

// Points make a scoring problem: without groups each test is worth its
// points; with them, each-test sums its tests', complete-group is worth
// its points only when all pass, and a dependency is required.
func TestPolygonGroups(t *testing.T) {
	d := pgDir(t, pgXML(`<test method="manual" points="3" group="a"/><test method="manual" points="7" group="a"/><test method="manual" group="b" points="5"/>`,
		`<group name="a" points-policy="each-test" feedback-policy="complete"/>
		 <group name="b" points="40" points-policy="complete-group" feedback-policy="icpc"><dependencies><dependency group="a"/></dependencies></group>`, pgChecked),
		map[string]string{"tests/03": "3\n", "tests/03.a": "3\n"})
	p, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range p.Root.Groups[0].Groups {
		var worth []string
		for _, tc := range g.Tests {
			worth = append(worth, fmt.Sprintf("%s=%g", tc.Name, tc.Worth(g)))
		}
		got = append(got, fmt.Sprintf("%s %v %v %s", g.Name, g.Config.GraderFlags, g.Config.Requires, strings.Join(worth, ",")))
	}
	want := "secret/a [] [] secret/a/01=3,secret/a/02=7; secret/b [min] [secret/a] secret/b/03=40"
	if strings.Join(got, "; ") != want || p.Kind != Scoring || p.Feedback != FeedbackSamples || p.Root.Config.OnReject != "continue" {
		t.Errorf("groups %s (kind %s, feedback %s), want %s", strings.Join(got, "; "), p.Kind, p.Feedback, want)
	}
	// Without groups: each test its points.
	d = pgDir(t, pgXML(`<test points="10"/><test points="90"/>`, "", pgChecked), nil)
	if p, err := Load(d); err != nil || p.Kind != Scoring || p.Tests[1].Worth(p.Tests[1].Group) != 90 {
		t.Errorf("points without groups: %v", err)
	}
}

// Tests whose files are missing are built: a generated test's input by
// its generator (files/gen.cpp is gen), every missing answer by the
// main solution.
func TestPolygonGeneration(t *testing.T) {
	d := pgDir(t, pgXML(`<test method="manual"/><test method="generated" cmd="gen --n=5 -seed 7"/>`, "", pgChecked),
		map[string]string{"tests/02": "", "tests/02.a": "", "tests/01.a": ""})
	p, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	g := p.Generation
	if g == nil || len(g.Tests) != 2 || g.Main == nil || g.Main.Language != "cpp20" || g.Generators["gen"] == nil ||
		g.Generators["gen"].Extra[0].Name != "testlib.h" {
		t.Fatalf("generation %+v", g)
	}
	a, b := g.Tests[0], g.Tests[1]
	if a.Generator != "" || a.Test.In == "" || a.Test.Ans != "" || b.Generator != "gen" || !slices.Equal(b.Args, []string{"--n=5", "-seed", "7"}) ||
		b.Test.In != "" || b.Input != "tests/02" || b.Answer != "tests/02.a" {
		t.Errorf("tests %+v %+v", a, b)
	}
	for _, w := range p.Warnings {
		if slices.Contains(w.Paths, "files/gen.cpp") {
			t.Errorf("a generator named in a warning: %+v", w)
		}
	}
}

// What docket cannot judge as written is a load error that names it.
func TestPolygonRefusals(t *testing.T) {
	gen := func(cmd string) string {
		return pgXML(`<test/><test method="generated" cmd="`+cmd+`"/>`, "", pgChecked)
	}
	noTest2 := map[string]string{"tests/02": ""}
	for _, c := range []struct {
		name, xml string
		extra     map[string]string
		want      string
	}{
		{"freemarker script", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), "<tests>", "<script><![CDATA[<#list 1..5 as i>gen ${i} > $</#list>]]></script><tests>", 1), nil, "FreeMarker"},
		{"freemarker in a command", gen("gen ${i}"), noTest2, `"$" is shell or generation-script syntax`},
		{"redirection", gen("gen 5 > {3-5}"), noTest2, "redirections"},
		{"windows generator", gen("old 5"), noTest2, "generator old is a Windows binary alone (files/old.exe)"},
		{"unknown generator", gen("nope 5"), noTest2, "no executable named nope"},
		{"missing manual test", pgXML(`<test/><test/>`, "", pgChecked), noTest2, "tests/02 is missing (a manual test's input)"},
		{"delphi checker", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), `type="cpp.g++17"/><copy`, `type="pas.dpr"/><copy`, 1), nil, `"pas.dpr" is a Windows compiler's`},
		{"unknown type", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), `type="cpp.g++17"/><copy`, `type="cobol"/><copy`, 1), nil, `checker files/check.cpp: source type "cobol"`},
		{"no main", gen("gen 5"), map[string]string{"tests/02": "", "problem.xml": strings.Replace(gen("gen 5"), `tag="main"`, `tag="accepted"`, 1)}, "no solution is"},
		{"bad tag", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), `tag="wrong-answer"`, `tag="wa"`, 1), nil, `tag: "wa" is not a Polygon tag`},
		{"test count", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), "<input-path", "<test-count>3</test-count><input-path", 1), nil, "test-count is \"3\""},
		{"pattern outside", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), "tests/%02d.a", "../%02d.a", 1), nil, "not a path inside the package"},
		{"time limit", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), "2500", "fast", 1), nil, "time-limit: \"fast\""},
		{"memory limit", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), "268435456", "12", 1), nil, "memory-limit: \"12\""},
		{"input file", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), `input-file=""`, `input-file="../in"`, 1), nil, "judging input-file"},
		{"checker type", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), `type="testlib"`, `type="exe"`, 1), nil, `checker type: "exe"`},
		{"dependency later", pgXML(`<test points="1" group="a"/><test points="1" group="b"/>`, `<group name="a"><dependencies><dependency group="b"/></dependencies></group>`, pgChecked), nil, `group "a": depends on group "b"`},
		{"group name", pgXML(`<test points="1" group="a/b"/><test points="1" group="a/b"/>`, "", pgChecked), nil, `group "a/b"`},
		{"points policy", pgXML(`<test points="1" group="a"/><test points="1" group="a"/>`, `<group name="a" points-policy="best"/>`, pgChecked), nil, `points-policy: "best"`},
		{"not xml", "<problem><judging>", nil, "problem.xml: XML syntax error"},
		{"two documents", pgXML(`<test/><test/>`, "", pgChecked) + "<problem/>", nil, "element <problem> after </problem>"},
		{"interactive answers", strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), "<solutions>", `<interactor><source path="files/check.cpp" type="cpp.g++17"/></interactor><solutions>`, 1), map[string]string{"tests/02.a": ""}, "interactive problem's answers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(pgDir(t, c.xml, c.extra))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

// Polygon's source types map onto the catalog; Windows compilers and
// unknown types are refused by name.
func TestPolygonLanguages(t *testing.T) {
	for typ, want := range map[string]string{"cpp.g++17": "cpp", "cpp.gcc13-64-winlibs-g++20": "cpp20", "cpp.msys2-mingw64-9-g++17": "cpp",
		"cpp.gcc14-64-msys2-g++23": "cpp23", "cpp.g++14": "cpp14", "java11": "java", "java21": "java", "python.3": "python3",
		"python.pypy3": "pypy3", "kotlin": "kotlin", "kotlin19": "kotlin", "c.gcc": "c", "pas.fpc": "pascal"} {
		if got, err := pgLanguage(typ); got != want || err != nil {
			t.Errorf("%s: %q %v, want %s", typ, got, err, want)
		}
	}
	for _, typ := range []string{"pas.dpr", "cpp.ms2017", "python.2", "", "cpp.g++99"} {
		if got, err := pgLanguage(typ); err == nil {
			t.Errorf("%s: %q, want an error", typ, got)
		}
	}
}

// A solution whose source type docket does not know is a warning, not
// an error: only docket problem check runs it.
func TestPolygonUnknownSolutionType(t *testing.T) {
	p, err := Load(pgDir(t, strings.Replace(pgXML(`<test/><test/>`, "", pgChecked), `type="python.pypy3"`, `type="python.2"`, 1), nil))
	if err != nil {
		t.Fatal(err)
	}
	if w := findWarning(p, WarnLanguage); w == nil || !slices.Equal(w.Paths, []string{"solutions/wa.py"}) || !strings.Contains(w.Message, "python.2") {
		t.Errorf("warning %+v", w)
	}
}

// FuzzProblemXML: any problem.xml parses or fails with an error, never
// panics, and a package that loads has tests, each in a group, with
// worths that are finite and not negative.
func FuzzProblemXML(f *testing.F) {
	f.Add(pgXML(`<test method="manual" sample="true"/><test method="generated" cmd="gen 2"/>`, "", pgChecked))
	f.Add(pgXML(`<test points="1" group="a"/><test points="2" group="b"/>`, `<group name="a" points-policy="each-test"/><group name="b" points="5" points-policy="complete-group"><dependencies><dependency group="a"/></dependencies></group>`, pgChecked))
	f.Add(pgXML(`<test/><test method="generated" cmd="gen 5"/>`, "", pgChecked))
	f.Add("<problem><judging><testset name=\"tests\"><tests><test/></tests></testset></judging></problem>")
	f.Fuzz(func(t *testing.T, x string) {
		d := pgDir(t, x, map[string]string{"tests/02": ""})
		p, err := Load(d)
		if err != nil {
			return
		}
		if len(p.Tests) == 0 {
			t.Fatal("loaded with no tests")
		}
		for _, tc := range p.Tests {
			if tc.Group == nil || !strings.HasPrefix(tc.Name, "secret/") {
				t.Fatalf("test %+v", tc)
			}
			if w := tc.Worth(tc.Group); w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
				t.Fatalf("test %s worth %g", tc.Name, w)
			}
		}
	})
}
