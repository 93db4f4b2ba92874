package fswatch

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// The mount table's changes, counted: a mount over a marked path changes
// what the path names without an inotify event. The kernel flags a change
// of the mount namespace's table since the file was opened, or last
// polled, to a poll of /proc/self/mountinfo with POLLPRI. One descriptor
// serves every Watch: each keeps the generation it was made in.
var mounts struct {
	sync.Mutex
	fd  int
	err error
	gen uint64
}

var openMounts = sync.OnceFunc(func() {
	mounts.fd, mounts.err = unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if mounts.err != nil {
		mounts.err = fmt.Errorf("fswatch: mount table: %w", mounts.err)
	}
})

// mountGeneration is the number of changes of the mount table seen so
// far (several changes between two polls count as one).
func mountGeneration() (uint64, error) {
	openMounts()
	mounts.Lock()
	defer mounts.Unlock()
	if mounts.err != nil {
		return 0, mounts.err
	}
	fds := []unix.PollFd{{Fd: int32(mounts.fd), Events: unix.POLLPRI}}
	for {
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("fswatch: mount table: %w", err)
		}
		if n > 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0 {
			mounts.gen++
		}
		return mounts.gen, nil
	}
}
