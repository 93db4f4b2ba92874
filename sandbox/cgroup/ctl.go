package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// ctl reads and writes a group's control files. A kept group holds its
// hot files open (those read or written around every run): a pread or
// pwrite through a held descriptor is one system call, where open, read
// and close are three and kernfs sets up and tears down an open file
// each time (2-3 µs against 10-16 µs a file here, a dozen files a run).
// A nil ctl, a run's own group's, opens each file when used, as does a
// file not held.
type ctl struct {
	fds map[string]heldFile // filled by hold before the group is shared, then read-only
}

type heldFile struct {
	fd   int
	mode int // unix.O_RDONLY, O_WRONLY or O_RDWR
}

// heldFDs counts the descriptors all ctls hold. They stay within a
// quarter of the soft RLIMIT_NOFILE, and none are held below 4096 (Go
// raises the soft limit to the hard one at start, 524288 under systemd):
// past that, files are opened when used, and the rest of docket (pipes,
// helpers, boxes) keeps its room.
var (
	heldFDs     atomic.Int64
	fdBudget    int64
	fdBudgetSet sync.Once
)

func heldFDBudget() int64 {
	fdBudgetSet.Do(func() {
		var rl unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur >= 4096 {
			fdBudget = int64(min(rl.Cur, 1<<30) / 4)
		}
	})
	return fdBudget
}

// hold opens files for the group's life (Delete closes them), as many
// as the budget allows; mode is how each is used.
func (c *ctl) hold(files map[string]int) {
	if c.fds == nil {
		c.fds = map[string]heldFile{}
	}
	for p, mode := range files {
		if heldFDs.Add(1) > heldFDBudget() {
			heldFDs.Add(-1)
			return
		}
		fd, err := unix.Open(p, mode|unix.O_CLOEXEC, 0)
		if err != nil {
			heldFDs.Add(-1)
			continue // opened when used, where the error shows
		}
		c.fds[p] = heldFile{fd, mode}
	}
}

func (c *ctl) close() {
	if c == nil {
		return
	}
	for p, h := range c.fds {
		unix.Close(h.fd)
		heldFDs.Add(-1)
		delete(c.fds, p)
	}
}

// read reads a whole control file: a cgroup file read from offset 0 is
// generated afresh.
func (c *ctl) read(path string) ([]byte, error) {
	fd, ok := c.fd(path, false)
	if !ok {
		return readControl(path)
	}
	return readFD(fd, path)
}

// readFD reads a file from offset 0 to its end.
func readFD(fd int, path string) ([]byte, error) {
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Pread(fd, buf[len(buf):cap(buf)], int64(len(buf)))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

func (c *ctl) write(path, value string) error {
	fd, ok := c.fd(path, true)
	if !ok {
		return writeFile(path, value)
	}
	for {
		_, err := unix.Pwrite(fd, []byte(value), 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
		return nil
	}
}

// fd is the held descriptor of path, if one is held for the use.
func (c *ctl) fd(path string, write bool) (int, bool) {
	if c == nil {
		return -1, false
	}
	h, ok := c.fds[path]
	if !ok || h.mode == unix.O_RDWR {
		return h.fd, ok
	}
	return h.fd, (h.mode == unix.O_WRONLY) == write
}

// emptyGroup is a group that knows when Procs last found it empty.
type emptyGroup interface {
	Procs() ([]int, error)
	knownEmpty() bool
}

func (g *v1Group) knownEmpty() bool { return g.empty.Load() }
func (g *v2Group) knownEmpty() bool { return g.empty.Load() }

// checkEmpty refuses a group with processes: ErrNotEmpty. A group that
// Procs found empty, none added since (the usual check before a kept
// group is given back), is not listed again.
func checkEmpty(g emptyGroup) error {
	if g.knownEmpty() {
		return nil
	}
	pids, err := g.Procs()
	if err != nil {
		return err
	}
	if len(pids) > 0 {
		return fmt.Errorf("%w: %v", ErrNotEmpty, pids)
	}
	return nil
}

// keepable is a group Keep can ready for its runs.
type keepable interface {
	Kept
	keep(spec Spec, unknown bool) error
}

// keepNamed makes or takes over a kept group: create makes its
// directories (existed: a leftover's, of unknown limits and counters),
// keep readies it. A leftover that cannot count afresh is removed and
// made anew under its name.
func keepNamed(create func() (keepable, bool, error), spec Spec) (Kept, error) {
	g, existed, err := create()
	if err != nil {
		return nil, err
	}
	err = g.keep(spec, existed)
	if errors.Is(err, ErrNotReusable) && existed {
		if err := g.Delete(); err != nil {
			return nil, err
		}
		if g, _, err = create(); err != nil {
			return nil, err
		}
		err = g.keep(spec, false)
	}
	if err != nil {
		g.Delete()
		return nil, err
	}
	return g, nil
}
