package langs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinCatalog(t *testing.T) {
	c := Builtin()
	for _, id := range []string{"c", "cpp", "cpp20", "python3", "pypy3", "java", "kotlin", "go", "rust", "javascript"} {
		l, err := c.Lookup(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if err := l.validate(); err != nil {
			t.Error(err)
		}
		if len(l.Version) == 0 || len(l.Extensions) == 0 {
			t.Errorf("%s lacks a version probe or extensions", id)
		}
	}
	if l, _ := c.Lookup("cpp17"); l == nil || l.ID != "cpp" {
		t.Errorf("alias cpp17 -> %v", l)
	}
	if _, err := c.Lookup("cobol"); !errors.Is(err, ErrUnknown) {
		t.Errorf("cobol: %v", err)
	}
	for file, want := range map[string]string{"a.cpp": "cpp", "A.java": "java", "x.py": "python3", "m.rs": "rust", "k.kt": "kotlin", "s.js": "javascript", "b.C": "c"} {
		l, err := c.ByExtension(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if l.ID != want {
			t.Errorf("%s -> %s, want %s", file, l.ID, want)
		}
	}
	for _, l := range []string{"java", "go", "kotlin"} {
		if x, _ := c.Lookup(l); x.AddressSpaceLimit {
			t.Errorf("%s must not get an address-space limit", l)
		}
	}
}

// Every built-in language is a valid entry with a version probe; ids
// and aliases name one language each; an extension several languages
// share goes to the documented default (docs/languages.md), and a second
// extension naming a language that has the extension picks it.
func TestCatalogNamesAndExtensions(t *testing.T) {
	c := Builtin()
	want := []string{"c", "c11", "cpp", "cpp11", "cpp14", "cpp20", "cpp23", "python3", "pypy3", "java", "kotlin", "go", "rust",
		"javascript", "pascal", "haskell", "ocaml", "ruby", "lua", "perl", "prolog", "r", "ada", "fortran", "awk", "bash", "sh",
		"csharp", "scala", "php"}
	if len(c.IDs()) != len(want) {
		t.Errorf("catalog has %v, want %v", c.IDs(), want)
	}
	names := map[string]string{}
	for _, id := range want {
		l, err := c.Lookup(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if err := l.validate(); err != nil || len(l.Version) == 0 || len(l.Extensions) == 0 || l.Name == "" {
			t.Errorf("%s: incomplete entry (%v): %+v", id, err, l)
		}
		for _, n := range append([]string{id}, l.Aliases...) {
			if other, dup := names[n]; dup {
				t.Errorf("%q names both %s and %s", n, other, id)
			}
			names[n] = id
		}
		for _, e := range l.Extensions {
			if e != strings.ToLower(e) || !strings.HasPrefix(e, ".") {
				t.Errorf("%s: extension %q is not a lower-case .ext", id, e)
			}
		}
	}
	for alias, id := range map[string]string{"c17": "c", "cpp17": "cpp", "c++20": "cpp20", "c++23": "cpp23", "pas": "pascal",
		"hs": "haskell", "ml": "ocaml", "rb": "ruby", "pl": "perl", "plg": "prolog", "adb": "ada", "f95": "fortran", "cs": "csharp", "golang": "go"} {
		if l, err := c.Lookup(alias); err != nil || l.ID != id {
			t.Errorf("alias %s: %v %v, want %s", alias, l, err, id)
		}
	}
	for file, id := range map[string]string{
		"a.c": "c", "a.cpp": "cpp", "a.py": "python3", "a.pl": "perl", "a.plg": "prolog", "a.R": "r", "a.pas": "pascal",
		"a.hs": "haskell", "a.ml": "ocaml", "a.rb": "ruby", "a.lua": "lua", "a.adb": "ada", "a.f90": "fortran", "a.awk": "awk",
		"a.bash": "bash", "a.sh": "sh", "a.cs": "csharp", "Main.scala": "scala", "a.php": "php",
		// a second extension naming a language that has the extension
		"sum.cpp20.cpp": "cpp20", "sum.c++23.cc": "cpp23", "sum.c11.c": "c11", "sum.pypy3.py": "pypy3", "sum.prolog.pl": "prolog",
		// ... and one that does not, or names no language: the default
		"sum.c.cpp": "cpp", "a.b.py": "python3", "sum.java.py": "python3",
	} {
		l, err := c.ByExtension(file)
		if err != nil || l.ID != id {
			t.Errorf("%s: %v %v, want %s", file, l, err, id)
		}
	}
}

// A language whose compiler is there but whose runtime is not (mcs
// without mono) is unavailable, with ErrNotInstalled naming the runtime.
func TestToolPathNeedsRuntime(t *testing.T) {
	l := &Language{ID: "x", Source: "x.x", Compile: []string{"sh", "-n", "{main}"}, Run: []string{"docket-no-such-runtime", "{main}"}}
	_, err := l.ToolPath()
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "docket-no-such-runtime") {
		t.Errorf("missing runtime: %v", err)
	}
	l.Run = []string{"sh", "{main}"}
	if _, err := l.ToolPath(); err != nil {
		t.Errorf("sh and sh: %v", err)
	}
	l.Compile = []string{"/nonexistent/docket-cc"}
	if _, err := l.ToolPath(); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("missing compiler: %v", err)
	}
	if a := l.Probe(context.Background()); a.Available || !strings.Contains(a.Reason, "docket-cc") {
		t.Errorf("probe of a missing compiler: %+v", a)
	}
}

func TestOverrideFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "langs.yaml")
	os.WriteFile(f, []byte(`languages:
  - id: cpp
    time_multiplier: 1.25
  - id: lua53
    name: Lua 5.3
    extensions: [.lua]
    source: main.lua
    run: [lua5.3, "{main}"]
    version: [lua5.3, -v]
`), 0o644)
	c, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	cpp, _ := c.Lookup("cpp")
	if cpp.TimeMultiplier != 1.25 || len(cpp.Compile) == 0 {
		t.Errorf("override lost fields: %+v", cpp)
	}
	lua, err := c.Lookup("lua53")
	if err != nil || lua.Run[0] != "lua5.3" {
		t.Errorf("new language: %v %+v", err, lua)
	}
	// An operator turns a syntax check off with an empty compile.
	os.WriteFile(f, []byte("languages:\n  - id: python3\n    compile: []\n"), 0o644)
	if c, err := Load(f); err != nil {
		t.Error(err)
	} else if py, _ := c.Lookup("python3"); py.Compiled() || len(py.Run) == 0 {
		t.Errorf("compile: [] kept the check or lost the run: %+v", py)
	}
	os.WriteFile(f, []byte("languages:\n  - id: cpp\n    tme_multiplier: 2\n"), 0o644)
	if _, err := Load(f); err == nil {
		t.Error("a misspelt key was accepted")
	}
}

func TestExpand(t *testing.T) {
	got := Expand([]string{"g++", "-o", "{exe}", "{files}", "-Xmx{memory_mb}m", "{main}"}, map[string]string{"exe": "main", "memory_mb": "256", "main": "a.cpp"}, []string{"a.cpp", "b.cpp"})
	if strings.Join(got, " ") != "g++ -o main ./a.cpp ./b.cpp -Xmx256m ./a.cpp" {
		t.Errorf("%v", got)
	}
}

// The rule for file names: ordinary names as DOMjudge and Kattis accept
// them pass; anything a tool could read as an option or an option file,
// or that is not one plain portable name, is refused with ErrFileName.
func TestValidFileName(t *testing.T) {
	for _, n := range []string{"main.c", "Main.java", "sol_1.cpp", "a-b.py", "a+b.c++", "_x.rs", "x", "1.in", "A.B.C", strings.Repeat("a", MaxFileName)} {
		if err := ValidFileName(n); err != nil {
			t.Errorf("%q refused: %v", n, err)
		}
	}
	for _, n := range []string{"", "-o", "--help", "-fplugin=x.so", "@opts", "@x.rs", ".", "..", ".hidden", "+x", "a/b", "a\\b",
		"a b", "a\x00b", "a\nb", "a'b", "a\"b", "a$b", "a*b", "a:b", "ä.py", "a\tb", strings.Repeat("a", MaxFileName+1)} {
		err := ValidFileName(n)
		if !errors.Is(err, ErrFileName) {
			t.Errorf("%q: %v, want ErrFileName", n, err)
			continue
		}
		if len(err.Error()) > 300 {
			t.Errorf("%q: an error of %d bytes", n, len(err.Error()))
		}
	}
}

// Every file argument of every built-in compile and run command is
// ./name, whatever the names: a name like an option (-o, @opts) stays a
// file for every toolchain. The names here are the hostile ones the rule
// refuses, as if it had let them through; the same command expanded with
// harmless names shows which arguments are file names.
func TestExpandFileArguments(t *testing.T) {
	hostile := []string{"-o", "@opts", "-wrapper", "--", "-fplugin=x.so"}
	harmless := []string{"f0", "f1", "f2", "f3", "f4"}
	c := Builtin()
	for _, id := range c.IDs() {
		l, _ := c.Lookup(id)
		for _, tmpl := range [][]string{l.Compile, l.Run} {
			for k := range hostile {
				bad := Expand(tmpl, fileVars(hostile[k]), hostile)
				good := Expand(tmpl, fileVars(harmless[k]), harmless)
				if len(bad) != len(good) {
					t.Fatalf("%s: %q and %q differ in length", id, bad, good)
				}
				files := 0
				for i := range bad {
					if bad[i] == good[i] {
						continue // not a file name
					}
					files++
					if !strings.HasPrefix(bad[i], "./") || !contains(hostile, strings.TrimPrefix(bad[i], "./")) {
						t.Errorf("%s: argument %d is %q, not ./name: %q", id, i, bad[i], bad)
					}
				}
				if files != wantFileArgs(tmpl, len(hostile)) {
					t.Errorf("%s: %q has %d file arguments, want %d", id, bad, files, wantFileArgs(tmpl, len(hostile)))
				}
			}
		}
	}
}

func fileVars(main string) map[string]string {
	return map[string]string{"exe": "main", "main": main, "class": "Main", "memory_mb": "256"}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// wantFileArgs: {files} gives every file, {main} one.
func wantFileArgs(tmpl []string, files int) int {
	n := 0
	for _, a := range tmpl {
		switch a {
		case "{files}":
			n += files
		case "{main}":
			n++
		}
	}
	return n
}
