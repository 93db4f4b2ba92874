package problem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// include/<language>/ is read as problemtools reads it: a directory per
// language, its files (a link inside the package read through), sorted.
func TestIncludesLoaded(t *testing.T) {
	p, err := Load("../../problems/grader-include")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range []string{"cpp", "java", "python3"} {
		for _, inc := range p.Includes[d] {
			got = append(got, d+"/"+inc.Name)
		}
	}
	if strings.Join(got, " ") != "cpp/add.h cpp/grader.cpp java/Main.java python3/main.py" || len(p.Includes) != 3 {
		t.Errorf("includes %v (%d directories)", got, len(p.Includes))
	}
}

// What include/ cannot be is a load error naming it, never left out: a
// file beside the language directories, a subdirectory (the box has one
// level), a name that could become a compiler's option, an empty
// directory.
func TestIncludesRefused(t *testing.T) {
	base := map[string]string{"problem.yaml": "name: x\n", "data/sample/1.in": "1\n", "data/sample/1.ans": "1\n"}
	for _, c := range []struct{ name, file, want string }{
		{"file at the top", "include/grader.cpp", "include/grader.cpp: include/ holds one directory per language"},
		{"subdirectory", "include/cpp/lib/x.h", "include/cpp/lib: a directory"},
		{"option-like name", "include/cpp/-wrapper.h", `include/cpp/-wrapper.h: invalid file name`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "p")
			write(t, d, base)
			write(t, d, map[string]string{c.file: "x\n"})
			if _, err := Load(d); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load: %v, want %q", err, c.want)
			}
		})
	}
	d := filepath.Join(t.TempDir(), "p")
	write(t, d, base)
	os.MkdirAll(filepath.Join(d, "include/cpp"), 0o755)
	if _, err := Load(d); err == nil || !strings.Contains(err.Error(), "include/cpp: empty") {
		t.Fatalf("empty include/cpp: %v", err)
	}
}
