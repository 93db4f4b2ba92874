package sandbox_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/docketjudge/docket/sandbox"
	"golang.org/x/sys/unix"
)

// New tries creating a group in each controller's parent once per boot
// and binary, and keeps the directories where it worked in the state
// directory: a second Sandbox makes no trial group (watched by inotify on
// the real cgroup directories), and one without the file tries again.
func TestCgroupTrialsCached(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating cgroups needs root")
	}
	dir := t.TempDir()
	cfg := sandbox.Config{StateDir: dir, UIDBase: 63950}
	sb, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sb.Close()
	path := filepath.Join(dir, "probe-cgroups.json")
	var entries []struct {
		Key  string   `json:"key"`
		Dirs []string `json:"dirs"`
	}
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &entries) != nil || len(entries) != 1 || len(entries[0].Dirs) == 0 {
		t.Fatalf("want one entry with the parents tried: %v %s", err, b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	trial := fmt.Sprintf("probe-%d", os.Getpid())
	created := func() []string {
		t.Helper()
		fd := watchCreates(t, entries[0].Dirs)
		defer unix.Close(fd)
		sb, err := sandbox.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sb.Close()
		return readCreates(fd, trial)
	}
	if got := created(); len(got) != 0 {
		t.Errorf("with the trials kept, New made trial groups again: %v", got)
	}
	os.Remove(path)
	if got := created(); len(got) != len(entries[0].Dirs) {
		t.Errorf("with no trials kept, trial groups made in %d of %d parents: %v", len(got), len(entries[0].Dirs), got)
	}
}

// watchCreates watches dirs for entries made in them.
func watchCreates(t *testing.T, dirs []string) int {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := unix.InotifyAddWatch(fd, d, unix.IN_CREATE); err != nil {
			unix.Close(fd)
			t.Fatalf("watch %s: %v", d, err)
		}
	}
	return fd
}

// readCreates gives the watch descriptors of the entries named name made
// since the watch began, one per directory.
func readCreates(fd int, name string) []string {
	var got []string
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(fd, buf)
		if err != nil || n <= 0 {
			return got
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameBytes := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			if strings.TrimRight(string(nameBytes), "\x00") == name {
				got = append(got, fmt.Sprint(ev.Wd))
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}
