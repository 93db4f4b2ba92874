package problem

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ExampleSubmission is one program of a package's submissions/: a file,
// or a directory holding a multi-file program, under the directory named
// for the verdict it expects (accepted, wrong_answer, ...).
type ExampleSubmission struct {
	Expect string // the directory: accepted, wrong_answer, ...
	Rel    string // Expect/name
	Path   string // the file or directory
	// Language is the catalog id its package names (a Polygon source
	// type); "" for the language of its extension.
	Language string
}

// ExampleSubmissions lists the programs under dir/submissions/<expected>/
// (a TPS task's solutions/<category>/ when it has no submissions/),
// sorted by Rel; hidden files and notes (.md) are not programs. A
// Polygon package without submissions/ has its solutions, each under its
// tag (main/sol.cpp), in problem.xml's order; do-not-run ones are left
// out. An error wraps fs.ErrNotExist when the package has neither.
func ExampleSubmissions(dir string) ([]ExampleSubmission, error) {
	root := filepath.Join(dir, "submissions")
	if _, err := os.Stat(root); os.IsNotExist(err) && isPolygon(dir) {
		return polygonSubmissions(dir)
	}
	if _, err := os.Stat(root); os.IsNotExist(err) && isTPSTask(dir) {
		root = filepath.Join(dir, "solutions") // a TPS task's: solutions/<category>/
	}
	dirs, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []ExampleSubmission
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(root, d.Name()))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			out = append(out, ExampleSubmission{Expect: d.Name(), Rel: d.Name() + "/" + e.Name(), Path: filepath.Join(root, d.Name(), e.Name())})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out, nil
}

// polygonSubmissions are a Polygon package's solutions under their tags.
func polygonSubmissions(dir string) ([]ExampleSubmission, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	l := &loader{dir: abs}
	if l.links = l.checkLinks(); len(l.errs) > 0 {
		return nil, &LoadError{Dir: dir, Errors: l.errs, causes: l.causes}
	}
	b, err := os.ReadFile(filepath.Join(abs, "problem.xml"))
	if err != nil {
		return nil, err
	}
	y, err := parseProblemXML(b)
	if err != nil {
		return nil, fmt.Errorf("problem.xml: %w", err)
	}
	var out []ExampleSubmission
	for _, s := range l.pgSolutions(y.Assets.Solutions) {
		if s.tag != "do-not-run" {
			out = append(out, ExampleSubmission{Expect: s.tag, Rel: s.tag + "/" + filepath.Base(s.rel), Path: s.path, Language: s.lang})
		}
	}
	if len(l.errs) > 0 {
		return nil, &LoadError{Dir: dir, Errors: l.errs, causes: l.causes}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("problem.xml: no solutions: %w", fs.ErrNotExist)
	}
	return out, nil
}
