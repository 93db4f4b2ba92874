package main

import (
	"bufio"
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// importClaim matches the package comments' sentence that says a package
// imports none of the module's packages, or none but a list ("but a/b,
// c and d"), or none outside a directory ("outside sandbox/"). Other
// forms of the sentence are prose, and not checked.
var importClaim = regexp.MustCompile(`(?i)must not import any (?:other package of docket's|of docket's packages)(?: (but|outside) (.*))?`)

// allowedImports reads the claim in a package comment (its text with
// whitespace collapsed): the module-relative paths the package may
// import, a path ending in "/" standing for those beneath it. The list
// is the words that name a package of the module (isPkg), joined by
// commas and "and"; it ends at the first other word or at ';', ':' or
// '.'. ok is false when the comment makes no claim of that form.
func allowedImports(doc string, isPkg func(string) bool) (allowed []string, ok bool) {
	m := importClaim.FindStringSubmatch(doc)
	if m == nil {
		return nil, false
	}
	if m[1] == "" {
		return nil, true
	}
	if strings.EqualFold(m[1], "outside") {
		dir := strings.TrimRight(strings.Fields(m[2] + " ")[0], ",;:.")
		return []string{strings.TrimSuffix(dir, "/") + "/"}, true
	}
	for _, w := range strings.Fields(m[2]) {
		word := strings.TrimRight(w, ",;:.")
		if word == "and" {
			continue
		}
		if !isPkg(word) {
			break
		}
		allowed = append(allowed, word)
		if word != strings.TrimRight(w, ",") {
			break
		}
	}
	return allowed, true
}

// permitted reports whether a module-relative import path is among the
// allowed ones.
func permitted(path string, allowed []string) bool {
	for _, a := range allowed {
		if path == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(path, a)) {
			return true
		}
	}
	return false
}

// moduleImports returns the module-relative paths of the module's
// packages that the files import, each once, in order.
func moduleImports(module string, files []*ast.File) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				continue
			}
			rel, found := strings.CutPrefix(p, module+"/")
			if found && !seen[rel] {
				seen[rel] = true
				out = append(out, rel)
			}
		}
	}
	return out
}

// modulePath reads the module line of root's go.mod, or "" when there is
// none (the import claims are then not checked).
func modulePath(root string) string {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
