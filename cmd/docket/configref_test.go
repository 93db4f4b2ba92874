package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is the repository root, seen from cmd/docket.
const moduleRoot = "../.."

func TestConfigReferenceUpToDate(t *testing.T) {
	var want bytes.Buffer
	if err := writeConfigReference(&want); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "config.md"))
	if err != nil {
		t.Fatalf("docs/config.md: %v (run `make docs`)", err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
		i := 0
		for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
			i++
		}
		line := func(ls []string) string {
			if i < len(ls) {
				return ls[i]
			}
			return "(end of file)"
		}
		t.Fatalf("docs/config.md differs from `docket config reference` at line %d:\n  file:      %s\n  generated: %s\nrun `make docs`", i+1, line(gl), line(wl))
	}
}

// TestConfigGroups checks that the reference covers every configuration
// struct and that its hand-kept parts still match the code.
func TestConfigGroups(t *testing.T) {
	files, err := parseModule(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for _, g := range envGroups {
		registered[reflect.TypeOf(g.spec).Elem().Name()] = true
	}
	structs := envconfigStructs(files)
	if len(structs) == 0 {
		t.Fatal("found no struct with envconfig tags: the scan is broken")
	}
	for name, pos := range structs {
		if !registered[name] {
			t.Errorf("%s: struct %s has envconfig tags but is not in envGroups (cmd/docket/configref.go)", pos, name)
		}
	}
	defaults := map[string]string{}
	for _, g := range envGroups {
		vars, err := structVars(g.spec)
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]bool{}
		for _, v := range vars {
			keys[v.key] = true
			// One variable in two structs must mean one thing.
			if d, ok := defaults[v.key]; ok && d != v.def {
				t.Errorf("%s has default %q in one struct and %q in %s", v.key, d, v.def, g.title)
			}
			defaults[v.key] = v.def
		}
		for _, c := range g.commands {
			if _, ok := commands[strings.Fields(c)[0]]; !ok {
				t.Errorf("%s: command %q is not registered", g.title, c)
			}
		}
		for k, cmds := range g.usedBy {
			if !keys[k] {
				t.Errorf("%s: usedBy names %s, which its struct does not have", g.title, k)
			}
			for _, c := range cmds {
				if !slices.Contains(g.commands, c) {
					t.Errorf("%s: %s is used by %q, which does not read the struct", g.title, k, c)
				}
			}
		}
	}
}

// TestGetenvDocumented fails on a DOCKET_* variable read with os.Getenv
// or os.LookupEnv outside tests that the reference does not list, and on
// a listed internal variable that nothing reads any more.
func TestGetenvDocumented(t *testing.T) {
	files, err := parseModule(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	reads := docketEnvReads(files)
	documented := map[string]bool{}
	for _, g := range envGroups {
		vars, err := structVars(g.spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vars {
			documented[v.key] = true
		}
	}
	for _, v := range internalEnv {
		if documented[v.name] {
			t.Errorf("%s is both configuration and internal", v.name)
		}
		if len(reads[v.name]) == 0 {
			t.Errorf("internalEnv lists %s, which no code reads any more: drop it", v.name)
		}
		documented[v.name] = true
	}
	names := make([]string, 0, len(reads))
	for n := range reads {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !documented[n] {
			t.Errorf("%s reads %s, which is in no configuration struct and not in internalEnv: move it into a struct, or list it there with a reason", strings.Join(reads[n], ", "), n)
		}
	}
}

// TestGetenvScanFindsReads proves the scan sees both forms a read takes:
// a literal and a package constant, under any import name.
func TestGetenvScanFindsReads(t *testing.T) {
	dir := t.TempDir()
	src := `package x

import (
	"fmt"
	osx "os"
)

const guard = "DOCKET_FROM_CONST"

func f() {
	fmt.Println(osx.Getenv("DOCKET_FROM_LITERAL"), osx.Getenv(guard), osx.Getenv("HOME"))
	_, _ = osx.LookupEnv("DOCKET_LOOKED_UP")
}
`
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// A test file is not scanned.
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte("package x\nimport \"os\"\nvar _ = os.Getenv(\"DOCKET_IN_TEST\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := parseModule(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for n := range docketEnvReads(files) {
		got = append(got, n)
	}
	sort.Strings(got)
	want := []string{"DOCKET_FROM_CONST", "DOCKET_FROM_LITERAL", "DOCKET_LOOKED_UP"}
	if !slices.Equal(got, want) {
		t.Fatalf("scan found %v, want %v", got, want)
	}
}

type parsedFile struct {
	path string
	dir  string
	file *ast.File
}

// parseModule parses every non-test Go file under root, skipping
// testdata and hidden directories.
func parseModule(root string) ([]parsedFile, error) {
	fset := token.NewFileSet()
	var out []parsedFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, parsedFile{path: rel, dir: filepath.Dir(rel), file: f})
		return nil
	})
	return out, err
}

// envconfigStructs returns the named struct types with an envconfig tag
// on any field, with where each is declared.
func envconfigStructs(files []parsedFile) map[string]string {
	out := map[string]string{}
	for _, pf := range files {
		ast.Inspect(pf.file, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, f := range st.Fields.List {
				if f.Tag != nil && strings.Contains(f.Tag.Value, `envconfig:"`) {
					out[ts.Name.Name] = pf.path
					break
				}
			}
			return true
		})
	}
	return out
}

// docketEnvReads finds os.Getenv and os.LookupEnv calls whose argument is
// a DOCKET_* string literal or a constant of the same package, by name
// read, with the files that read it.
func docketEnvReads(files []parsedFile) map[string][]string {
	consts := map[string]map[string]string{} // package dir -> const name -> value
	for _, pf := range files {
		for _, decl := range pf.file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if s, ok := stringLit(vs.Values[i]); ok {
							if consts[pf.dir] == nil {
								consts[pf.dir] = map[string]string{}
							}
							consts[pf.dir][name.Name] = s
						}
					}
				}
			}
		}
	}
	reads := map[string][]string{}
	for _, pf := range files {
		osName := ""
		for _, imp := range pf.file.Imports {
			if imp.Path.Value == `"os"` {
				osName = "os"
				if imp.Name != nil {
					osName = imp.Name.Name
				}
			}
		}
		if osName == "" {
			continue
		}
		ast.Inspect(pf.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != osName {
				return true
			}
			name, ok := stringLit(call.Args[0])
			if id, isIdent := call.Args[0].(*ast.Ident); isIdent {
				name, ok = consts[pf.dir][id.Name]
			}
			if ok && strings.HasPrefix(name, "DOCKET_") && !slices.Contains(reads[name], pf.path) {
				reads[name] = append(reads[name], pf.path)
			}
			return true
		})
	}
	return reads
}

func stringLit(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(bl.Value)
	return s, err == nil
}
