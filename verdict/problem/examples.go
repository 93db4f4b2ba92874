package problem

import (
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
}

// ExampleSubmissions lists the programs under dir/submissions/<expected>/
// (a TPS task's solutions/<category>/ when it has no submissions/),
// sorted by Rel; hidden files and notes (.md) are not programs. An error
// wraps fs.ErrNotExist when the package has no submissions/.
func ExampleSubmissions(dir string) ([]ExampleSubmission, error) {
	root := filepath.Join(dir, "submissions")
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
