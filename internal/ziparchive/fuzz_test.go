package ziparchive

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzExtract: whatever the bytes, Extract does not panic, and either
// refuses them, leaving nothing, or writes only regular files and
// directories of the stated modes inside dst, within the limits.
func FuzzExtract(f *testing.F) {
	f.Add(mkzip(f, file{name: "problem.yaml", body: "name: x\n"}, file{name: "data/secret/1.in", body: "1 2\n"}))
	f.Add(mkzip(f, file{name: "p/"}, file{name: "p/task.yaml", body: "name: x\n"}, file{name: "p/a/b", body: strings.Repeat("ab", 200)}))
	f.Add(rawzip(f, stored("a", "hello"), stored("d/", "")))
	f.Add(mkzip(f, file{name: "../x", body: "1"}))
	lim := Limits{MaxTotal: 1 << 20, MaxEntries: 100, MaxRatio: 1000, RatioFrom: 1 << 10, MaxDepth: 8}
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dst := filepath.Join(parent, "pkg")
		err := Extract(bytes.NewReader(data), int64(len(data)), dst, lim)
		if err != nil {
			if _, serr := os.Lstat(dst); !errors.Is(serr, fs.ErrNotExist) {
				t.Fatalf("refused (%v), yet dst is left", err)
			}
			return
		}
		checkWritten(t, parent, dst, lim)
	})
}

// checkWritten: parent holds dst alone; dst holds regular files 0644 and
// directories 0755, at most lim.MaxTotal bytes in all.
func checkWritten(t *testing.T, parent, dst string, lim Limits) {
	if es, _ := os.ReadDir(parent); len(es) != 1 {
		t.Fatalf("%d entries beside dst", len(es))
	}
	var total int64
	filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, _ := d.Info()
		switch m := info.Mode(); {
		case m.IsRegular() && m.Perm() == 0o644:
			total += info.Size()
		case !m.IsDir() || m.Perm() != 0o755:
			t.Fatalf("%s: mode %v", p, m)
		}
		return nil
	})
	if total > lim.MaxTotal {
		t.Fatalf("%d bytes written", total)
	}
}
