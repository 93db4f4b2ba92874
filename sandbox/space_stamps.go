package sandbox

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// What a stamp (inode, size, change time) of a file docket copied into a
// space proves after the run. A file's change time comes from the
// kernel's coarse clock, which advances a tick (1 to 10 ms) at a time, so
// a run that rewrote a file in place at the same size within the tick of
// its copy-in leaves the stamp as it was (git's "racy" files), and the
// change would not be copied back. Linux 6.13 and later give tmpfs
// multigrain times: a change after the time was read (copyOwned reads it
// for the stamp) gets a fine-grained time, always a new one, and there
// every stamp proves itself. Elsewhere a stamp proves nothing unless the
// run started racyWindow after it, or the run could not write the entry
// (runMayWrite); other entries are copied back whether they changed or
// not.

// stampVouches reports whether stamp s, taken before a run that started
// at start, shows that the run left its entry alone when the entry still
// has it.
func stampVouches(s stamp2, start time.Time, fineCtime bool) bool {
	return fineCtime || start.Sub(time.Unix(s.ctime.Unix())) >= racyWindow
}

// runMayWrite reports whether a run as uid and gid (no supplementary
// groups, no capabilities) could have written the entry st, or changed
// its mode: its owner can make it writable, anyone else needs its write
// bit, the group's where the entry's group is the run's. An entry the run
// could not write is as docket copied it unless its inode changed, which
// its stamp shows on any clock.
func runMayWrite(st *unix.Stat_t, uid, gid int) bool {
	switch {
	case int(st.Uid) == uid:
		return true
	case int(st.Gid) == gid:
		return st.Mode&0o020 != 0
	default:
		return st.Mode&0o002 != 0
	}
}

// tmpfsFineCtime reports, once per process, whether a tmpfs gives a
// change made after its time was read a time of its own: three times in
// a row, a file's time is read, the file written and its time read again.
// On a coarse clock the two reads agree unless a tick passed in the few
// microseconds between them; with multigrain times they never do. If the
// probe cannot be made, the answer is no (every racy stamp is distrusted).
var tmpfsFineCtime = sync.OnceValue(func() bool {
	mnt, _, err := mountTmpfs(4*pageSize, 4, false)
	if err != nil {
		return false
	}
	defer mnt.Close()
	fd, err := unix.Openat(int(mnt.Fd()), "probe", unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	for i := 0; i < 3; i++ {
		var before, after unix.Stat_t
		if unix.Fstat(fd, &before) != nil {
			return false
		}
		if _, err := unix.Pwrite(fd, []byte{byte('0' + i)}, 0); err != nil {
			return false
		}
		if unix.Fstat(fd, &after) != nil || after.Ctim == before.Ctim {
			return false
		}
	}
	return true
})
