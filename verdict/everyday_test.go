package verdict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Everyday Python as Kattis and DOMjudge run it (python3 main.py): exit()
// and quit() end a program with their code, in CPython and PyPy alike;
// before, CPython ran with -S alone, without them, and a submission
// ending with exit(0) was RE (NameError).
func TestPythonExitQuit(t *testing.T) {
	j := testJudge(t)
	p := onePlusProblem(t)
	for _, c := range []jvmCase{
		{name: "python3 exit(0)", lang: "python3", files: map[string]string{"a.py": plainPython + "exit(0)\n"}, verdict: AC},
		{name: "python3 exit()", lang: "python3", files: map[string]string{"a.py": plainPython + "exit()\n"}, verdict: AC},
		{name: "python3 quit()", lang: "python3", files: map[string]string{"a.py": plainPython + "quit()\n"}, verdict: AC},
		{name: "python3 exit(3)", lang: "python3", files: map[string]string{"a.py": plainPython + "exit(3)\n"}, verdict: RE},
		{name: "python3 __name__", lang: "python3", files: map[string]string{"a.py": "if __name__ == '__main__':\n    " + plainPython}, verdict: AC},
		{name: "pypy3 exit(0)", lang: "pypy3", files: map[string]string{"a.py": plainPython + "exit(0)\n"}, verdict: AC},
		{name: "pypy3 quit()", lang: "pypy3", files: map[string]string{"a.py": plainPython + "quit()\n"}, verdict: AC},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, j, p) })
	}
}

// A module installed in the host's site-packages is importable, as in
// python3 main.py, and the program's own directory comes first on
// sys.path, as the script's directory does. The module is written into
// the first site-packages directory of Debian's CPython that exists
// (the sandbox binds /usr read-only) and removed afterwards.
func TestPythonSitePackages(t *testing.T) {
	j := testJudge(t)
	p := onePlusProblem(t)
	dir := ""
	for _, d := range []string{"/usr/lib/python3/dist-packages", "/usr/local/lib/python3/dist-packages"} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			dir = d
			break
		}
	}
	if dir == "" {
		t.Skip("no site-packages directory of Debian's python3 on this host")
	}
	mod := fmt.Sprintf("docket_site_probe_%d", os.Getpid())
	path := filepath.Join(dir, mod+".py")
	if err := os.WriteFile(path, []byte("def add(a, b):\n    return a + b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(path) })
	src := fmt.Sprintf("import sys, os\nfrom %s import add\nassert sys.path[0] == os.getcwd(), sys.path\n"+
		"a, b = map(int, input().split())\nprint(add(a, b))\n", mod)
	for _, c := range []jvmCase{
		{name: "python3", lang: "python3", files: map[string]string{"a.py": src}, verdict: AC},
		{name: "own module first", lang: "python3", files: map[string]string{"a.py": "import " + mod + "\n" + plainPython, mod + ".py": "raise SystemExit(5)\n"}, verdict: RE},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, j, p) })
	}
}

// checkPython is a Kattis output validator in Python as DOMjudge's
// examples write them: it ends with exit(42) or exit(43).
const checkPython = `import sys
want = open(sys.argv[2]).read().split()
team = sys.stdin.read().split()
if team == want:
    exit(42)
print("wrong answer", file=open(sys.argv[3] + "/judgemessage.txt", "w"))
exit(43)
`

// A problem's output validator in Python that ends with exit(42) accepts
// (before: every submission SE, exit() undefined), and exit(43) rejects.
func TestPythonValidatorExit(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, map[string]string{
		"problem.yaml": "name: a+b\nvalidation: custom\n", "data/secret/1.in": "2 3\n", "data/secret/1.ans": "5\n",
		"output_validators/check/check.py": checkPython,
	})
	for _, c := range []struct {
		src  string
		want Verdict
	}{{plainPython, AC}, {minusPython, WA}} {
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"main.py": c.src}), Options{TimeLimit: 5 * time.Second})
		if res.Verdict != c.want || len(res.Tests) != 1 || res.Tests[0].VerdictSource != SourceChecker {
			t.Errorf("%s, want %s by the checker: %s %+v", res.Verdict, c.want, res.Error, res.Tests)
		}
	}
}

// JavaScript submissions of several files are judged as DOMjudge judges
// them: every source is checked, so a syntax error in an imported module
// or in one never imported is CE (before: only the main file was
// checked, and these ran); an ES module submission with its package.json
// runs; an import of a file that is not there is RE.
func TestJavaScriptMultiFile(t *testing.T) {
	j := testJudge(t)
	p := onePlusProblem(t)
	const (
		mainJS   = "import { add } from './sum.js';\nimport { readFileSync } from 'fs';\nconst [a, b] = readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(add(a, b));\n"
		sumJS    = "export function add(a, b) {\n    return a + b;\n}\n"
		badSumJS = "export function add(a, b) {\n    letter unused = 1\n    return a + b;\n}\n"
		module   = `{"type": "module"}`
	)
	for _, c := range []jvmCase{
		{name: "modules", lang: "javascript", files: map[string]string{"a.js": mainJS, "sum.js": sumJS, "package.json": module}, verdict: AC},
		{name: "imported module broken", lang: "javascript", files: map[string]string{"a.js": mainJS, "sum.js": badSumJS, "package.json": module}, verdict: CE, log: "SyntaxError"},
		{name: "unused module broken", lang: "javascript", files: map[string]string{"a.js": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);\n", "b.js": "function broken( {\n"}, verdict: CE, log: "SyntaxError"},
		{name: "missing module", lang: "javascript", files: map[string]string{"a.js": strings.Replace(mainJS, "sum.js", "sum.mjs", 1), "sum.js": sumJS, "package.json": module}, verdict: RE},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, j, p) })
	}
}

// bigArrayCpp is a+b with an initialized static array of the given MiB,
// which the executable holds (DOMjudge's test-memstatic.cc has 512).
func bigArrayCpp(mib int) string {
	return fmt.Sprintf("#include <iostream>\nchar big[%d << 20] = { 1 };\n"+
		"int main() { long a, b; std::cin >> a >> b; std::cout << a + b + big[0] - 1 << std::endl; }\n", mib)
}

// A C++ program with a large initialized static array compiles as it
// does in DOMjudge, up to the bound docs/languages.md states (before: a
// 512 MiB array was CE, the assembler's object file over the compile's
// 512 MiB file-size limit); past it the compile is CE on its memory
// limit, which bounds what the compile's space holds.
func TestLargeStaticArray(t *testing.T) {
	j := testJudge(t)
	p := onePlusProblem(t)
	for _, c := range []jvmCase{
		{name: "512 MiB", lang: "cpp", files: map[string]string{"big.cpp": bigArrayCpp(512)}, verdict: AC},
		{name: "600 MiB", lang: "cpp", files: map[string]string{"big.cpp": bigArrayCpp(600)}, verdict: AC},
		{name: "800 MiB", lang: "cpp", files: map[string]string{"big.cpp": bigArrayCpp(800)}, verdict: CE, log: "exceeded its memory limit"},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, j, p) })
	}
}
