package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// copyBack brings what the run changed in the box back to the host box:
// new and changed regular files and directories (with their owner and
// mode), and the removal of what it deleted. Symbolic links and special
// files the run made stay behind: the host box is docket's, and a link
// there could lead docket's later reads anywhere. Every host path is
// resolved beneath the host box (os.Root), never through a link.
//
// It runs after every run with a host box, on the caller's path, so it
// does the least it can: the box is read through directory descriptors
// (a path through the space's /proc/self/fd link costs a lookup in /proc
// per call), an entry docket copied in and the run left alone (its
// stamp: inode, size, change time) is not touched, and the host box is
// opened only once something is to be written there. start is when the
// run started: a stamp taken within a tick of it proves nothing where
// file times are coarse (space_stamps.go).
func (sp *space) copyBack(start time.Time) error { return sp.copyBackAt(start, tmpfsFineCtime()) }

// copyBackAt is copyBack where file times are fine-grained or not.
func (sp *space) copyBackAt(start time.Time, fineCtime bool) error {
	box, err := unix.Openat(int(sp.mnt.Fd()), "box", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("copy the box back: %w", &os.PathError{Op: "open", Path: "box", Err: err})
	}
	b := &backCopy{sp: sp, seen: make(map[string]bool, len(sp.copied)), start: start, fineCtime: fineCtime}
	defer b.close()
	if err := b.walk(box, ""); err != nil {
		return fmt.Errorf("copy the box back: %w", err)
	}
	for rel := range sp.copied {
		if b.seen[rel] {
			continue
		}
		root, err := b.host()
		if err == nil {
			err = root.RemoveAll(rel)
		}
		if err != nil {
			return fmt.Errorf("copy the box back: %w", err)
		}
	}
	return nil
}

// backCopy is one copyBack under way.
type backCopy struct {
	sp        *space
	root      *os.Root        // the host box, once opened (host)
	seen      map[string]bool // the box's entries, by path beneath it
	start     time.Time       // the run's start
	fineCtime bool            // tmpfsFineCtime
}

// host is the host box, opened the first time it is needed.
func (b *backCopy) host() (*os.Root, error) {
	if b.root == nil {
		root, err := os.OpenRoot(b.sp.host)
		if err != nil {
			return nil, err
		}
		b.root = root
	}
	return b.root, nil
}

func (b *backCopy) close() {
	if b.root != nil {
		b.root.Close()
	}
}

// walk copies back what changed beneath the box's directory rel, open
// as dir, which it closes.
func (b *backCopy) walk(dir int, rel string) error {
	d := os.NewFile(uintptr(dir), "box/"+rel)
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := b.entry(dir, name, filepath.Join(rel, name)); err != nil {
			return err
		}
	}
	return nil
}

// entry copies back the entry name of the box's directory dir, at rel.
func (b *backCopy) entry(dir int, name, rel string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &os.PathError{Op: "lstat", Path: rel, Err: err}
	}
	b.seen[rel] = true
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if !b.unchanged(b.sp.dirs, rel, &st) {
			root, err := b.host()
			if err != nil {
				return err
			}
			if err := backDir(root, rel, &st); err != nil {
				return err
			}
		}
		sub, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return &os.PathError{Op: "open", Path: rel, Err: err}
		}
		return b.walk(sub, rel)
	case unix.S_IFREG:
		if b.unchanged(b.sp.copied, rel, &st) {
			return nil
		}
		root, err := b.host()
		if err != nil {
			return err
		}
		return backFile(root, dir, name, rel, &st)
	}
	return nil
}

// unchanged: st is the entry at rel as docket copied it in (stamps), and
// its stamp can show it (stampVouches).
func (b *backCopy) unchanged(stamps map[string]stamp2, rel string, st *unix.Stat_t) bool {
	s, ok := stamps[rel]
	return ok && s == stampOf(st) && (stampVouches(s, b.start, b.fineCtime) || !runMayWrite(st, b.sp.uid, b.sp.gid))
}

func stampOf(st *unix.Stat_t) stamp2 {
	return stamp2{ino: int64(st.Ino), size: st.Size, ctime: st.Ctim}
}

// backDir makes sure the host box has directory rel, as the run left it.
func backDir(root *os.Root, rel string, st *unix.Stat_t) error {
	if info, err := root.Lstat(rel); err == nil && !info.IsDir() {
		if err := root.RemoveAll(rel); err != nil {
			return err
		}
	}
	if err := root.Mkdir(rel, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return backOwner(root, rel, st)
}

// backFile copies the run's file name in the box's directory dir to the
// host box's rel.
func backFile(root *os.Root, dir int, name, rel string, st *unix.Stat_t) error {
	if info, err := root.Lstat(rel); err == nil && !info.Mode().IsRegular() {
		if err := root.RemoveAll(rel); err != nil {
			return err
		}
	}
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: rel, Err: err}
	}
	in := os.NewFile(uintptr(fd), rel)
	defer in.Close()
	out, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return backOwner(root, rel, st)
}

func backOwner(root *os.Root, rel string, st *unix.Stat_t) error {
	if os.Geteuid() == 0 {
		if err := root.Lchown(rel, int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
	}
	// Permissions only: a set-id bit a run gave its file means nothing
	// docket wants on the host.
	return root.Chmod(rel, os.FileMode(st.Mode)&os.ModePerm)
}
