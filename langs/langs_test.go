package langs

import (
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
	if _, err := c.Lookup("cobol"); err == nil || !strings.Contains(err.Error(), "unknown language") {
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

func TestOverrideFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "langs.yaml")
	os.WriteFile(f, []byte(`languages:
  - id: cpp
    time_multiplier: 1.25
  - id: lua
    name: Lua 5.4
    extensions: [.lua]
    source: main.lua
    run: [lua5.4, "{main}"]
    version: [lua5.4, -v]
`), 0o644)
	c, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	cpp, _ := c.Lookup("cpp")
	if cpp.TimeMultiplier != 1.25 || len(cpp.Compile) == 0 {
		t.Errorf("override lost fields: %+v", cpp)
	}
	lua, err := c.Lookup("lua")
	if err != nil || lua.Run[0] != "lua5.4" {
		t.Errorf("new language: %v %+v", err, lua)
	}
	os.WriteFile(f, []byte("languages:\n  - id: cpp\n    tme_multiplier: 2\n"), 0o644)
	if _, err := Load(f); err == nil {
		t.Error("a misspelt key was accepted")
	}
}

func TestJavaMainClass(t *testing.T) {
	for src, want := range map[string]string{
		"import java.util.*;\npublic class Solution {\n public static void main(String[] a){}\n}": "Solution",
		"class Helper {}\nclass A { public static void main(String[] a){} }":                      "Helper",
		"final class X {}\npublic final class Main { static public void main(String[] a){} }":     "Main",
	} {
		got, err := JavaMainClass([]byte(src))
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", src, got, err, want)
		}
	}
	if _, err := JavaMainClass([]byte("class A {}")); err == nil {
		t.Error("no main accepted")
	}
}

func TestExpand(t *testing.T) {
	got := Expand([]string{"g++", "-o", "{exe}", "{files}", "-Xmx{memory_mb}m"}, map[string]string{"exe": "main", "memory_mb": "256"}, []string{"a.cpp", "b.cpp"})
	if strings.Join(got, " ") != "g++ -o main a.cpp b.cpp -Xmx256m" {
		t.Errorf("%v", got)
	}
}
