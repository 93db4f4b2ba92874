package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/kernel"
	"golang.org/x/sys/unix"
)

// TestStampVouches: a stamp proves an entry untouched where file times
// are fine-grained, or when the run started racyWindow after it; not
// when the run started within a tick of it, nor before it (a clock set
// back).
func TestStampVouches(t *testing.T) {
	stampAt := time.Now()
	s := stamp2{ctime: unix.NsecToTimespec(stampAt.UnixNano())}
	for _, tc := range []struct {
		name  string
		start time.Time
		fine  bool
		want  bool
	}{
		{"coarse, run 1 ms after", stampAt.Add(time.Millisecond), false, false},
		{"coarse, run just under the window after", stampAt.Add(racyWindow - time.Microsecond), false, false},
		{"coarse, run the window after", stampAt.Add(racyWindow), false, true},
		{"coarse, run a second after", stampAt.Add(time.Second), false, true},
		{"coarse, run before the stamp", stampAt.Add(-time.Second), false, false},
		{"fine, run 1 ms after", stampAt.Add(time.Millisecond), true, true},
	} {
		if got := stampVouches(s, tc.start, tc.fine); got != tc.want {
			t.Errorf("%s: stampVouches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTmpfsFineCtime: the probe finds multigrain times where the kernel
// gives them to tmpfs (Linux 6.13 on) and coarse ones before.
func TestTmpfsFineCtime(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a detached tmpfs needs root")
	}
	want, release, err := kernel.AtLeast(6, 13)
	if err != nil {
		t.Fatal(err)
	}
	if got := tmpfsFineCtime(); got != want {
		t.Errorf("Linux %s: tmpfsFineCtime = %v, want %v (multigrain tmpfs times came with 6.13)", release, got, want)
	}
}

// TestRunMayWrite: the owner may always write (it can chmod), others
// by their class's write bit: the group's where the group is the run's.
func TestRunMayWrite(t *testing.T) {
	const uid, gid = 1000, 1000
	for _, tc := range []struct {
		owner, group int
		mode         uint32
		want         bool
	}{
		{uid, gid, 0o400, true},
		{0, gid, 0o664, true},
		{0, gid, 0o646, false}, // the group's bits apply, not others'
		{0, 0, 0o646, true},
		{0, 0, 0o664, false},
		{0, 0, 0o755, false},
	} {
		st := unix.Stat_t{Uid: uint32(tc.owner), Gid: uint32(tc.group), Mode: unix.S_IFREG | tc.mode}
		if got := runMayWrite(&st, uid, gid); got != tc.want {
			t.Errorf("owner %d group %d mode %o: runMayWrite = %v, want %v", tc.owner, tc.group, tc.mode, got, tc.want)
		}
	}
}

// TestCopyBackRacyStamps: where file times are coarse, the files a run
// may have rewritten within a tick of their copy-in are copied back
// though their stamps did not change; with fine times, a run started
// later, or a file the run could not write, they are left alone. What is
// written to the host box shows in its file's change time.
func TestCopyBackRacyStamps(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a space needs root")
	}
	const runUID = 65534
	for _, tc := range []struct {
		name   string
		after  time.Duration // the run's start after the copy-in
		fine   bool
		owner  int
		copied bool
	}{
		{"coarse, racy", time.Millisecond, false, runUID, true},
		{"coarse, racy, not the run's to write", time.Millisecond, false, 0, false},
		{"coarse, later", time.Second, false, runUID, false},
		{"fine, racy", time.Millisecond, true, runUID, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := t.TempDir()
			file := filepath.Join(host, "counter")
			if err := os.WriteFile(file, []byte("1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(file, tc.owner, tc.owner); err != nil {
				t.Fatal(err)
			}
			sp, err := newSpace(spaceKey{host: host, disk: 1 << 20, inodes: 16, uid: runUID, gid: runUID})
			if err != nil {
				t.Fatal(err)
			}
			defer sp.close()
			var before unix.Stat_t
			unix.Stat(file, &before)
			time.Sleep(20 * time.Millisecond) // past any tick: a write shows
			if err := sp.copyBackAt(time.Now().Add(tc.after-20*time.Millisecond), tc.fine); err != nil {
				t.Fatal(err)
			}
			var after unix.Stat_t
			unix.Stat(file, &after)
			if copied := after.Ctim != before.Ctim; copied != tc.copied {
				t.Errorf("host file rewritten: %v, want %v", copied, tc.copied)
			}
			if b, _ := os.ReadFile(file); string(b) != "1\n" {
				t.Errorf("host file holds %q, want %q", b, "1\n")
			}
		})
	}
}
