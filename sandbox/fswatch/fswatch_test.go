package fswatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// tree makes dir/a/src with a file, a subdirectory with a file and a
// symbolic link: the source tree of a box. It returns dir and src.
func tree(t *testing.T) (dir, src string) {
	t.Helper()
	dir = t.TempDir()
	src = filepath.Join(dir, "a", "src")
	must(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "prog"), []byte("v1\n"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "sub", "data"), []byte("d\n"), 0o644))
	must(t, os.Symlink("prog", filepath.Join(src, "link")))
	return dir, src
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestTreeSeesChanges makes each change a box's source can see after its
// copy was made, to a tree marked by Tree, and checks that Changed
// reports it; and that what changes nothing of the tree (reads, entries
// of the directories on its way with other names) is not reported.
func TestTreeSeesChanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir, src string)
		want   bool
	}{
		{"nothing", func(*testing.T, string, string) {}, false},
		{"read", func(t *testing.T, _, src string) {
			_, err := os.ReadFile(filepath.Join(src, "sub", "data"))
			must(t, err)
		}, false},
		{"a sibling of the source", func(t *testing.T, dir, _ string) {
			must(t, os.WriteFile(filepath.Join(dir, "a", "other"), nil, 0o644))
		}, false},
		{"an entry beside the way", func(t *testing.T, dir, _ string) {
			must(t, os.Mkdir(filepath.Join(dir, "b"), 0o755))
		}, false},
		{"rewritten at its size", func(t *testing.T, _, src string) {
			must(t, os.WriteFile(filepath.Join(src, "prog"), []byte("v2\n"), 0o755))
		}, true},
		{"written through a hard link elsewhere", func(t *testing.T, dir, src string) {
			other := filepath.Join(dir, "hard")
			must(t, os.Link(filepath.Join(src, "sub", "data"), other))
			must(t, os.WriteFile(other, []byte("x\n"), 0o644))
		}, true},
		{"mode", func(t *testing.T, _, src string) { must(t, os.Chmod(filepath.Join(src, "prog"), 0o700)) }, true},
		{"added in a subdirectory", func(t *testing.T, _, src string) {
			must(t, os.WriteFile(filepath.Join(src, "sub", "new"), nil, 0o644))
		}, true},
		{"removed", func(t *testing.T, _, src string) { must(t, os.Remove(filepath.Join(src, "sub", "data"))) }, true},
		{"replaced by a rename", func(t *testing.T, dir, src string) {
			must(t, os.WriteFile(filepath.Join(dir, "tmp"), []byte("v1\n"), 0o755))
			must(t, os.Rename(filepath.Join(dir, "tmp"), filepath.Join(src, "prog")))
		}, true},
		{"link retargeted", func(t *testing.T, _, src string) {
			must(t, os.Symlink("sub", filepath.Join(src, "link2")))
			must(t, os.Rename(filepath.Join(src, "link2"), filepath.Join(src, "link")))
		}, true},
		{"the source renamed", func(t *testing.T, dir, src string) {
			must(t, os.Rename(src, filepath.Join(dir, "a", "moved")))
		}, true},
		{"a directory on the way replaced", func(t *testing.T, dir, _ string) {
			must(t, os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "old")))
			must(t, os.MkdirAll(filepath.Join(dir, "a", "src"), 0o755))
		}, true},
		{"mounted over", func(t *testing.T, _, src string) {
			if os.Geteuid() != 0 {
				t.Skip("mounting needs root")
			}
			sub := filepath.Join(src, "sub")
			must(t, unix.Mount("tmpfs", sub, "tmpfs", 0, ""))
			t.Cleanup(func() { unix.Unmount(sub, unix.MNT_DETACH) })
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, src := tree(t)
			w, err := New()
			must(t, err)
			defer w.Close()
			must(t, w.Tree(src))
			if w.Changed() {
				t.Fatal("changed before any change")
			}
			tc.change(t, dir, src)
			if got := w.Changed(); got != tc.want {
				t.Errorf("Changed() = %v, want %v", got, tc.want)
			}
			if tc.want && !w.Changed() {
				t.Error("a change was reported once, not from then on")
			}
		})
	}
}

// TestPathSeesReplacement: what a path names is replaced, or a missing
// path appears; a path behind a symbolic link cannot be marked.
func TestPathSeesReplacement(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "usr", "bin")
	must(t, os.MkdirAll(bin, 0o755))
	must(t, os.Symlink("usr/bin", filepath.Join(dir, "bin")))
	for _, tc := range []struct {
		name, path string
		change     func(t *testing.T)
		want       bool
	}{
		{"a sibling", bin, func(t *testing.T) { must(t, os.Mkdir(filepath.Join(dir, "usr", "lib"), 0o755)) }, false},
		{"an entry of its own", bin, func(t *testing.T) { must(t, os.WriteFile(filepath.Join(bin, "x"), nil, 0o755)) }, false},
		{"replaced", bin, func(t *testing.T) {
			must(t, os.Rename(bin, filepath.Join(dir, "usr", "old")))
			must(t, os.Mkdir(bin, 0o755))
		}, true},
		{"a missing path made", filepath.Join(dir, "opt", "x"), func(t *testing.T) {
			must(t, os.Mkdir(filepath.Join(dir, "opt"), 0o755))
		}, true},
		{"a link (lstat) replaced", filepath.Join(dir, "bin"), func(t *testing.T) {
			must(t, os.Remove(filepath.Join(dir, "bin")))
			must(t, os.Symlink("usr/lib", filepath.Join(dir, "bin")))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := New()
			must(t, err)
			defer w.Close()
			must(t, w.Path(tc.path))
			tc.change(t)
			if got := w.Changed(); got != tc.want {
				t.Errorf("Changed() = %v, want %v", got, tc.want)
			}
		})
	}
	w, err := New()
	must(t, err)
	defer w.Close()
	if err := w.Path(filepath.Join(dir, "bin", "x")); !errors.Is(err, ErrNotWatchable) {
		t.Errorf("Path behind a link: %v, want ErrNotWatchable", err)
	}
	if err := w.Target(filepath.Join(dir, "bin")); !errors.Is(err, ErrNotWatchable) {
		t.Errorf("Target of a link: %v, want ErrNotWatchable", err)
	}
	if err := w.Target(bin); err != nil {
		t.Errorf("Target of a directory: %v", err)
	}
}

// A tree of more entries than MaxTreeEntries is refused, not half marked.
func TestTreeTooLarge(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < MaxTreeEntries; i++ {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), nil, 0o644))
	}
	w, err := New()
	must(t, err)
	defer w.Close()
	if err := w.Tree(dir); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Tree of %d entries: %v, want ErrTooLarge", MaxTreeEntries+1, err)
	}
}
