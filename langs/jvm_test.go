package langs

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestValidClassName(t *testing.T) {
	for _, ok := range []string{"Main", "contest.a.Sol", "Outer$Inner", "_x1", "$", "Ünï.Cöde"} {
		if !ValidClassName(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", "-cp", "@opts", "1Main", "a..b", ".Main", "Main.", "a/b", "a b", "Main;", strings.Repeat("a", MaxClassName+1)} {
		if ValidClassName(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

// An entry point is a file name or a class name; anything else is
// refused with ErrEntryPoint.
func TestValidEntryPoint(t *testing.T) {
	for _, ok := range []string{"main.py", "a+b.c++", "contest.a.Sol", "Outer$Inner"} {
		if err := ValidEntryPoint(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-c", "@x", "../a.py", "a b", "-" + strings.Repeat("x", 300)} {
		err := ValidEntryPoint(bad)
		if !errors.Is(err, ErrEntryPoint) {
			t.Errorf("%q: %v, want ErrEntryPoint", bad, err)
		} else if len(err.Error()) > 300 {
			t.Errorf("%q: the message is not cut short: %d bytes", bad, len(err.Error()))
		}
	}
}

// MainClasses finds the mains among the class files of a tree, packages
// included, passing over the files named in skip and files that are not
// class files.
func TestMainClasses(t *testing.T) {
	dir := t.TempDir()
	copyClass := func(from, to string) {
		b, err := os.ReadFile(filepath.Join("classfile/testdata", from))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyClass("Sol.class", "contest/a/Sol.class")
	copyClass("Helper.class", "Helper.class")
	copyClass("Helper$Inner.class", "Helper$Inner.class")
	copyClass("TkKt.class", "Submitted.class") // a file of the submission: skipped
	os.WriteFile(filepath.Join(dir, "Junk.class"), []byte("not a class"), 0o644)
	got, err := MainClasses(dir, map[string]bool{"Submitted.class": true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Helper$Inner", "contest.a.Sol"}; !reflect.DeepEqual(got, want) {
		t.Errorf("mains %q, want %q", got, want)
	}
}

func TestChooseMainClass(t *testing.T) {
	for _, c := range []struct {
		mains               []string
		entry, source, want string
		note                bool
	}{
		{[]string{"Main"}, "", "Main.java", "Main", false},
		{[]string{"a.Sol", "b.Other"}, "", "Sol.java", "a.Sol", true},
		{[]string{"A", "B"}, "", "Main.java", "A", true},
		{[]string{"A", "SolKt"}, "", "sol.kt", "SolKt", true},
		{[]string{"A", "B"}, "B", "Main.java", "B", false},
		{[]string{"x.Main", "y.Main"}, "", "Main.java", "x.Main", true}, // two named so: the first
	} {
		got, note, err := ChooseMainClass(c.mains, c.entry, c.source)
		if err != nil || got != c.want || (note != "") != c.note {
			t.Errorf("%q entry %q source %s: %q, note %q, %v; want %q", c.mains, c.entry, c.source, got, note, err, c.want)
		}
	}
	if _, _, err := ChooseMainClass(nil, "", "Main.java"); !errors.Is(err, ErrNoMainClass) {
		t.Errorf("no mains: %v, want ErrNoMainClass", err)
	}
	if _, _, err := ChooseMainClass([]string{"A"}, "B", "Main.java"); !errors.Is(err, ErrEntryPoint) {
		t.Errorf("entry without main: %v, want ErrEntryPoint", err)
	}
}

func TestJavaPublicClass(t *testing.T) {
	for src, want := range map[string]string{
		"import java.util.*;\npublic class Solution {\n public static void main(String[] a){}\n}": "Solution",
		"package a.b;\n\npublic final class Sol {}":                                               "Sol",
		"class Helper {}\nclass A { public static void main(String[] a){} }":                      "",
		"public record Point(int x, int y) {}":                                                    "Point",
	} {
		if got := JavaPublicClass([]byte(src)); got != want {
			t.Errorf("%q: %q, want %q", src, got, want)
		}
	}
}

// An operator's JVM language runs {class} only with find_main_class, and
// can give the OOM exit code; the built-in Java, Kotlin and Scala have both.
func TestJVMLanguageFields(t *testing.T) {
	f := filepath.Join(t.TempDir(), "langs.yaml")
	os.WriteFile(f, []byte("languages:\n  - id: groovy\n    extensions: [.groovy]\n    source: main.groovy\n    compile: [groovyc, -d, ., \"{files}\"]\n    run: [java, -cp, ., \"{class}\"]\n"), 0o644)
	if _, err := Load(f); err == nil || !strings.Contains(err.Error(), "find_main_class") {
		t.Errorf("{class} without find_main_class: %v", err)
	}
	os.WriteFile(f, []byte("languages:\n  - id: groovy\n    extensions: [.groovy]\n    source: main.groovy\n    compile: [groovyc, -d, ., \"{files}\"]\n    run: [java, -cp, ., \"{class}\"]\n    find_main_class: true\n    oom_exit_code: 3\n"), 0o644)
	c, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"groovy", "scala", "java", "kotlin"} {
		if l, _ := c.Lookup(id); l == nil || !l.FindMainClass || l.OOMExitCode != 3 {
			t.Errorf("%s: %+v", id, l)
		}
	}
}

// Java's file naming belongs to the language entry, not to its id or
// extension: the built-in java names a source after its public class,
// an operator's language does too with source_naming: public_class (in
// its own extension), and without it keeps the submitted name; an
// unknown rule is refused.
func TestSourceNaming(t *testing.T) {
	src := []byte("package a;\npublic class Sol { public static void main(String[] a) {} }\n")
	f := filepath.Join(t.TempDir(), "langs.yaml")
	os.WriteFile(f, []byte(`languages:
  - id: java21
    extensions: [.java, .j21]
    source: Main.java
    source_naming: public_class
    compile: [javac, -d, ., "{files}"]
    run: [java, -cp, ., "{class}"]
    find_main_class: true
  - id: plainjava
    extensions: [.java]
    source: Main.java
    compile: [javac, -d, ., "{files}"]
    run: [java, -cp, ., "{class}"]
    find_main_class: true
`), 0o644)
	c, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ lang, name, want string }{
		{"java", "main.java", "Sol.java"},
		{"java", "Main.JAVA", "Sol.java"},
		{"java21", "main.java", "Sol.java"},
		{"java21", "x.j21", "Sol.j21"},
		{"plainjava", "main.java", "main.java"},
		{"cpp", "main.cpp", "main.cpp"},
	} {
		l, _ := c.Lookup(tc.lang)
		if got := l.SourceName(tc.name, src); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.lang, tc.name, got, tc.want)
		}
	}
	java, _ := c.Lookup("java")
	if got := java.SourceName("main.java", []byte("class Helper {}\n")); got != "main.java" {
		t.Errorf("no public class: %q, want the name kept", got)
	}
	os.WriteFile(f, []byte("languages:\n  - id: java\n    source_naming: public-class\n"), 0o644)
	if _, err := Load(f); err == nil || !strings.Contains(err.Error(), "source_naming") {
		t.Errorf("an unknown source_naming: %v", err)
	}
}
