// Command doccheck fails when a Go package under the given directories
// lacks a package comment, when that comment has no sentence saying what
// the package must not import (the phrase "must not import"), or when an
// exported identifier has no doc comment: `make lint` runs it over the
// module so that godoc answers what each package is for and where it sits.
// staticcheck's ST1000 and ST1020-ST1022 check the form of the comments
// that exist; this checks that they exist. Test files, generated files,
// testdata and hidden directories are left out. A method counts when both
// it and its receiver's type are exported; a type, constant or variable
// in a parenthesised group is documented by its own comment or the
// group's.
//
// Where the sentence has the form "must not import any other package of
// docket's", "... any of docket's packages but a/b and c" or "... outside
// d/", the package's imports (tests left out) are held to it.
//
// It must not import any of docket's packages: it reads source, nothing
// else.
//
//	go run ./internal/tools/doccheck .
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

// notImportPhrase is what a package comment must contain: the sentence
// that says which packages this one must not import.
const notImportPhrase = "must not import"

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: doccheck DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var all []string
	for _, root := range flag.Args() {
		found, err := check(root)
		if err != nil {
			fmt.Fprintln(os.Stderr, "doccheck:", err)
			os.Exit(2)
		}
		all = append(all, found...)
	}
	for _, f := range all {
		fmt.Println(f)
	}
	if len(all) > 0 {
		fmt.Printf("doccheck: %d missing doc comments\n", len(all))
		os.Exit(1)
	}
}

// pkgKey tells packages apart: a directory may hold a package and its
// external test package, and only the first is checked.
type pkgKey struct{ dir, name string }

// check parses the Go files beneath root and returns one line per
// finding, sorted.
func check(root string) ([]string, error) {
	fset := token.NewFileSet()
	pkgs := map[pkgKey][]*ast.File{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		k := pkgKey{filepath.Dir(p), f.Name.Name}
		pkgs[k] = append(pkgs[k], f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	mod := moduleInfo{root: root, path: modulePath(root), pkgs: map[string]bool{}}
	for k := range pkgs {
		mod.pkgs[mod.rel(k.dir)] = true
	}
	var out []string
	for k, files := range pkgs {
		out = append(out, checkPackage(fset, k, files)...)
		out = append(out, mod.checkImports(k, files)...)
	}
	sort.Strings(out)
	return out, nil
}

// moduleInfo is what checking a package's import claim needs of the
// module: its path, root directory and packages (module-relative, slash
// separated).
type moduleInfo struct {
	root, path string
	pkgs       map[string]bool
}

// rel returns a directory's path relative to the module root, slash
// separated.
func (m moduleInfo) rel(dir string) string {
	r, err := filepath.Rel(m.root, dir)
	if err != nil {
		return dir
	}
	return filepath.ToSlash(r)
}

// checkImports holds a package's real imports of the module's packages
// to what its comment says it must not import (allowedImports' forms).
func (m moduleInfo) checkImports(k pkgKey, files []*ast.File) []string {
	if m.path == "" {
		return nil
	}
	allowed, ok := allowedImports(docText(files), func(p string) bool { return m.pkgs[p] })
	if !ok {
		return nil
	}
	var out []string
	for _, imp := range moduleImports(m.path, files) {
		if !permitted(imp, allowed) {
			out = append(out, fmt.Sprintf("%s: package %s imports %s, which its comment says it %s", k.dir, k.name, imp, notImportPhrase))
		}
	}
	return out
}

// docText is the package comment of the files, whitespace collapsed.
func docText(files []*ast.File) string {
	var doc strings.Builder
	for _, f := range files {
		if f.Doc != nil {
			doc.WriteString(f.Doc.Text())
			doc.WriteString(" ")
		}
	}
	return strings.Join(strings.Fields(doc.String()), " ")
}

// skipDir reports whether the go command would leave a directory out of
// ./... (testdata, hidden and underscore directories).
func skipDir(name string) bool {
	return name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// checkPackage checks one package's comment and its files' exported
// identifiers.
func checkPackage(fset *token.FileSet, k pkgKey, files []*ast.File) []string {
	var out []string
	doc := docText(files)
	switch {
	case doc == "":
		out = append(out, fmt.Sprintf("%s: package %s has no package comment", k.dir, k.name))
	case !strings.Contains(strings.ToLower(doc), notImportPhrase):
		out = append(out, fmt.Sprintf("%s: package %s's comment does not say what it %s", k.dir, k.name, notImportPhrase))
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			for _, name := range undocumented(decl) {
				out = append(out, fmt.Sprintf("%s: exported %s has no doc comment", fset.Position(name.Pos()), name.Name))
			}
		}
	}
	return out
}

// undocumented returns the exported names a declaration introduces
// without a doc comment.
func undocumented(decl ast.Decl) []*ast.Ident {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if d.Doc == nil && d.Name.IsExported() && (d.Recv == nil || receiverExported(d.Recv)) {
			return []*ast.Ident{d.Name}
		}
	case *ast.GenDecl:
		if d.Doc != nil || d.Tok == token.IMPORT {
			return nil
		}
		var out []*ast.Ident
		for _, spec := range d.Specs {
			out = append(out, undocumentedSpec(spec)...)
		}
		return out
	}
	return nil
}

// undocumentedSpec returns the exported names of a type or value spec
// that has no comment of its own (its group has none either).
func undocumentedSpec(spec ast.Spec) []*ast.Ident {
	var out []*ast.Ident
	switch s := spec.(type) {
	case *ast.TypeSpec:
		if s.Doc == nil && s.Name.IsExported() {
			out = append(out, s.Name)
		}
	case *ast.ValueSpec:
		if s.Doc != nil {
			return nil
		}
		for _, n := range s.Names {
			if n.IsExported() {
				out = append(out, n)
			}
		}
	}
	return out
}

// receiverExported reports whether a method's receiver type (T, *T,
// T[X], *T[X, Y]) is exported: methods of unexported types are not in
// godoc.
func receiverExported(recv *ast.FieldList) bool {
	if len(recv.List) == 0 {
		return false
	}
	t := recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
