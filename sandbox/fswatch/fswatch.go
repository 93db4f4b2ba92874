// Package fswatch tells whether host paths docket prepared something
// from ahead of a run may have changed since: a box's source tree, whose
// copy a slot makes before its next run, and a template root's bind
// sources and masks. The kernel reports each change as it is made
// (inotify marks on every entry of a tree, on the directories along each
// path, and the mount table's poll), so the check on a run's path is two
// system calls that find nothing to read, where stamping the paths again
// took a stat of every entry.
//
// It must not import any other package of docket's.
//
// What it does not see, the callers keep stamps for: a path with a
// symbolic link on its way (ErrNotWatchable: its target's directories
// would need marks of their own), and writes through a shared mapping,
// which the kernel does not report (a box's source is docket's own
// output, written with write(2)).
package fswatch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// ErrNotWatchable is the error of a path a Watch cannot follow.
var ErrNotWatchable = errors.New("fswatch: a symbolic link on the path")

// ErrTooLarge is the error of a tree of more than MaxTreeEntries entries:
// the host's inotify marks are few (fs.inotify.max_user_watches, shared
// by every program of the user), and such a tree is stamped instead.
var ErrTooLarge = errors.New("fswatch: too many entries to mark")

// MaxTreeEntries bounds the marks of one Tree.
const MaxTreeEntries = 256

// A Watch is a set of marks, and whether anything marked has changed
// since it was marked. Its methods may be called from any goroutine.
type Watch struct {
	mu      sync.Mutex
	fd      int           // the inotify instance, non-blocking
	mounts  uint64        // the mount table's generation when the Watch was made
	marks   map[int]*mark // by watch descriptor
	changed bool
	closed  bool
}

// mark is what matters of a watch descriptor's events: every one (an
// entry of a tree), or only those that create, remove or rename one of
// names in the directory (a directory on the way to a path), and the
// directory's own removal or move.
type mark struct {
	any   bool
	names map[string]bool
}

// Events of an entry of a tree: its contents, attributes, entries and
// identity.
const treeEvents = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW

// Events of a directory on the way to a path: its entries come and go,
// or it goes.
const wayEvents = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// New makes an empty Watch: one descriptor, the inotify instance.
func New() (*Watch, error) {
	gen, err := mountGeneration()
	if err != nil {
		return nil, err
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("fswatch: inotify: %w", err)
	}
	return &Watch{fd: fd, mounts: gen, marks: map[int]*mark{}}, nil
}

// Path marks what path names: the directories on its way, for the next
// name on it being created, removed or renamed, and for their own
// removal or move. The path itself is not followed: what it names stays
// the same inode as long as no event comes (its contents are Tree's).
// A missing path is marked up to its first missing directory, whose
// creation is then the change.
func (w *Watch) Path(path string) error {
	path = filepath.Clean(path)
	if !filepath.IsAbs(path) {
		return fmt.Errorf("fswatch: %q is not absolute", path)
	}
	dir := "/"
	for _, name := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if name == "" {
			break // the root itself: nothing on its way
		}
		if err := w.add(dir, wayEvents, mark{names: map[string]bool{name: true}}); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return nil // its creation is an event of the directory before
			}
			return err
		}
		dir = filepath.Join(dir, name)
	}
	return nil
}

// Tree marks root (Path) and every entry beneath it, for any change of
// its contents, attributes or entries. An entry added meanwhile is seen:
// a directory is marked before its entries are listed.
func (w *Watch) Tree(root string) error {
	if err := w.Path(root); err != nil {
		return err
	}
	n := 0
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > MaxTreeEntries {
			return ErrTooLarge
		}
		return w.add(p, treeEvents, mark{any: true})
	})
}

// add marks path with mask, merged with a mark it has already (the same
// inode, one descriptor).
func (w *Watch) add(path string, mask uint32, m mark) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("fswatch: closed")
	}
	wd, err := unix.InotifyAddWatch(w.fd, path, mask|unix.IN_MASK_ADD)
	switch {
	case errors.Is(err, unix.ENOTDIR):
		return fmt.Errorf("%w: %s", ErrNotWatchable, path)
	case err != nil:
		return &os.PathError{Op: "inotify_add_watch", Path: path, Err: err}
	}
	have := w.marks[wd]
	if have == nil {
		have = &mark{names: map[string]bool{}}
		w.marks[wd] = have
	}
	have.any = have.any || m.any
	for n := range m.names {
		have.names[n] = true
	}
	return nil
}

// Target is Path for a path that names what it resolves to (stat, not
// lstat): it must not be a symbolic link, whose target would be marked
// nowhere. The path is marked first, so that a link made after the check
// is an event.
func (w *Watch) Target(path string) error {
	if err := w.Path(path); err != nil {
		return err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s", ErrNotWatchable, path)
	}
	return nil
}
