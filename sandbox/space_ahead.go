package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A slot's next space, made ahead. Making a run's space (a tmpfs, the
// box and /tmp, the box's contents copied in) is most of what Start does
// before the helper can begin: about a quarter of a millisecond for a
// judge's test, whose box is the program's directory (Cmd.BoxFrom). A
// run that ends with its target therefore has its slot make the space
// for a next run like it in its teardown, in the background, and the
// next run's Start takes it if it fits: the same source, limits and
// owner, and a source that has not changed since (every entry's identity
// as it was before the copy, checked again: an entry written to, added,
// removed or replaced makes the space be made afresh). A space made
// ahead has never been seen by a run, and serves one.

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
	mu    sync.Mutex
	ready *readySpace
	off   bool // the slot is released
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
// let go.
func (a *aheadSpace) take(key spaceKey) *space {
	a.mu.Lock()
	r := a.ready
	a.ready = nil
	a.mu.Unlock()
	if r == nil {
		return nil
	}
	if r.key == key {
		if now, err := stampTree(key.source()); err == nil && slices.Equal(now, r.source) {
			return r.sp
		}
	}
	r.sp.close()
	return nil
}

// make makes a space for key ahead, unless one is ready for it already,
// the source is too large, or it cannot be made (the next Start then
// makes its own and reports why).
func (a *aheadSpace) make(key spaceKey) {
	a.mu.Lock()
	have := a.off || (a.ready != nil && a.ready.key == key)
	a.mu.Unlock()
	if have {
		return
	}
	source, err := stampTree(key.source()) // before the copy: a change meanwhile is seen at take
	if err != nil || sourceUsage(source).bytes > maxAhead || racy(source, time.Now()) {
		return
	}
	sp, err := newSpaceOf(key, source)
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.off {
		sp.close()
		return
	}
	if a.ready != nil {
		a.ready.sp.close()
	}
	a.ready = &readySpace{key: key, sp: sp, source: source}
}

// close lets the space made ahead go and makes no more (Slot.Release).
func (a *aheadSpace) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.off = true
	if a.ready != nil {
		a.ready.sp.close()
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
