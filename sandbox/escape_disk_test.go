package sandbox_test

// The run's writable space (/box and /tmp): bounded in bytes and inodes,
// charged to the run's memory, gone afterwards, and no window onto the
// host's paths.

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

// diskLimits: small enough to fill quickly, with a file size limit that a
// flood meets first (it ignores SIGXFSZ and moves on to a new file).
var diskLimits = sandbox.Limits{CPUTime: 2 * time.Second, WallTime: 5 * time.Second, Memory: 256 << 20,
	FileSize: 1 << 20, Disk: 8 << 20, DiskInodes: 256}

func TestDiskFlood(t *testing.T) {
	eachHelperPath(t, func(t *testing.T, sl *sandbox.Slot) {
		for _, tc := range []struct {
			name string
			args []string
		}{
			{"bytes in the box", []string{"/box", "bytes"}},
			{"bytes in /tmp", []string{"/tmp", "bytes"}},
			{"inodes in the box", []string{"/box", "inodes"}},
			{"inodes in /tmp", []string{"/tmp", "inodes"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				box := boxWith(t, sl, hostile(t, "diskflood"))
				before := dirEntries(t, box)
				res := runIn(t, sl, box, diskLimits, "./diskflood", tc.args...)
				if res.Status != sandbox.OLE || res.Source != sandbox.SourceDisk {
					t.Errorf("status %s (%s), want OLE (disk); stdout %q", res.Status, res.Source, res.Stdout)
				}
				if after := dirEntries(t, box); after != before {
					t.Errorf("the host box changed after a run past its disk limit: %v, was %v", after, before)
				}
				assertClean(t, sl)
			})
		}
	})
}

// TestDiskExactly: a run may write exactly its limit.
func TestDiskExactly(t *testing.T) {
	sl := testSlot(t)
	box := boxWith(t, sl, hostile(t, "diskflood"))
	res := runIn(t, sl, box, sandbox.Limits{FileSize: 16 << 20, Disk: 8 << 20}, "./diskflood", "/tmp", "exactly", strconv.Itoa(8<<20))
	if res.Status != sandbox.OK || !strings.Contains(string(res.Stdout), "wrote exactly") {
		t.Errorf("status %s (%s), want OK; stdout %q", res.Status, res.Source, res.Stdout)
	}
	res = runIn(t, sl, box, sandbox.Limits{FileSize: 16 << 20, Disk: 8 << 20}, "./diskflood", "/tmp", "exactly", strconv.Itoa(8<<20+1))
	if res.Status != sandbox.OLE || res.Source != sandbox.SourceDisk {
		t.Errorf("one byte past the limit: status %s (%s), want OLE (disk); stdout %q", res.Status, res.Source, res.Stdout)
	}
}

// TestDiskChargedToMemory: what a run writes to /tmp counts against its
// memory limit, so a large disk limit is no way around a small memory one.
func TestDiskChargedToMemory(t *testing.T) {
	sl := testSlot(t)
	box := boxWith(t, sl, hostile(t, "diskflood"))
	lim := sandbox.Limits{Memory: 32 << 20, FileSize: 256 << 20, Disk: 256 << 20, DiskInodes: 16}
	res := runIn(t, sl, box, lim, "./diskflood", "/tmp", "exactly", strconv.Itoa(128<<20))
	if res.Status != sandbox.MLE {
		t.Errorf("128 MiB written to /tmp under a 32 MiB memory limit: status %s (%s), want MLE; memory %d KiB", res.Status, res.Source, res.Memory>>10)
	}
}

// TestBoxCopyBack: Cmd.Box's changes come back, links and special files
// the run made do not. A file rewritten in place at the same size inside
// a directory the run did not change comes back too, and so does a
// directory's new mode.
func TestBoxCopyBack(t *testing.T) {
	eachHelperPath(t, func(t *testing.T, sl *sandbox.Slot) {
		box := t.TempDir()
		for name, data := range map[string]string{"keep": "same", "change": "old", "remove": "gone", "sub/deep": "x", "chmodded/u": "u"} {
			os.MkdirAll(filepath.Dir(filepath.Join(box, name)), 0o755)
			if err := os.WriteFile(filepath.Join(box, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		chownTree(t, box, sl.UID)
		cmd := sl.Command("/bin/sh", "-c", "echo new > change && rm remove && echo made > made && mkdir -p d/e && echo z > d/e/f && ln -s /etc/shadow link && mkfifo fifo && printf y > sub/deep && chmod 700 chmodded && cat keep")
		cmd.Box, cmd.Limits.Processes = box, 8
		res, err := cmd.Run()
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != sandbox.OK || string(res.Stdout) != "same" {
			t.Fatalf("status %s (%s) stdout %q stderr %q", res.Status, res.Source, res.Stdout, res.Stderr)
		}
		for name, want := range map[string]string{"keep": "same", "change": "new\n", "made": "made\n", "d/e/f": "z\n", "sub/deep": "y", "chmodded/u": "u"} {
			got, err := os.ReadFile(filepath.Join(box, name))
			if err != nil || string(got) != want {
				t.Errorf("%s: %q, %v; want %q", name, got, err, want)
			}
		}
		for _, name := range []string{"remove", "link", "fifo"} {
			if _, err := os.Lstat(filepath.Join(box, name)); err == nil {
				t.Errorf("%s exists in the host box after the run", name)
			}
		}
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(box, "made"), &st); err != nil || int(st.Uid) != sl.UID {
			t.Errorf("made: owner %d, %v; want the run's uid %d", st.Uid, err, sl.UID)
		}
		if err := syscall.Stat(filepath.Join(box, "chmodded"), &st); err != nil || st.Mode&0o777 != 0o700 {
			t.Errorf("chmodded: mode %o, %v; want the run's 700", st.Mode&0o777, err)
		}
	})
}

// TestBoxFrom: a box made from Cmd.BoxFrom starts with its contents
// (owners and modes kept), is the run's uid's to write in, and nothing of
// the run comes back; the run cannot change the source's files.
func TestBoxFrom(t *testing.T) {
	eachHelperPath(t, func(t *testing.T, sl *sandbox.Slot) {
		from := t.TempDir()
		os.Chmod(from, 0o755)
		os.MkdirAll(filepath.Join(from, "lib"), 0o755)
		for name, data := range map[string]string{"prog": "#!/bin/sh\necho ran\n", "lib/data": "d"} {
			if err := os.WriteFile(filepath.Join(from, name), []byte(data), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		cmd := sl.Command("/bin/sh", "-c", "./prog && cat lib/data && echo new > made && stat -c '%u %a' . prog && (echo x > prog || echo ro)")
		cmd.BoxFrom, cmd.Limits.Processes = from, 8
		res, err := cmd.Run()
		if err != nil {
			t.Fatal(err)
		}
		want := "ran\nd" + strconv.Itoa(sl.UID) + " 700\n0 755\nro\n"
		if res.Status != sandbox.OK || string(res.Stdout) != want {
			t.Fatalf("status %s (%s) stdout %q, want %q; stderr %q", res.Status, res.Source, res.Stdout, want, res.Stderr)
		}
		if _, err := os.Stat(filepath.Join(from, "made")); err == nil {
			t.Error("a file the run made came back to BoxFrom")
		}
		if b, _ := os.ReadFile(filepath.Join(from, "prog")); string(b) != "#!/bin/sh\necho ran\n" {
			t.Errorf("BoxFrom's prog changed: %q", b)
		}
		both := sl.Command("/bin/true")
		both.Box, both.BoxFrom = from, from
		if _, err := both.Run(); err == nil {
			t.Error("a Cmd with both Box and BoxFrom ran")
		}
	})
}

// TestNoHostPaths: nothing a run can read names a host path: not its box,
// its stdin or stdout file, or the sandbox's state directory.
func TestNoHostPaths(t *testing.T) {
	eachHelperPath(t, func(t *testing.T, sl *sandbox.Slot) {
		box := boxWith(t, sl, hostile(t, "hostpaths"))
		dir := t.TempDir()
		inPath := filepath.Join(dir, "secret-test-7.in")
		outPath := filepath.Join(dir, "secret-test-7.out")
		os.WriteFile(inPath, []byte("1 2\n"), 0o644)
		in, err := os.Open(inPath)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		out, err := os.Create(outPath)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		cmd := sl.Command("./hostpaths")
		cmd.Box, cmd.Stdin, cmd.Stdout = box, in, out
		res, err := cmd.Run()
		if err != nil || res.Status != sandbox.OK {
			t.Fatalf("run: %v %+v", err, res)
		}
		seen, _ := os.ReadFile(outPath)
		if !strings.Contains(string(seen), "/proc/self/cwd -> /box") {
			t.Errorf("the report is incomplete:\n%s", seen)
		}
		state := sl.Sandbox().Config().StateDir
		for _, host := range []string{box, dir, state, "secret-test-7", filepath.Base(box)} {
			if strings.Contains(string(seen), host) {
				t.Errorf("a run sees the host path %s:\n%s", host, seen)
			}
		}
	})
}

func runIn(t *testing.T, sl *sandbox.Slot, box string, lim sandbox.Limits, name string, args ...string) *sandbox.Result {
	t.Helper()
	cmd := sl.Command(name, args...)
	cmd.Box, cmd.Limits = box, lim
	res, err := cmd.Run()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// dirEntries lists a directory's tree with sizes, to compare.
func dirEntries(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil {
			b.WriteString(p + ":" + strconv.FormatInt(info.Size(), 10) + " ")
		}
		return nil
	})
	return b.String()
}

func chownTree(t *testing.T, dir string, uid int) {
	t.Helper()
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			os.Lchown(p, uid, uid)
		}
		return nil
	})
}

// TestBoxSpecialFile: a box holding what cannot be copied (a FIFO) is a
// setup error of the run, named, and leaves nothing behind.
func TestBoxSpecialFile(t *testing.T) {
	sl := testSlot(t)
	box := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(box, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runBox(sl, box)
	var se *sandbox.SetupError
	if !errors.As(err, &se) || se.Stage != "box" {
		t.Fatalf("run with a FIFO in its box: %v, want a SetupError at stage box", err)
	}
	assertClean(t, sl)
}

func runBox(sl *sandbox.Slot, box string) (*sandbox.Result, error) {
	cmd := sl.Command("/bin/true")
	cmd.Box = box
	return cmd.Run()
}
