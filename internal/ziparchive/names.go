package ziparchive

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkName refuses a name that is not a plain relative path of the
// archive's own: the zip format's names use '/', and any other reading
// of one (a backslash or drive letter on Windows, a control byte in a
// terminal, bytes that are no UTF-8) is a name meaning something else.
func checkName(name string, maxDepth int) error {
	switch {
	case name == "" || name == "/":
		return fmt.Errorf("%w: empty", ErrName)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: not valid UTF-8", ErrName)
	case strings.ContainsRune(name, '\\'):
		return fmt.Errorf("%w: a backslash", ErrName)
	case name[0] == '/':
		return fmt.Errorf("%w: absolute", ErrName)
	case len(name) >= 2 && name[1] == ':':
		return fmt.Errorf("%w: a drive letter", ErrName)
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return fmt.Errorf("%w: control character %U", ErrName, r)
		}
	}
	parts := strings.Split(strings.TrimSuffix(name, "/"), "/")
	for _, p := range parts {
		switch {
		case p == "..":
			return fmt.Errorf("%w: a .. element leaves the archive", ErrName)
		case p == "" || p == ".":
			return fmt.Errorf("%w: an empty or . element", ErrName)
		case len(p) > maxElement:
			return fmt.Errorf("%w: an element of %d bytes, more than %d", ErrName, len(p), maxElement)
		}
	}
	if len(parts) > maxDepth {
		return fmt.Errorf("%w: %d levels deep, more than %d", ErrLimit, len(parts), maxDepth)
	}
	return nil
}

// maxElement is the longest name element Linux file systems take.
const maxElement = 255

// macMetadata is the folder macOS's Finder adds to the archives it makes
// (resource forks, as ._name files): no package's content.
const macMetadata = "__MACOSX"

// topFolder returns the one folder every name lies under, or "" when the
// files are at the archive's root.
func topFolder(names []string) string {
	top := ""
	for _, n := range names {
		first, _, found := strings.Cut(n, "/")
		if first == macMetadata {
			continue
		}
		if !found || (top != "" && first != top) {
			return ""
		}
		top = first
	}
	return top
}

// fold is the key under which names that differ only in case meet.
func fold(s string) string { return strings.ToLower(strings.ToUpper(s)) }

// tree is the archive's paths: each file and each directory, explicit or
// implied by a name beneath it, by its case-folded path.
type tree struct {
	dirs  map[string]string // folded -> path
	files map[string]string
	named map[string]bool // the directories the archive names itself
}

func newTree() *tree {
	return &tree{dirs: map[string]string{}, files: map[string]string{}, named: map[string]bool{}}
}

// add records path (a directory when dir), refusing a name the tree has
// (the same, or the same but for case) and a file where a directory is,
// or the other way round.
func (t *tree) add(path string, dir bool) error {
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		if err := t.addDir(strings.Join(parts[:i], "/"), false); err != nil {
			return err
		}
	}
	if dir {
		return t.addDir(path, true)
	}
	k := fold(path)
	if other, ok := t.files[k]; ok {
		return duplicate(path, other)
	}
	if other, ok := t.dirs[k]; ok {
		return fmt.Errorf("%w: a file where the archive has the directory %q", ErrDuplicate, other)
	}
	t.files[k] = path
	return nil
}

// addDir records a directory; explicit says the archive names it itself,
// so that naming it twice is a duplicate, while every file beneath it
// implies it again.
func (t *tree) addDir(path string, explicit bool) error {
	k := fold(path)
	if other, ok := t.files[k]; ok {
		return fmt.Errorf("%w: a directory where the archive has the file %q", ErrDuplicate, other)
	}
	other, ok := t.dirs[k]
	if ok && (other != path || explicit && t.named[k]) {
		return duplicate(path, other)
	}
	t.dirs[k] = path
	t.named[k] = t.named[k] || explicit
	return nil
}

func duplicate(path, other string) error {
	if path == other {
		return fmt.Errorf("%w: the name occurs twice", ErrDuplicate)
	}
	return fmt.Errorf("%w: differs only in case from %q", ErrDuplicate, other)
}
