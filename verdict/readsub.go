package verdict

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/verdict/problem"
)

// ReadSubmission reads a submission from the host: each path a file, or
// a directory whose regular files are one multi-file submission. Its
// language is lang, or when that is "" the language of the first file
// name (sorted) whose extension the catalog knows, output files
// (output_<codename>.txt) left out; none is an error wrapping
// langs.ErrUnknown, except for a submission of output files alone,
// whose language is "" (a CMS OutputOnly or BatchAndOutput task's).
func ReadSubmission(cat *langs.Catalog, lang string, paths []string) (Submission, error) {
	sub := Submission{Files: map[string][]byte{}}
	for _, p := range paths {
		if err := readSubmissionPath(sub.Files, p); err != nil {
			return sub, err
		}
	}
	if lang == "" {
		names := make([]string, 0, len(sub.Files))
		for n := range sub.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if problem.IsOutputFileName(n) {
				continue // data, whatever its extension
			}
			if l, err := cat.ByExtension(n); err == nil {
				lang = l.ID
				break
			}
		}
		if lang == "" && !OutputFilesAlone(names) {
			return sub, fmt.Errorf("%w: cannot infer the language of %s: give --lang", langs.ErrUnknown, strings.Join(paths, " "))
		}
	}
	sub.Language = lang
	return sub, nil
}

// readSubmissionPath adds the file p, or the regular files of the
// directory p, to files by base name.
func readSubmissionPath(files map[string][]byte, p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		b, err := os.ReadFile(p)
		if err == nil {
			files[filepath.Base(p)] = b
		}
		return err
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p, e.Name()))
		if err != nil {
			return err
		}
		files[e.Name()] = b
	}
	return nil
}

// OutputFilesAlone reports whether names, at least one, are all named as
// output files (output_<codename>.txt): a submission with no program,
// which needs no language (docs/protocol.md, "Output files").
func OutputFilesAlone(names []string) bool {
	for _, n := range names {
		if !problem.IsOutputFileName(n) {
			return false
		}
	}
	return len(names) > 0
}
