package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// hiddenOpen opens path (flags) and reopens it through h, as hidePath
// does, giving the new descriptor.
func hiddenOpen(t *testing.T, h *hiddenTrees, path string, flags int) int {
	t.Helper()
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	fd, err := h.reopen(int(f.Fd()), &st, flags&unix.O_ACCMODE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if link, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); link != "/" {
		t.Errorf("%s reopened shows %q, want /", path, link)
	}
	return fd
}

// A file given to runs again is cloned once, and reopened with its
// current contents; a file replaced (a new inode) gets a mount of its
// own; a deleted output's mount goes when the next output comes, so its
// blocks are not held.
func TestHiddenTreesKeepAndSweep(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("open_tree needs root")
	}
	h := &hiddenTrees{}
	defer h.close()
	dir := t.TempDir()
	in := filepath.Join(dir, "1.in")
	os.WriteFile(in, []byte("one"), 0o644)
	read := func(fd int) string {
		b := make([]byte, 16)
		n, _ := unix.Pread(fd, b, 0)
		return string(b[:max(n, 0)])
	}
	a, b := hiddenOpen(t, h, in, os.O_RDONLY), hiddenOpen(t, h, in, os.O_RDONLY)
	if len(h.trees) != 1 || read(a) != "one" || read(b) != "one" {
		t.Fatalf("%d mounts, read %q and %q: want one mount, one twice", len(h.trees), read(a), read(b))
	}
	os.WriteFile(in+".new", []byte("two"), 0o644)
	os.Rename(in+".new", in)
	if c := hiddenOpen(t, h, in, os.O_RDONLY); read(c) != "two" || len(h.trees) != 2 {
		t.Errorf("after the file was replaced: read %q with %d mounts, want two and 2", read(c), len(h.trees))
	}
	out := filepath.Join(dir, "output")
	w := hiddenOpen(t, h, out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	unix.Write(w, []byte("written"))
	if got, _ := os.ReadFile(out); string(got) != "written" {
		t.Errorf("the output file holds %q, want what was written through the reopened one", got)
	}
	os.Remove(out)
	hiddenOpen(t, h, filepath.Join(dir, "output2"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	var writable int
	for k := range h.trees {
		if k.writable {
			writable++
		}
	}
	if writable != 1 {
		t.Errorf("%d writable mounts after the first output was deleted, want 1 (the new one)", writable)
	}
}
