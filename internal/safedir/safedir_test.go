package safedir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// nobody owns what the tests plant as another user's.
const nobody = 65534

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("planting another user's files needs root")
	}
}

func mkdir(t *testing.T, p string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEnsureCreatesAndAccepts(t *testing.T) {
	root := filepath.Join(t.TempDir(), "a", "cache")
	if err := Ensure(root, 0o711); err != nil {
		t.Fatalf("fresh root: %v", err)
	}
	st, err := os.Stat(root)
	if err != nil || st.Mode().Perm()&0o022 != 0 {
		t.Fatalf("created %v, %v", st.Mode(), err)
	}
	entry := mkdir(t, filepath.Join(root, "programs", "x"), 0o755)
	os.WriteFile(filepath.Join(entry, "main"), []byte("x"), 0o755)
	if err := Path(root, entry); err != nil {
		t.Errorf("docket's own entry: %v", err)
	}
	if err := Tree(entry); err != nil {
		t.Errorf("docket's own entry's files: %v", err)
	}
}

// Every level docket trusts, planted writable by others, owned by another
// user or as a symbolic link, is refused with ErrUnsafe.
func TestPlantedLevelsRefused(t *testing.T) {
	needRoot(t)
	for name, plant := range map[string]func(root, entry string) error{
		"root mode 0777":         func(root, _ string) error { return os.Chmod(root, 0o777) },
		"root of another user":   func(root, _ string) error { return os.Chown(root, nobody, nobody) },
		"middle level 0777":      func(root, _ string) error { return os.Chmod(filepath.Join(root, "programs"), 0o777) },
		"entry of another user":  func(_, entry string) error { return os.Chown(entry, nobody, nobody) },
		"entry group-writable":   func(_, entry string) error { return os.Chmod(entry, 0o775) },
		"ancestor 0777":          func(root, _ string) error { return os.Chmod(filepath.Dir(root), 0o777) },
		"ancestor of other user": func(root, _ string) error { return os.Chown(filepath.Dir(root), nobody, nobody) },
		"entry a symbolic link": func(root, entry string) error {
			other := mkdir(t, filepath.Join(root, "elsewhere"), 0o755)
			os.RemoveAll(entry)
			return os.Symlink(other, entry)
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := mkdir(t, filepath.Join(t.TempDir(), "up", "cache"), 0o711)
			entry := mkdir(t, filepath.Join(root, "programs", "x"), 0o755)
			if err := Path(root, entry); err != nil {
				t.Fatalf("before planting: %v", err)
			}
			if err := plant(root, entry); err != nil {
				t.Fatal(err)
			}
			if err := Path(root, entry); !errors.Is(err, ErrUnsafe) {
				t.Errorf("Path: %v, want ErrUnsafe", err)
			}
		})
	}
}

// A file of an entry planted writable by others or by another user.
func TestTreeRefusesPlantedFiles(t *testing.T) {
	needRoot(t)
	for name, plant := range map[string]func(p string) error{
		"mode 0666":      func(p string) error { return os.Chmod(p, 0o666) },
		"another user's": func(p string) error { return os.Chown(p, nobody, nobody) },
		"symbolic link":  func(p string) error { os.Remove(p); return os.Symlink("/bin/true", p) },
	} {
		t.Run(name, func(t *testing.T) {
			entry := mkdir(t, filepath.Join(t.TempDir(), "x"), 0o755)
			f := filepath.Join(entry, "main")
			if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := Tree(entry); err != nil {
				t.Fatalf("before planting: %v", err)
			}
			if err := plant(f); err != nil {
				t.Fatal(err)
			}
			if err := Tree(entry); !errors.Is(err, ErrUnsafe) {
				t.Errorf("Tree: %v, want ErrUnsafe", err)
			}
		})
	}
}

// Above the root: a sticky world-writable directory (/tmp) is fine, a
// symbolic link is followed when root made it and refused when another
// user did.
func TestAboveRoot(t *testing.T) {
	needRoot(t)
	base := t.TempDir()
	sticky := mkdir(t, filepath.Join(base, "tmp"), os.ModePerm|os.ModeSticky)
	root := mkdir(t, filepath.Join(sticky, "cache"), 0o711)
	if err := Path(root, root); err != nil {
		t.Errorf("beneath a sticky directory: %v", err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(sticky, link); err != nil {
		t.Fatal(err)
	}
	if err := Path(filepath.Join(link, "cache"), filepath.Join(link, "cache")); err != nil {
		t.Errorf("through root's symbolic link: %v", err)
	}
	if err := os.Lchown(link, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := Path(filepath.Join(link, "cache"), filepath.Join(link, "cache")); !errors.Is(err, ErrUnsafe) {
		t.Errorf("through another user's symbolic link: %v, want ErrUnsafe", err)
	}
	if err := Path(root, base); !errors.Is(err, ErrUnsafe) {
		t.Errorf("a path above the root: %v, want ErrUnsafe", err)
	}
}
