package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// walk measures each function from func to its closing brace, names
// methods by their receiver's type (pointer and generic alike), and leaves
// out tests unless asked, testdata and hidden directories.
func TestWalk(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"p/a.go": "package p\n\nfunc F() {\n\t_ = 1\n}\n\ntype T[X any] struct{}\n\n" +
			"func (t *T[X]) M() {}\n\nfunc (T[X]) N() {\n}\n",
		"p/a_test.go":        "package p\n\nfunc helper() {\n}\n",
		"p/testdata/x.go":    "package x\n\nfunc Hidden() {}\n",
		"p/.cache/y.go":      "package y\n\nfunc Hidden() {}\n",
		"p/decl_only.go":     "package p\n\nfunc asm()\n",
		"p/not_go_source.md": "func Nope() {}\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.ToSlash(filepath.Join(root, "p"))
	for _, tc := range []struct {
		tests bool
		want  map[string]int
	}{
		{false, map[string]int{dir + ".F": 3, dir + ".T.M": 1, dir + ".T.N": 2}},
		{true, map[string]int{dir + ".F": 3, dir + ".T.M": 1, dir + ".T.N": 2, dir + ".helper": 2}},
	} {
		found, err := walk(filepath.Join(root, "p"), tc.tests)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, f := range found {
			got[f.name] = f.lines
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("tests=%v: got %v, want %v", tc.tests, got, tc.want)
		}
	}
}

func TestExcept(t *testing.T) {
	var m multi
	m.Set("sandbox/nsinit.decodeRequest")
	m.Set("worker.Worker.handle")
	if !m.has("worker.Worker.handle") || m.has("worker.handle") || m.String() != "sandbox/nsinit.decodeRequest,worker.Worker.handle" {
		t.Errorf("except list %q", m.String())
	}
}
