package problem

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Symbolic links in a package. Kattis packages link files inside the
// package (problemtools' examples link data/secret/subtask2/*.in to
// ../subtask1/): such a link is resolved to the file it names. Every link
// is checked hop by hop, without ever looking at a path outside the
// package: each target must be relative, stay inside the package, exist,
// end at a regular file, and resolve in at most maxLinkHops links.
var (
	// ErrLink is matched by every refused link (errors.Is).
	ErrLink = errors.New("symbolic link refused")

	ErrLinkAbsolute = fmt.Errorf("%w: absolute target", ErrLink)
	ErrLinkOutside  = fmt.Errorf("%w: target outside the package", ErrLink)
	ErrLinkDangling = fmt.Errorf("%w: target does not exist", ErrLink)
	ErrLinkLoop     = fmt.Errorf("%w: too many levels of links (a loop)", ErrLink)
	ErrLinkNotFile  = fmt.Errorf("%w: target is not a regular file (links to directories are not supported)", ErrLink)
)

const maxLinkHops = 40

// LinkError is a refused link: Path is relative to the package.
type LinkError struct {
	Path   string
	Target string // the link's own target, as read
	Err    error  // one of the ErrLink* sentinels
}

// Error names the link, its target and why it was refused.
func (e *LinkError) Error() string {
	return fmt.Sprintf("%s -> %s: %v", e.Path, e.Target, e.Err)
}

// Unwrap returns the ErrLink* sentinel, for errors.Is.
func (e *LinkError) Unwrap() error { return e.Err }

// ResolveLink resolves rel, a path inside the package root that is (or
// goes through) a symbolic link, to the regular file it names, returned
// as a path under root with no link in it. Errors are *LinkError.
func ResolveLink(root, rel string) (string, error) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	target, _ := os.Readlink(filepath.Join(root, rel))
	fail := func(err error) (string, error) {
		return "", &LinkError{Path: rel, Target: target, Err: err}
	}
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return fail(ErrLinkOutside)
	}
	queue := strings.Split(rel, "/")
	var cur []string // resolved components below root, none a link
	hops := 0
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return fail(ErrLinkOutside)
			}
			cur = cur[:len(cur)-1]
			continue
		}
		next := filepath.Join(root, filepath.Join(cur...), c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return fail(ErrLinkDangling)
		}
		if err != nil {
			return "", &LinkError{Path: rel, Target: target, Err: fmt.Errorf("%w: %v", ErrLink, err)}
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if len(queue) > 0 && !fi.IsDir() {
				return fail(ErrLinkDangling)
			}
			cur = append(cur, c)
			continue
		}
		if hops++; hops > maxLinkHops {
			return fail(ErrLinkLoop)
		}
		t, err := os.Readlink(next)
		if err != nil {
			return "", &LinkError{Path: rel, Target: target, Err: fmt.Errorf("%w: %v", ErrLink, err)}
		}
		if filepath.IsAbs(t) {
			return fail(ErrLinkAbsolute)
		}
		// A relative target is read from the link's directory: cur.
		queue = append(strings.Split(filepath.ToSlash(t), "/"), queue...)
	}
	full := filepath.Join(root, filepath.Join(cur...))
	fi, err := os.Lstat(full)
	if err != nil {
		return fail(ErrLinkDangling)
	}
	if !fi.Mode().IsRegular() {
		return fail(ErrLinkNotFile)
	}
	return full, nil
}

// Unread reports whether rel, a path in a package, is one docket never
// reads: a statement or an attachment (problem_statement/, statement/,
// attachments/, solution/, and top-level problem.pdf, problem.en.html
// and the like). A link there that does not resolve inside the package
// is a warning, and the file is left out (of the digest and of the
// pushed archive): DOMjudge's example problems link their problem.pdf
// to a file outside the package. Anywhere else such a link refuses the
// package, since docket judges with what is there: tests, validators,
// includes, graders.
func Unread(rel string) bool {
	rel = filepath.ToSlash(filepath.Clean(rel))
	first, _, nested := strings.Cut(rel, "/")
	switch first {
	case "problem_statement", "statement", "attachments", "solution":
		return true
	}
	if nested {
		return false
	}
	if !strings.HasPrefix(rel, "problem.") {
		return false
	}
	switch strings.ToLower(filepath.Ext(rel)) {
	case ".pdf", ".html", ".htm", ".md", ".tex", ".txt":
		return true
	}
	return false
}

// checkLinks walks the package (submissions/ and .git* left out, as in
// the digest and the archive) and resolves every link, so that nothing
// the loader reads afterwards can lead outside the package. A refused
// link in a path docket never reads (Unread) is a warning and is left
// out; anywhere else it is an error.
func (l *loader) checkLinks() map[string]string {
	links := map[string]string{}
	// The trailing separator: the package's own directory may be a link
	// (the operator's choice, trusted); the walk starts at its target.
	filepath.WalkDir(l.dir+string(filepath.Separator), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			rel, _ := filepath.Rel(l.dir, p)
			l.errorf("%s: %v", rel, err)
			return nil
		}
		rel, _ := filepath.Rel(l.dir, p)
		if d.IsDir() && (rel == "submissions" || strings.HasPrefix(d.Name(), ".git")) {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		full, err := ResolveLink(l.dir, rel)
		if err != nil && Unread(rel) {
			l.warn(Warning{Code: WarnLinkOutside, Paths: []string{rel},
				Message: fmt.Sprintf("%v; docket never reads %s (a statement or an attachment), so it is left out of the package", err, rel)})
			return nil
		}
		if err != nil {
			l.fail(err)
			return nil
		}
		links[rel] = full
		return nil
	})
	return links
}
