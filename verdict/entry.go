package verdict

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/docketjudge/docket/langs"
)

// entryPoint is what starts a program: its main source file (languages
// with one), or its main class (find_main_class languages). Empty parts
// are found by the per-language rules (docs/languages.md).
type entryPoint struct {
	file  string
	class string
}

// submissionEntry reads a submission's entry point for its language. A
// file must be one of the submission's sources; a class must be a class
// name (whether it has a main is known after compiling). A refused one
// comes with the reason, a CE log.
func submissionEntry(lang *langs.Language, files map[string][]byte, entry string) (entryPoint, string) {
	switch {
	case entry == "":
		return entryPoint{}, ""
	case lang.FindMainClass:
		if !langs.ValidClassName(entry) {
			return entryPoint{}, fmt.Sprintf("entry point %q: %s runs a class; give its fully qualified name (pkg.Main)", entry, lang.Name)
		}
		return entryPoint{class: entry}, ""
	}
	if _, ok := files[entry]; ok && hasExt(entry, lang.Extensions) {
		return entryPoint{file: entry}, ""
	}
	return entryPoint{}, fmt.Sprintf("entry point %q is not a %s source file (%s) of the submission: %s",
		entry, lang.Name, strings.Join(lang.Extensions, ", "), strings.Join(sortedKeys(files), ", "))
}

// withMainClass finds a compiled program's main class ({class}): the
// entry point's, or per langs.ChooseMainClass. No main class, or no such
// entry point, is the submission's failure (CE, the reason in the log);
// a note (several mains) goes to the log too.
func withMainClass(b *built, cr CompileResult, class string, submitted map[string][]byte) (*built, CompileResult, error) {
	note, err := findMainClass(b, class, submitted)
	switch {
	case errors.Is(err, langs.ErrEntryPoint), errors.Is(err, langs.ErrNoMainClass), errors.Is(err, langs.ErrTooManyClasses):
		cr.OK = false
		cr.Log = strings.TrimSpace(cr.Log + "\n[docket] " + err.Error())
		return nil, cr, nil
	case err != nil:
		return nil, cr, fmt.Errorf("finding the main class: %w", err)
	case note != "":
		cr.Log = strings.TrimSpace(cr.Log + "\n[docket] " + note)
	}
	return b, cr, nil
}

// findMainClass sets b's {class} from the classes the compiler made (the
// submission's own files, class files among them, do not count).
func findMainClass(b *built, class string, submitted map[string][]byte) (note string, err error) {
	skip := map[string]bool{}
	for n := range submitted {
		skip[n] = true
	}
	mains, err := langs.MainClasses(b.dir, skip)
	if err != nil {
		return "", err
	}
	c, note, err := langs.ChooseMainClass(mains, class, b.vars["main"])
	if err != nil {
		return "", err
	}
	b.vars["class"] = c
	return note, nil
}

// nameSources renames each source as its language requires
// (langs.Language.SourceName: Sol.java for Java's `public class Sol`,
// whatever its package), unless that name is taken; it returns the main
// source's name after renaming. The caller's map is not changed.
func nameSources(lang *langs.Language, s *sourceSet, main string) string {
	cloned := false
	for _, n := range append([]string(nil), s.sources...) {
		want := lang.SourceName(n, s.files[n])
		if n == want {
			continue
		}
		if _, taken := s.files[want]; taken {
			continue // the compiler says which class is in the wrong file
		}
		if !cloned {
			s.files, cloned = cloneFiles(s.files), true
		}
		s.files[want] = s.files[n]
		delete(s.files, n)
		s.sources = replace(s.sources, n, want)
		if main == n {
			main = want
		}
	}
	return main
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
