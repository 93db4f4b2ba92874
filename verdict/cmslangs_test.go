package verdict

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// cmsGraderCase is a CMS task "plus" in one language: its grader
// (sol/grader.<ext>, reading two numbers and printing the contestant's
// add of them), the headers beside it, and the contestant's add, as
// CMS's contestants write it for that language.
type cmsGraderCase struct {
	lang, ext string
	grader    string
	headers   map[string]string
	// add is the contestant's add with op between a and b: "+" right,
	// "-" wrong, "+ + *" a syntax error.
	add            func(op string) string
	submissionName string // the name submitted; the box names it plus.<ext>
}

const cHeader = "long long add(long long a, long long b);\n"

const cGrader = `#include <stdio.h>
#include "plus.h"

int main(void) {
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) return 1;
    printf("%lld\n", add(a, b));
    return 0;
}
`

const cppGrader = `#include <iostream>
#include "plus.h"

int main() {
    long long a, b;
    std::cin >> a >> b;
    std::cout << add(a, b) << "\n";
}
`

// cAdd is the C and C++ submission, with op + or -.
func cAdd(op string) string {
	return "#include \"plus.h\"\nlong long add(long long a, long long b) { return a " + op + " b; }\n"
}

func cCase(lang string) cmsGraderCase {
	return cmsGraderCase{lang: lang, ext: ".c", grader: cGrader, headers: map[string]string{"plus.h": cHeader},
		add: cAdd, submissionName: "mine.c"}
}

func cppCase(lang string) cmsGraderCase {
	return cmsGraderCase{lang: lang, ext: ".cpp", grader: cppGrader, headers: map[string]string{"plus.h": cHeader},
		add: cAdd, submissionName: "mine.cpp"}
}

// pythonCase: the grader imports the contestant's module by the task's
// name; pypy3 takes the same grader.py (its family's).
func pythonCase(lang string) cmsGraderCase {
	add := func(op string) string { return "def add(a, b):\n    return a " + op + " b\n" }
	return cmsGraderCase{lang: lang, ext: ".py",
		grader: "import plus\n\na, b = map(int, input().split())\nprint(plus.add(a, b))\n",
		add:    add, submissionName: "mine.py"}
}

// javaCase: the grader's class, grader, calls the contestant's class,
// named after the task.
func javaCase() cmsGraderCase {
	add := func(op string) string {
		return "public class plus {\n    public static long add(long a, long b) { return a " + op + " b; }\n}\n"
	}
	return cmsGraderCase{lang: "java", ext: ".java", grader: `import java.util.Scanner;

public class grader {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        System.out.println(plus.add(a, b));
    }
}
`, add: add, submissionName: "plus.java"}
}

// pascalCase: the grader, a program, uses the contestant's unit, named
// after the task, and a unit of the task's (pluslib.pas, a header) that
// the grader and the submission may both use. The submission is sent
// as mine.p and named plus.pas, the grader's extension: fpc finds the
// unit plus only as plus.pas (or plus.pp).
func pascalCase() cmsGraderCase {
	add := func(op string) string {
		return "unit plus;\n\ninterface\n\nuses pluslib;\n\nfunction add(a, b: TNum): TNum;\n\nimplementation\n\n" +
			"function add(a, b: TNum): TNum;\nbegin\n    add := a " + op + " b;\nend;\n\nend.\n"
	}
	return cmsGraderCase{lang: "pascal", ext: ".pas", grader: `program grader;

uses pluslib, plus;

var a, b: TNum;

begin
    readln(a, b);
    writeln(add(a, b));
end.
`, headers: map[string]string{"pluslib.pas": "unit pluslib;\n\ninterface\n\ntype TNum = int64;\n\nimplementation\n\nend.\n"},
		add: add, submissionName: "mine.p"}
}

// haskellCase: the grader is the Main module; the submission is the
// module named after the task, capitalized (Plus), in plus.hs.
func haskellCase() cmsGraderCase {
	add := func(op string) string {
		return "module Plus (add) where\n\nadd :: Integer -> Integer -> Integer\nadd a b = a " + op + " b\n"
	}
	return cmsGraderCase{lang: "haskell", ext: ".hs", grader: `module Main (main) where

import Plus (add)

main :: IO ()
main = do
    [a, b] <- fmap (map read . words) getLine
    print (add a b)
`, add: add, submissionName: "mine.hs"}
}

// csharpCase: grader and submission are compiled into one program; the
// grader's Main calls the contestant's class.
func csharpCase() cmsGraderCase {
	add := func(op string) string {
		return "public static class Plus {\n    public static long Add(long a, long b) { return a " + op + " b; }\n}\n"
	}
	return cmsGraderCase{lang: "csharp", ext: ".cs", grader: `using System;

public static class Grader {
    public static void Main() {
        string[] t = Console.ReadLine().Split(new[] {' '}, StringSplitOptions.RemoveEmptyEntries);
        Console.WriteLine(Plus.Add(long.Parse(t[0]), long.Parse(t[1])));
    }
}
`, add: add, submissionName: "mine.cs"}
}

// phpCase: the grader runs and includes the contestant's file by the
// task's name.
func phpCase() cmsGraderCase {
	add := func(op string) string { return "<?php\nfunction add($a, $b) { return $a " + op + " $b; }\n" }
	return cmsGraderCase{lang: "php", ext: ".php", grader: `<?php
include 'plus.php';
[$a, $b] = array_map('intval', preg_split('/\s+/', trim(fgets(STDIN))));
echo add($a, $b), "\n";
`, add: add, submissionName: "mine.php"}
}

// rustCase: the grader is the crate root and declares the contestant's
// file, named after the task, a module (mod plus;): rustc is given the
// grader alone and reads plus.rs for the module.
func rustCase() cmsGraderCase {
	add := func(op string) string { return "pub fn add(a: i64, b: i64) -> i64 {\n    a " + op + " b\n}\n" }
	return cmsGraderCase{lang: "rust", ext: ".rs", grader: `mod plus;

use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    println!("{}", plus::add(v[0], v[1]));
}
`, add: add, submissionName: "mine.rs"}
}

// cmsGraderCases are CMS's languages (cms/grading/languages: C11, C++11
// to C++20, C#, Haskell, Java, Pascal, PHP, Python 3 with CPython and
// PyPy, Rust) by docket's ids, with C17 and C++23, which docket adds.
func cmsGraderCases() []cmsGraderCase {
	out := []cmsGraderCase{cCase("c11"), cCase("c")}
	for _, id := range []string{"cpp11", "cpp14", "cpp", "cpp20", "cpp23"} {
		out = append(out, cppCase(id))
	}
	return append(out, pythonCase("python3"), pythonCase("pypy3"), javaCase(), pascalCase(),
		haskellCase(), csharpCase(), phpCase(), rustCase())
}

// cmsGraderTask is the task folder of c: task "plus", two tests
// (stdin and stdout), the grader and headers in sol/.
func cmsGraderTask(c cmsGraderCase) map[string]string {
	files := map[string]string{
		"task.yaml":          "name: plus\ninfile: \"\"\noutfile: \"\"\nn_input: 2\n",
		"input/input0.txt":   "2 3\n",
		"output/output0.txt": "5\n",
		"input/input1.txt":   "10 -4\n",
		"output/output1.txt": "6\n",
		"sol/grader" + c.ext: c.grader,
	}
	for n, b := range c.headers {
		files["sol/"+n] = b
	}
	return files
}

// In every language of CMS that docket has, a CMS task's grader is
// compiled and run with the contestant's submission as CMS's language
// modules do: the submission, named after the task, is the grader's
// module, unit, class or included file; the right add is AC with full
// score, the wrong one WA with none, and one with a syntax error CE (as
// in CMS, whose Python compiles every file of the program; PHP, which
// CMS does not check, is checked as docket checks a PHP submission).
func TestCMSGraderLanguages(t *testing.T) {
	j := testJudge(t)
	for _, c := range cmsGraderCases() {
		t.Run(c.lang, func(t *testing.T) {
			lang, err := j.Langs.Lookup(c.lang)
			if err != nil {
				t.Skipf("docket has no language %s: %v", c.lang, err)
			}
			if a := lang.Probe(context.Background()); !a.Available {
				t.Skipf("%s is not installed here: %s", c.lang, a.Reason)
			}
			p := loadPackage(t, cmsGraderTask(c))
			for _, s := range []struct {
				op      string
				verdict Verdict
				score   float64
				tests   int
			}{{"+", AC, 100, 2}, {"-", WA, 0, 2}, {"+ + *", CE, 0, 0}} {
				src := c.add(s.op)
				res := j.Judge(context.Background(), p, toSubmission(c.lang, map[string]string{c.submissionName: src}), Options{TimeLimit: 5 * time.Second})
				if res.Verdict != s.verdict || res.Score != s.score || res.MaxScore != 100 || len(res.Tests) != s.tests {
					t.Errorf("%s: %s %g/%g, %d tests, error %q, compile log:\n%s\nwant %s %g", strings.TrimSpace(src), res.Verdict, res.Score, res.MaxScore, len(res.Tests), res.Error, res.Compile.Log, s.verdict, s.score)
				}
			}
		})
	}
}

// A task with graders refuses a submission in a language none of them
// serves, as CMS stops with its configuration error: SE naming the
// task's graders, nothing compiled; C is not of C++'s family. A language
// of a grader's family (cpp20 for grader.cpp) is served.
func TestCMSNoGraderForLanguage(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, cmsGraderTask(cppCase("cpp")))
	for _, c := range []struct{ lang, file, src string }{
		{"python3", "plus.py", plainPython},
		{"c11", "plus.c", cAdd("+")},
	} {
		lang, err := j.Langs.Lookup(c.lang)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := withIncludes(j.Langs, lang, p, map[string][]byte{c.file: []byte(c.src)}); !errors.Is(err, ErrNoGrader) {
			t.Errorf("%s: withIncludes: %v, want ErrNoGrader", c.lang, err)
		}
		res := j.Judge(context.Background(), p, toSubmission(c.lang, map[string]string{c.file: c.src}), Options{TimeLimit: 5 * time.Second})
		if res.Verdict != SE || !strings.Contains(res.Error, "has grader.cpp") || res.Compile.Log != "" || len(res.Tests) != 0 {
			t.Errorf("%s: %s %q, compile log %q; want SE naming grader.cpp", c.lang, res.Verdict, res.Error, res.Compile.Log)
		}
	}
	res := j.Judge(context.Background(), p, toSubmission("cpp20", map[string]string{"plus.cpp": cAdd("+")}), Options{TimeLimit: 5 * time.Second})
	if res.Verdict != AC || res.Score != 100 {
		t.Errorf("cpp20: %s %g %q", res.Verdict, res.Score, res.Error)
	}
}
