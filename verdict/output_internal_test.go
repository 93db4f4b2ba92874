package verdict

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// newOutput gives each test an empty output file of its own: the last
// test's is removed, not truncated (a descriptor still open on it reads
// what it held), and a link at the path is removed, never followed.
func TestNewOutput(t *testing.T) {
	dir := t.TempDir()
	path, elsewhere := filepath.Join(dir, "output"), filepath.Join(dir, "elsewhere")
	const last = "the last test's output\n"
	for i, before := range []func() *os.File{
		func() *os.File { return nil },
		func() *os.File {
			os.WriteFile(path, []byte(last), 0o600)
			f, _ := os.Open(path)
			return f
		},
		func() *os.File { os.Remove(path); os.Symlink(elsewhere, path); return nil },
	} {
		old := before()
		f, err := newOutput(path)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		st, _ := f.Stat()
		f.Close()
		if st.Size() != 0 || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
			t.Errorf("case %d: %v, size %d, want an empty regular file, mode 0600", i, st.Mode(), st.Size())
		}
		if old != nil {
			if b, _ := io.ReadAll(old); string(b) != last {
				t.Errorf("case %d: the last test's file holds %q: truncated, not removed", i, b)
			}
			old.Close()
		}
		if _, err := os.Lstat(elsewhere); err == nil {
			t.Errorf("case %d: the link was followed", i)
		}
	}
}
