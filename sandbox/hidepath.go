package sandbox

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// hidePath gives the run a regular file of the caller's (a test's input,
// the file its output goes to) as a new open of the same file through a
// detached mount rooted at the file itself. Passed as it is, the file's
// /proc/self/fd link would show its host path (a test's name, docket's
// work directory) to the run; through the detached mount it shows "/".
// Pipes, devices and, without root (open_tree needs CAP_SYS_ADMIN), every
// file are passed as they are. The new file goes to childFiles, closed
// once the helper has its copy.
func (c *Cmd) hidePath(f *os.File, childFiles *[]*os.File) (*os.File, error) {
	if !c.Slot.sb.caps.Root {
		return f, nil
	}
	fd := int(f.Fd())
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return f, nil
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	off, err := unix.Seek(fd, 0, io.SeekCurrent)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
	if err != nil {
		return nil, fmt.Errorf("open_tree %s: %w", f.Name(), err)
	}
	keep := flags & (unix.O_ACCMODE | unix.O_APPEND)
	nfd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(tree), keep|unix.O_CLOEXEC, 0)
	// Closing tree dissolves the clone's anonymous mount namespace, which
	// waits for an RCU grace period (0.05-0.3 ms here): off the run's
	// path. The reopened file keeps the mount itself alive.
	go unix.Close(tree)
	if err != nil {
		return nil, fmt.Errorf("reopen %s: %w", f.Name(), err)
	}
	nf := os.NewFile(uintptr(nfd), "stdio")
	*childFiles = append(*childFiles, nf)
	if off != 0 {
		if _, err := nf.Seek(off, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
	}
	return nf, nil
}
