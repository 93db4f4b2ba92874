package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/docketjudge/docket/sandbox/fswatch"
	"golang.org/x/sys/unix"
)

// A slot's next space, made ahead. Making a run's space (a tmpfs, the
// box and /tmp, the box's contents copied in) is most of what Start does
// before the helper can begin: about a quarter of a millisecond for a
// judge's test, whose box is the program's directory (Cmd.BoxFrom). A
// run that ends with its target therefore has its slot make the space
// for a next run like it in its teardown, in the background, and the
// next run's Start takes it if it fits: the same source, limits and
// owner, and a source that has not changed since (an entry written to,
// added, removed or replaced makes the space be made afresh). The source
// is marked for the kernel to report such a change (package fswatch)
// before it is stamped and copied, so that the run's check reads no
// entry; where it cannot be marked, every entry's identity as it was
// before the copy is checked again. A space made ahead has never been
// seen by a run, and serves one.

// spaceKey is what a space is made of, but for its source's contents.
type spaceKey struct {
	host, from string
	disk       int64
	inodes     int
	uid, gid   int
}

// readySpace is a space made ahead, and its source as it was before the
// copy.
type readySpace struct {
	key    spaceKey
	sp     *space
	source []entryStamp
	watch  *fswatch.Watch // the source marked, or nil: the stamps are taken again
}

// unchanged reports whether the source is as it was when the space was
// made.
func (r *readySpace) unchanged() bool {
	if r.watch != nil {
		return !r.watch.Changed()
	}
	now, err := stampTree(r.key.source())
	return err == nil && slices.Equal(now, r.source)
}

// close lets the space and the watch go.
func (r *readySpace) close() {
	r.sp.close()
	r.watch.Close()
}

// watchSource marks a box's source tree, or nil where it cannot be
// marked (or there is none: an empty box has nothing to change).
func watchSource(dir string) *fswatch.Watch {
	if dir == "" {
		return nil
	}
	return newWatch(func(w *fswatch.Watch) error { return w.Tree(dir) })
}

// entryStamp is one entry of a box's source tree: what identifies its
// contents (a write changes ctime; a replaced entry is a new inode).
type entryStamp struct {
	rel            string
	dev, ino       uint64
	mode, uid, gid uint32
	size           int64
	mtime, ctime   unix.Timespec
}

// maxAhead bounds the source a space is made ahead for: such a space
// holds a second copy of the box in memory until the next run.
const maxAhead = 64 << 20

// aheadSpace is a slot's space made ahead, one at most.
type aheadSpace struct {
	mu     sync.Mutex
	ready  *readySpace
	making *making // a make under way, or nil
	off    bool    // the slot is released
}

// making is a make under way: the key it makes a space for, and closed
// when it has ended.
type making struct {
	key  spaceKey
	done chan struct{}
}

func keyOf(c *Cmd, lim Limits, uid, gid int) spaceKey {
	return spaceKey{host: c.Box, from: c.BoxFrom, disk: lim.Disk, inodes: lim.DiskInodes, uid: uid, gid: gid}
}

func (k spaceKey) source() string {
	if k.host != "" {
		return k.host
	}
	return k.from
}

// take returns the space made ahead for key if there is one and its
// source has not changed since, else nil; a space that does not fit is
// let go. A make for key under way is waited for: begun with the last
// run's teardown, it ends sooner than a space made now (a judge's next
// test often starts before it has ended).
func (a *aheadSpace) take(key spaceKey) *space {
	a.mu.Lock()
	if m := a.making; a.ready == nil && m != nil && m.key == key {
		a.mu.Unlock()
		<-m.done
		a.mu.Lock()
	}
	r := a.ready
	a.ready = nil
	a.mu.Unlock()
	if r == nil {
		return nil
	}
	if r.key == key && r.unchanged() {
		r.watch.Close()
		return r.sp
	}
	r.close()
	return nil
}

// make makes a space for key ahead, unless one is ready for it already,
// the source is too large, or it cannot be made (the next Start then
// makes its own and reports why).
func (a *aheadSpace) make(key spaceKey) {
	a.mu.Lock()
	if a.off || a.making != nil || (a.ready != nil && a.ready.key == key) {
		a.mu.Unlock()
		return
	}
	m := &making{key: key, done: make(chan struct{})}
	a.making = m
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.making = nil
		a.mu.Unlock()
		close(m.done)
	}()
	// Marked, then stamped, then copied: a change meanwhile is seen at
	// take.
	watch := watchSource(key.source())
	source, err := stampTree(key.source())
	if err != nil || sourceUsage(source).bytes > maxAhead || racy(source, time.Now()) {
		watch.Close()
		return
	}
	sp, err := newSpaceOf(key, source)
	if err != nil {
		watch.Close()
		return
	}
	sp.cloneAhead()
	a.mu.Lock()
	defer a.mu.Unlock()
	r := &readySpace{key: key, sp: sp, source: source, watch: watch}
	if a.off {
		r.close()
		return
	}
	if a.ready != nil {
		a.ready.close()
	}
	a.ready = r
}

// close lets the space made ahead go and makes no more (Slot.Release).
func (a *aheadSpace) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.off = true
	if a.ready != nil {
		a.ready.close()
		a.ready = nil
	}
}

// stampTree lists dir's entries (itself included) as newSpace would
// copy them; "" is an empty box, with nothing to list.
func stampTree(dir string) ([]entryStamp, error) {
	if dir == "" {
		return nil, nil
	}
	var out []entryStamp
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return &os.PathError{Op: "lstat", Path: p, Err: err}
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, entryStamp{rel: rel, dev: st.Dev, ino: st.Ino, mode: st.Mode, uid: st.Uid, gid: st.Gid,
			size: st.Size, mtime: st.Mtim, ctime: st.Ctim})
		return nil
	})
	return out, err
}

// racyWindow is how recent a change may be for its entry's stamp to be
// trusted: a file's times come from a clock that advances a tick at a
// time, so a second change within the tick of the first, of the same
// size, could leave the stamp as it was (git's "racy" files). A source
// changed that recently is not made ahead.
const racyWindow = 20 * time.Millisecond

func racy(entries []entryStamp, now time.Time) bool {
	for _, e := range entries {
		for _, t := range []unix.Timespec{e.mtime, e.ctime} {
			if now.Sub(time.Unix(t.Unix())) < racyWindow {
				return true
			}
		}
	}
	return false
}
