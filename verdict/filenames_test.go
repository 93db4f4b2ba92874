package verdict

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/verdict/problem"
)

// a+b solutions. The C, C++, Go and Rust ones print a wrong sum when
// built with PWNED set: the mark of a file name read as an option.
const (
	pwnedC = `#include <stdio.h>
int main(void) {
	long long a, b;
	if (scanf("%lld %lld", &a, &b) != 2) return 1;
#ifdef PWNED
	a++;
#endif
	printf("%lld\n", a + b);
	return 0;
}
`
	pwnedGo = `package main

import "fmt"

var pwned string

func main() {
	var a, b int64
	fmt.Scan(&a, &b)
	if pwned != "" {
		a++
	}
	fmt.Println(a + b)
}
`
	pwnedRust = `use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    let mut a = v[0];
    if cfg!(pwned) { a += 1; }
    println!("{}", a + v[1]);
}
`
	plainJava = `import java.util.Scanner;
public class Main {
    public static void main(String[] x) {
        Scanner s = new Scanner(System.in);
        long a = s.nextLong(), b = s.nextLong();
        System.out.println(a + b);
    }
}
`
	plainKotlin = `fun main() {
    val (a, b) = readLine()!!.trim().split(Regex("\\s+")).map { it.toLong() }
    println(a + b)
}
`
	plainPython = "print(sum(map(int, input().split())))\n"
	plainJS     = `const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\s+/).map(BigInt);
console.log((a + b).toString());
`
)

// gccWrapper, read by gcc from an option file, runs every compiler pass
// through the shell, which adds -DPWNED to cc1: code of the contestant's
// running inside the compile and changing the program that is judged.
const gccWrapper = `-wrapper '/bin/sh,-c,case "$0" in *cc1*) exec "$0" "$@" -DPWNED;; esac; exec "$0" "$@"'` + "\n"

// optionNamed is, per language of the catalog, a correct a+b submission
// with files named like the toolchain's options or option files. Were a
// name read as an option, the program judged would change: gcc and g++
// read @-O2 as the option file -O2 (the wrapper above); javac and
// kotlinc read @-g and @-nowarn as option files moving the compiled
// program away (-d); go build takes -ldflags=-X=... and sets main.pwned;
// rustc reads @x.rs as the option file x.rs (another crate root, with
// --cfg pwned); python3, pypy3 and node read -c.py and -e.js as options.
var optionNamed = map[string]map[string]string{
	"c":          {"main.c": pwnedC, "-O2": gccWrapper, "@-O2": ""},
	"cpp":        {"main.cpp": pwnedC, "-O2": gccWrapper, "@-O2": ""},
	"cpp20":      {"main.cpp": pwnedC, "-O2": gccWrapper, "@-O2": ""},
	"java":       {"Main.java": plainJava, "-g": "-d pwned\n", "@-g": ""},
	"kotlin":     {"main.kt": plainKotlin, "-nowarn": "-d pwned.jar\n", "@-nowarn": ""},
	"go":         {"main.go": pwnedGo, "-ldflags=-X=main.pwned=yes": ""},
	"rust":       {"main.rs": pwnedRust, "@x.rs": pwnedRust, "x.rs": "main.rs\n--cfg\npwned\n"},
	"python3":    {"-c.py": plainPython},
	"pypy3":      {"-c.py": plainPython},
	"javascript": {"-e.js": plainJS},
}

func toSubmission(lang string, files map[string]string) Submission {
	sub := Submission{ID: "s-" + lang, Language: lang, Files: map[string][]byte{}}
	for n, b := range files {
		sub.Files[n] = []byte(b)
	}
	return sub
}

// Files named like options never change the compile or run command, in
// every language of the catalog, with the real compilers in the sandbox.
// The judge refuses such names (CE, the refused name in the compile
// log, nothing compiled or run). And should a name ever pass the rule,
// the command still takes it as a file: judged past the rule, each
// submission is accepted, the option files having been left as data,
// except Rust's, whose @x.rs is the crate root and compiles as a file
// too (--crate-name). Before the fix every one of them was judged with
// the names as options: WA or RE.
func TestOptionNamedFiles(t *testing.T) {
	j := testJudge(t)
	p, err := problem.Load("../problems/aplusb")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c", "cpp", "cpp20", "python3", "pypy3", "java", "kotlin", "go", "rust", "javascript"} {
		t.Run(id, func(t *testing.T) {
			sub := toSubmission(id, optionNamed[id])
			res := j.Judge(context.Background(), p, sub, Options{})
			if res.Verdict != CE || res.Compile.OK || len(res.Tests) != 0 {
				t.Errorf("judged with the names checked: %s, %d tests, compile log %q; want CE, nothing run", res.Verdict, len(res.Tests), res.Compile.Log)
			} else if first := firstRefused(sub.Files); first == "" || !strings.Contains(res.Compile.Log, strconv.Quote(first)) {
				t.Errorf("the compile log %q does not name the refused file %q", res.Compile.Log, first)
			}
			lang, err := j.Langs.Lookup(id)
			if err != nil {
				t.Fatal(err)
			}
			res = j.judgeFiles(context.Background(), p, lang, sub, Options{}, &Result{}, nil)
			if res.Verdict != AC {
				t.Errorf("judged past the name rule: %s (%s), compile log %q; want AC, the names as files", res.Verdict, res.Error, res.Compile.Log)
			}
		})
	}
}

// firstRefused is the first name, in order, that the rule refuses: the
// one the judge names.
func firstRefused(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if langs.ValidFileName(n) != nil {
			return n
		}
	}
	return ""
}
