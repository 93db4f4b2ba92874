// Command funclen lists the functions of the Go packages under the given
// directories that are longer than a limit (lines from the func keyword
// to the closing brace, comments included), longest first, and exits 1
// when there is one: `make lint` keeps sandbox/ and worker/ readable one
// screen at a time.
//
// It must not import any of docket's packages: it reads source, nothing
// else.
//
//	go run ./internal/tools/funclen -max 80 -except sandbox/nsinit.decode sandbox worker
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type fn struct {
	name  string // dir.Func or dir.Type.Method
	where string
	lines int
}

func main() {
	max := flag.Int("max", 80, "longest function allowed, in lines")
	tests := flag.Bool("tests", false, "include _test.go files")
	top := flag.Int("top", 0, "also print the N longest functions")
	var except multi
	flag.Var(&except, "except", "dir.Func or dir.Type.Method allowed to be longer (repeatable)")
	flag.Parse()
	var all []fn
	for _, root := range flag.Args() {
		found, err := walk(root, *tests)
		if err != nil {
			fmt.Fprintln(os.Stderr, "funclen:", err)
			os.Exit(2)
		}
		all = append(all, found...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].lines > all[j].lines })
	for i := 0; i < *top && i < len(all); i++ {
		fmt.Printf("%4d  %s  %s\n", all[i].lines, all[i].name, all[i].where)
	}
	bad := 0
	for _, f := range all {
		if f.lines > *max && !except.has(f.name) {
			fmt.Printf("too long: %s (%d lines, max %d) at %s\n", f.name, f.lines, *max, f.where)
			bad++
		}
	}
	if bad > 0 {
		os.Exit(1)
	}
}

// walk parses every Go file beneath root.
func walk(root string, tests bool) ([]fn, error) {
	var out []fn
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || (!tests && strings.HasSuffix(p, "_test.go")) {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if d, ok := decl.(*ast.FuncDecl); ok && d.Body != nil {
				start, end := fset.Position(d.Pos()), fset.Position(d.End())
				out = append(out, fn{name: filepath.ToSlash(filepath.Dir(p)) + "." + funcName(d),
					where: fmt.Sprintf("%s:%d", p, start.Line), lines: end.Line - start.Line + 1})
			}
		}
		return nil
	})
	return out, err
}

func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }
func (m multi) has(v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}
