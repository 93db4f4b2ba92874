package problem

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/docketjudge/docket/langs"
)

// Include is one file of a package's include/<language>/ directory, as
// problemtools reads them (problemtools/model/includes.py): added to
// every submission in that language.
type Include struct {
	Name string // the file's name in the box: include/<language>/<Name>
	Path string // the file to read (a link resolved inside the package)
	// Main marks the program's main file (a CMS grader); otherwise an
	// include named main.* of the language is (problemtools' rule).
	Main bool
}

// IncludeDefault is the include directory whose files every language
// gets, before its own.
const IncludeDefault = "default"

// loadIncludes reads include/: one directory per language, named by the
// language's id (or an alias: the judge resolves it), holding files
// only, each a valid file name. A file in a deeper directory is an
// error, not left out: the box holds one level of files.
func (l *loader) loadIncludes(p *Problem) {
	root := filepath.Join(l.dir, "include")
	dirs, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		l.errorf("include/: %v", err)
		return
	}
	for _, d := range dirs {
		if !d.IsDir() {
			l.errorf("include/%s: include/ holds one directory per language (include/cpp/, include/default/), not files", d.Name())
			continue
		}
		files := l.includeFiles(filepath.Join(root, d.Name()), "include/"+d.Name())
		if len(files) > 0 {
			if p.Includes == nil {
				p.Includes = map[string][]Include{}
			}
			p.Includes[d.Name()] = files
		}
	}
}

func (l *loader) includeFiles(dir, rel string) []Include {
	entries, err := os.ReadDir(dir)
	if err != nil {
		l.errorf("%s: %v", rel, err)
		return nil
	}
	var out []Include
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			l.errorf("%s/%s: a directory; docket adds the files of %s/ itself only, to the box's top level", rel, name, rel)
			continue
		}
		if err := langs.ValidFileName(name); err != nil {
			l.errorf("%s/%s: %v", rel, name, err)
			continue
		}
		path, ok := l.regularFile(rel + "/" + name)
		if !ok {
			l.errorf("%s/%s: not a regular file", rel, name)
			continue
		}
		out = append(out, Include{Name: name, Path: path})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) == 0 {
		l.errorf("%s: empty", rel)
	}
	return out
}
