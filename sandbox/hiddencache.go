package sandbox

import (
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// hiddenTrees keeps the detached mounts hidePath clones, one per file
// (device and inode), so that a file given to many runs (a test's input,
// judged for every submission) is cloned once: a clone and, when its
// last holder closes it, the dissolution of its anonymous mount namespace
// (an RCU grace period) cost about 0.15 ms a file a run. A run still gets
// a file description of its own, opened through the kept mount. (A
// judge's output file is a new file each test, verdict.newOutput: its
// clone is made each time, and the last one's dropped in the background.)
//
// A kept mount holds its file's inode: a file deleted since (an old
// package's test, a finished judging's output) would keep its blocks. So
// a new entry first drops every entry whose file has no link left (at
// most one sweep per sweepEvery new entries, and always for writable
// files, which are outputs), and past maxHiddenTrees the least recently
// used goes.
type hiddenTrees struct {
	mu      sync.Mutex
	trees   map[hiddenKey]*hiddenTree
	tick    uint64
	inserts int
}

type hiddenKey struct {
	dev, ino uint64
	writable bool // outputs are swept on every new entry
}

type hiddenTree struct {
	fd   int // the detached mount rooted at the file (open_tree clone)
	used uint64
}

const (
	maxHiddenTrees = 4096
	sweepEvery     = 64
)

// reopen opens the file of st (flags: its access mode and O_APPEND)
// through its kept mount, cloning one from fd first if there is none.
func (h *hiddenTrees) reopen(fd int, st *unix.Stat_t, flags int) (int, error) {
	key := hiddenKey{dev: st.Dev, ino: st.Ino, writable: flags&unix.O_ACCMODE != unix.O_RDONLY}
	h.mu.Lock()
	defer h.mu.Unlock() // held while the tree's descriptor is used: no eviction closes it meanwhile
	h.tick++
	t := h.trees[key]
	if t == nil {
		tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
		if err != nil {
			return -1, err
		}
		h.makeRoom(key)
		t = &hiddenTree{fd: tree}
		h.trees[key] = t
	}
	t.used = h.tick
	return unix.Open("/proc/self/fd/"+strconv.Itoa(t.fd), flags|unix.O_CLOEXEC, 0)
}

// makeRoom makes room for key's new entry.
func (h *hiddenTrees) makeRoom(key hiddenKey) {
	if h.trees == nil {
		h.trees = map[hiddenKey]*hiddenTree{}
	}
	h.inserts++
	if key.writable || h.inserts%sweepEvery == 0 || len(h.trees) >= maxHiddenTrees {
		h.sweep(key.writable && h.inserts%sweepEvery != 0)
	}
	if len(h.trees) >= maxHiddenTrees {
		h.evictOldest()
	}
}

// sweep drops the entries whose file has no link left: only writable
// ones with outputsOnly.
func (h *hiddenTrees) sweep(outputsOnly bool) {
	for k, t := range h.trees {
		if outputsOnly && !k.writable {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(t.fd, &st) != nil || st.Nlink == 0 {
			h.drop(k, t)
		}
	}
}

func (h *hiddenTrees) evictOldest() {
	var oldest hiddenKey
	var ot *hiddenTree
	for k, t := range h.trees {
		if ot == nil || t.used < ot.used {
			oldest, ot = k, t
		}
	}
	if ot != nil {
		h.drop(oldest, ot)
	}
}

// drop closes an entry's mount in the background: closing the last
// reference dissolves it, which waits for an RCU grace period.
func (h *hiddenTrees) drop(k hiddenKey, t *hiddenTree) {
	delete(h.trees, k)
	go unix.Close(t.fd)
}

// close drops every entry.
func (h *hiddenTrees) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, t := range h.trees {
		h.drop(k, t)
	}
}
