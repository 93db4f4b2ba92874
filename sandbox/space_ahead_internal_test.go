package sandbox

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A change within racyWindow of now, to contents (mtime) or inode
// (ctime), makes a source racy; older ones do not.
func TestRacy(t *testing.T) {
	now := time.Unix(1000, 0)
	ts := func(d time.Duration) unix.Timespec { return unix.NsecToTimespec(now.Add(-d).UnixNano()) }
	for _, tc := range []struct {
		name         string
		mtime, ctime time.Duration // before now
		want         bool
	}{
		{"old", time.Hour, time.Hour, false},
		{"both now", 0, 0, true},
		{"written now", 0, time.Hour, true},
		{"chmod now", time.Hour, 5 * time.Millisecond, true},
		{"window passed", racyWindow + time.Millisecond, racyWindow + time.Millisecond, false},
	} {
		e := []entryStamp{{rel: "."}, {rel: "f", mtime: ts(tc.mtime), ctime: ts(tc.ctime)}}
		e[0].mtime, e[0].ctime = ts(time.Hour), ts(time.Hour)
		if got := racy(e, now); got != tc.want {
			t.Errorf("%s: racy %v, want %v", tc.name, got, tc.want)
		}
	}
}
