// Package safedir decides whether docket may trust a directory it keeps
// programs or submissions in: its work directory, and its caches of
// compiled checkers and unpacked packages. Whoever can write such a
// directory, or any directory above it, can swap what docket runs as the
// judge (a cached checker that accepts everything) or make docket, as
// root, write through a symbolic link of theirs.
//
// It must not import any other package of docket's.
//
// The rule, for a root directory docket owns and the paths beneath it:
//
//   - every directory above the root is owned by uid 0 or docket's euid,
//     and writable by no one else unless it has the sticky bit (as /tmp
//     has: there no one else can remove or rename what docket owns);
//     a symbolic link there is followed only if such an owner made it;
//   - the root and every level beneath it that docket trusts are owned by
//     docket's euid, writable by neither group nor others, and are no
//     symbolic links.
package safedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrUnsafe means a path fails the rule; errors wrap it with the path
// and why.
var ErrUnsafe = errors.New("not safe for docket to trust")

// maxLinks bounds the symbolic links followed above a root (as ELOOP).
const maxLinks = 40

// Ensure creates root if it is missing (with its parents, mode perm, so
// that a root created here is docket's) and checks it by the rule.
func Ensure(root string, perm fs.FileMode) error {
	if err := os.MkdirAll(root, perm); err != nil {
		return err
	}
	return Path(root, root)
}

// Path checks path, which is root or beneath it: the directories above
// root, root, and every level from root down to path.
func Path(root, path string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	path, err = filepath.Abs(path)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%w: %s is not beneath %s", ErrUnsafe, path, root)
	}
	if err := above(filepath.Dir(root)); err != nil {
		return err
	}
	p := root
	if err := owned(p); err != nil {
		return err
	}
	if rel == "." {
		return nil
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		if err := owned(p); err != nil {
			return err
		}
	}
	return nil
}

// Tree checks dir (already checked by Path) and everything beneath it:
// all owned by docket's euid, writable by neither group nor others, no
// symbolic links.
func Tree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return owned(p)
	})
}

// owned checks one level docket trusts.
func owned(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s is a symbolic link", ErrUnsafe, p)
	}
	uid := owner(fi)
	if uid != os.Geteuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not docket's %d", ErrUnsafe, p, uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by group or others (mode %04o)", ErrUnsafe, p, fi.Mode().Perm())
	}
	return nil
}

// above checks the directories from / down to dir, following symbolic
// links made by uid 0 or docket (their targets get the same checks).
func above(dir string) error {
	parts := split(dir)
	p, links := "/", 0
	if err := ancestor(p); err != nil {
		return err
	}
	for i := 0; i < len(parts); i++ {
		next := filepath.Join(p, parts[i])
		fi, err := os.Lstat(next)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if err := ancestor(next); err != nil {
				return err
			}
			p = next
			continue
		}
		if uid := owner(fi); uid != 0 && uid != os.Geteuid() {
			return fmt.Errorf("%w: %s is a symbolic link of uid %d", ErrUnsafe, next, uid)
		}
		if links++; links > maxLinks {
			return fmt.Errorf("%s: %w", dir, syscall.ELOOP)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(p, target)
		}
		// Walk again from /, the target's parts then the rest.
		parts = append(split(target), parts[i+1:]...)
		p, i = "/", -1
	}
	return nil
}

// ancestor checks one directory above a root.
func ancestor(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafe, p)
	}
	if uid := owner(fi); uid != 0 && uid != os.Geteuid() {
		return fmt.Errorf("%w: %s is owned by uid %d", ErrUnsafe, p, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("%w: %s is writable by group or others and not sticky (mode %04o)", ErrUnsafe, p, fi.Mode().Perm())
	}
	return nil
}

func owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1 // no owner known: never trusted
}

func split(p string) []string {
	var out []string
	for _, s := range strings.Split(filepath.Clean(p), "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
