package sandbox

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// hidePath gives the run a regular file of the caller's (a test's input,
// the file its output goes to) as a new open of the same file through a
// detached mount rooted at the file itself. Passed as it is, the file's
// /proc/self/fd link would show its host path (a test's name, docket's
// work directory) to the run; through the detached mount it shows "/".
// Pipes, devices and, without root (open_tree needs CAP_SYS_ADMIN), every
// file are passed as they are. The new file goes to childFiles, closed
// once the helper has its copy. The mount is kept for the next run given
// the same file (hiddencache.go).
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
	keep := flags & (unix.O_ACCMODE | unix.O_APPEND)
	nfd, err := c.Slot.sb.hidden.reopen(fd, &st, keep)
	if err != nil {
		return nil, fmt.Errorf("hide %s: %w", f.Name(), err)
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
