package verdict

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/docketjudge/docket/verdict/problem"
)

// pgPackage is a Polygon package of problem.xml around tests and groups
// (and the assets' solutions), with the other files given.
func pgPackage(t *testing.T, tests, groups, solutions string, files map[string]string) *problem.Problem {
	t.Helper()
	if groups != "" {
		groups = "<groups>" + groups + "</groups>"
	}
	files["problem.xml"] = `<?xml version="1.0" encoding="utf-8" standalone="no"?>
<problem short-name="t"><judging input-file="" output-file=""><testset name="tests">
<time-limit>2000</time-limit><memory-limit>268435456</memory-limit>
<input-path-pattern>tests/%02d</input-path-pattern><answer-path-pattern>tests/%02d.a</answer-path-pattern>
<tests>` + tests + `</tests>` + groups + `</testset></judging>
<files><executables><executable><source path="files/gen.py" type="python.3"/></executable></executables></files>
<assets><solutions>` + solutions + `</solutions></assets></problem>`
	return loadPackage(t, files)
}

// echoInput answers every test with its input: the answers are the
// inputs, except where a test's answer says otherwise.
const echoInput = "import sys\nsys.stdout.write(sys.stdin.read())\n"

// A Polygon package's points: an each-test group earns its passed
// tests' points, a complete-group group its points only when every test
// passes, and only when the groups it depends on were fully passed.
func TestPolygonScoring(t *testing.T) {
	j := testJudge(t)
	files := map[string]string{}
	for i := 1; i <= 4; i++ {
		files[fmt.Sprintf("tests/%02d", i)] = fmt.Sprintf("%d\n", i)
		files[fmt.Sprintf("tests/%02d.a", i)] = fmt.Sprintf("%d\n", i)
	}
	p := pgPackage(t, `<test group="a" points="3"/><test group="a" points="7"/><test group="b"/><test group="c"/>`,
		`<group name="a" points-policy="each-test"/>
		 <group name="b" points="40" points-policy="complete-group"><dependencies><dependency group="a"/></dependencies></group>
		 <group name="c" points="50" points-policy="complete-group"/>`, "", files)
	if MaxScore(p) != 100 {
		t.Fatalf("max score %g, want 100", MaxScore(p))
	}
	for _, c := range []struct {
		wrong string // the input the program answers wrongly
		score float64
	}{{"", 100}, {"2", 53}, {"3", 60}, {"1", 57}} {
		prog := echoInput
		if c.wrong != "" {
			prog = "import sys\ns = sys.stdin.read()\nprint(0 if s.strip() == '" + c.wrong + "' else s.strip())\n"
		}
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"a.py": prog}), Options{})
		if res.Score != c.score || res.MaxScore != 100 || res.Verdict != AC {
			t.Errorf("wrong on %q: %s %g/%g, want %g; groups %+v", c.wrong, res.Verdict, res.Score, res.MaxScore, c.score, res.Groups)
		}
	}
}

// A generator in files/ writes a generated test's input; the main
// solution writes every missing answer. The build is cached by the
// package's digest, and a judging before it is refused.
func TestPolygonBuildTests(t *testing.T) {
	j := testJudge(t)
	p := pgPackage(t, `<test method="manual"/><test method="generated" cmd="gen 3 4"/><test method="generated" cmd="gen 10 -2"/>`, "",
		`<solution tag="main"><source path="solutions/sum.py" type="python.3"/></solution>`,
		map[string]string{"tests/01": "1 1\n", "files/gen.py": "import sys\nprint(*sys.argv[1:])\n",
			"solutions/sum.py": "print(sum(map(int, input().split())))\n"})
	sub := toSubmission("python3", map[string]string{"a.py": "print(sum(map(int, input().split())))\n"})
	if res := j.Judge(context.Background(), p, sub, Options{}); res.Verdict != SE || !strings.Contains(res.Error, "not built") {
		t.Errorf("judged before its tests were built: %s %s", res.Verdict, res.Error)
	}
	b, err := j.BuildTests(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range p.Tests {
		in, _ := os.ReadFile(tc.In)
		ans, _ := os.ReadFile(tc.Ans)
		got = append(got, strings.TrimSpace(string(in))+"="+strings.TrimSpace(string(ans)))
	}
	if strings.Join(got, ", ") != "1 1=2, 3 4=7, 10 -2=8" || b.Cached || b.Tests != 3 || len(BuiltFiles(p, b)) != 5 {
		t.Errorf("tests %s, build %+v, files %v", strings.Join(got, ", "), b, BuiltFiles(p, b))
	}
	if res := j.Judge(context.Background(), p, sub, Options{}); res.Verdict != AC || len(res.Tests) != 3 {
		t.Errorf("judged %s %s", res.Verdict, res.Error)
	}
	again, err := problem.Load(p.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := j.BuildTests(context.Background(), again); err != nil || !b.Cached || !TestsBuilt(again) {
		t.Errorf("second build: %+v %v", b, err)
	}
}

// A generator that fails, or writes more than a test may hold, and a
// main solution that fails on a generated input, are errors that name
// the test.
func TestPolygonBuildFailures(t *testing.T) {
	j := testJudge(t)
	for _, c := range []struct{ name, gen, main, want string }{
		{"generator fails", "import sys\nsys.exit(3)\n", "print(1)\n", `test 02: generator command "gen 5" failed: RE (exit code 3)`},
		{"huge output", "import sys\nb = 'x' * (1 << 20)\nwhile True:\n    sys.stdout.write(b)\n", "print(1)\n", "test 02: generator command \"gen 5\" failed: its output is over the limit of 256 MiB"},
		{"main fails", "print(5)\n", "import sys\nif input() == '5':\n    sys.exit(1)\nprint(1)\n", "test 02: the main solution sol.py got RE on its input tests/02"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pgPackage(t, `<test/><test method="generated" cmd="gen 5"/>`, "",
				`<solution tag="main"><source path="solutions/sol.py" type="python.3"/></solution>`,
				map[string]string{"tests/01": "1\n", "files/gen.py": c.gen, "solutions/sol.py": c.main})
			_, err := j.BuildTests(context.Background(), p)
			if !errors.Is(err, ErrTestBuild) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
			if TestsBuilt(p) {
				t.Error("tests built after a failed build")
			}
		})
	}
}
