package verdict

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/verdict/problem"
)

// includeDirs picks default/ first, then the directory naming the
// language (an id or an alias), else one of its family (the same main
// source extension); a directory naming no language applies to none.
func TestIncludeDirs(t *testing.T) {
	c := langs.Builtin()
	inc := map[string][]problem.Include{"default": nil, "cpp": nil, "c++20": nil, "python3": nil, "klingon": nil, "c": nil}
	for _, tc := range []struct{ lang, want string }{
		{"cpp", "default cpp"},
		{"cpp20", "default c++20"},
		{"cpp14", "default c++20"}, // family: the first in sorted order ("c++20" < "cpp")
		{"pypy3", "default python3"},
		{"c", "default c"},
		{"java", "default"},
	} {
		l, err := c.Lookup(tc.lang)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(includeDirs(c, l, inc), " "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.lang, got, tc.want)
		}
	}
}

// A Kattis package's include/ makes a function a program: the grader
// with main is compiled with the submission (before: the submission
// alone, and a function without main was CE), in C++ (and cpp20, of its
// family), Python (pypy3 too) and Java; a submission with its own main
// is CE; a submitted file that the package also includes is replaced by
// the package's, which the compile log says.
func TestIncludeGrader(t *testing.T) {
	j := testJudge(t)
	p, err := problem.Load("../problems/grader-include")
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join("../problems/grader-include/submissions", rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	add, py := read("accepted/add.cpp"), read("accepted/solution.py")
	for _, c := range []jvmCase{
		{name: "cpp", lang: "cpp", files: map[string]string{"add.cpp": add}, verdict: AC},
		{name: "cpp20", lang: "cpp20", files: map[string]string{"add.cpp": add}, verdict: AC},
		{name: "python3", lang: "python3", files: map[string]string{"solution.py": py}, verdict: AC},
		{name: "pypy3", lang: "pypy3", files: map[string]string{"solution.py": py}, verdict: AC},
		{name: "java", lang: "java", files: map[string]string{"Solution.java": read("accepted/Solution.java")}, verdict: AC},
		{name: "own main", lang: "cpp", files: map[string]string{"own.cpp": read("compile_error/own_main.cpp")}, verdict: CE, log: "multiple definition of `main'"},
		{name: "own header replaced", lang: "cpp", files: map[string]string{"add.cpp": add, "add.h": "#error the contestant's\n"}, verdict: AC,
			log: "[docket] the problem's include/cpp/add.h replaces the submission's file of that name"},
		{name: "entry point overridden", lang: "python3", files: map[string]string{"solution.py": py, "other.py": "print(0)\n"}, entry: "other.py", verdict: AC},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, j, p) })
	}
}

// guessGrader holds main for guess-kattis: it talks to the interactor on
// stdin and stdout and asks the contestant's next_guess for each guess.
const guessGrader = `#include <iostream>
#include <string>
long long next_guess(long long lo, long long hi);
int main() {
    long long lo = 1, hi = 1000000000;
    while (lo <= hi) {
        long long g = next_guess(lo, hi);
        std::cout << g << std::endl;
        std::string reply;
        if (!(std::cin >> reply) || reply == "=") return 0;
        if (reply == "<") hi = g - 1; else lo = g + 1;
    }
}
`

// include/ works for an interactive problem: the grader talks to the
// interactor through the program's stdin and stdout.
func TestIncludeInteractive(t *testing.T) {
	j := testJudge(t)
	dir := filepath.Join(t.TempDir(), "guess")
	if out, err := exec.Command("cp", "-r", "../problems/guess-kattis", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	os.RemoveAll(filepath.Join(dir, "submissions"))
	os.MkdirAll(filepath.Join(dir, "include/cpp"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "include/cpp/grader.cpp"), []byte(guessGrader), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := problem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		body string
		want Verdict
	}{
		{"long long next_guess(long long lo, long long hi) { return lo + (hi - lo) / 2; }\n", AC},
		{"long long next_guess(long long lo, long long hi) { return lo; }\n", WA}, // too many guesses
	} {
		res := j.Judge(context.Background(), p, toSubmission("cpp", map[string]string{"guess.cpp": c.body}), Options{TimeLimit: 5 * time.Second})
		if res.Verdict != c.want {
			t.Errorf("%s, want %s: %s %s %+v", res.Verdict, c.want, res.Error, res.Compile.Log, res.Tests)
		}
	}
}
