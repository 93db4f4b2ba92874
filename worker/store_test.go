package worker

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/internal/safedir"
	"github.com/docketjudge/docket/protocol"
)

func tarOf(t *testing.T, entries ...*tar.Header) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, h := range entries {
		if h.Typeflag == tar.TypeReg {
			h.Size = 1
		}
		tw.WriteHeader(h)
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte("x"))
		}
	}
	tw.Close()
	return b.Bytes()
}

func TestUnpackRejectsUnsafeEntries(t *testing.T) {
	for name, h := range map[string]*tar.Header{
		"absolute":  {Name: "/etc/passwd", Typeflag: tar.TypeReg},
		"dotdot":    {Name: "a/../../x", Typeflag: tar.TypeReg},
		"symlink":   {Name: "a", Typeflag: tar.TypeSymlink, Linkname: "/etc"},
		"hardlink":  {Name: "a", Typeflag: tar.TypeLink, Linkname: "/etc/shadow"},
		"device":    {Name: "a", Typeflag: tar.TypeChar},
		"fifo":      {Name: "a", Typeflag: tar.TypeFifo},
		"backslash": {Name: `a\..\b`, Typeflag: tar.TypeReg},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			// The unsafe entry comes after a safe one: nothing may be written.
			data := tarOf(t, &tar.Header{Name: "ok.txt", Typeflag: tar.TypeReg}, h)
			if err := Unpack(data, dir); err == nil {
				t.Fatal("accepted")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("something was unpacked before the rejection: %v", entries)
			}
		})
	}
}

func TestPackUnpackRoundTrip(t *testing.T) {
	src := "../problems/aplusb"
	data, err := PackTar(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "aplusb")
	if err := Unpack(data, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data/secret/01-max.in")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "submissions")); err == nil {
		t.Error("submissions/ was packed")
	}
}

// The cache fetches from a real object store, reuses its copy, and
// refetches when the package changes.
func TestCacheFetchAndRefresh(t *testing.T) {
	_, _, js := embeddedJS(t)
	ctx := context.Background()
	pkg := filepath.Join(t.TempDir(), "aplusb")
	os.CopyFS(pkg, os.DirFS("../problems/aplusb"))
	p0, _, err := Push(ctx, js, pkg)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 30}
	p1, err := c.Get(ctx, js, "aplusb", "")
	if err != nil || p1.Digest != p0.Digest {
		t.Fatalf("first get: %v %v", err, p1)
	}
	p2, err := c.Get(ctx, js, "aplusb", p0.Digest)
	if err != nil || p2.Dir != p1.Dir {
		t.Errorf("second get did not reuse the cached copy: %v %v %v", err, p1.Dir, p2)
	}
	os.WriteFile(filepath.Join(pkg, "data/secret/01-max.ans"), []byte("0\n"), 0o644)
	pNew, _, err := Push(ctx, js, pkg)
	if err != nil {
		t.Fatal(err)
	}
	p3, err := c.Get(ctx, js, "aplusb", "")
	if err != nil || p3.Digest != pNew.Digest || p3.Digest == p0.Digest {
		t.Errorf("changed package not refetched: %v %v", err, p3)
	}
	if _, err := c.Get(ctx, js, "aplusb", p0.Digest); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("a pinned old digest: %v", err)
	}
	if _, err := c.Get(ctx, js, "nope", ""); err == nil {
		t.Error("a missing problem was found")
	}
}

// The cache tells a store that does not answer (retry: the job waits)
// from a problem the store lacks (a final SE) and from a cache it cannot
// write (local to this worker).
func TestCacheErrorKinds(t *testing.T) {
	_, _, js := embeddedJS(t)
	ctx := context.Background()
	pkg := filepath.Join(t.TempDir(), "aplusb")
	os.CopyFS(pkg, os.DirFS("../problems/aplusb"))
	if _, _, err := Push(ctx, js, pkg); err != nil {
		t.Fatal(err)
	}
	var su *StoreUnavailableError
	// The cache directory is a file: cannot be written.
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, nil, 0o600)
	_, err := (&Cache{Dir: notDir}).Get(ctx, js, "aplusb", "")
	if err == nil || errors.As(err, &su) || errors.Is(err, ErrNoProblem) {
		t.Errorf("unwritable cache: %v (want a local error)", err)
	}
	c := &Cache{Dir: t.TempDir()}
	if _, err := c.Get(ctx, js, "nope", ""); !errors.Is(err, ErrNoProblem) || errors.As(err, &su) {
		t.Errorf("missing problem: %v", err)
	}
	// The store gone (its stream deleted): unavailable, not missing.
	if err := js.DeleteObjectStore(ctx, protocol.ProblemBucket); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, js, "aplusb", ""); !errors.As(err, &su) || errors.Is(err, ErrNoProblem) {
		t.Errorf("store gone: %v (want StoreUnavailableError)", err)
	}
}

// A cached package that another user owns or can write, at any level, is
// not used: it is removed and fetched again, whether this process had it
// loaded already or finds it on disk. A cache directory docket cannot
// trust is an error. Before the fix the planted answers were judged with.
func TestCachePlantedEntryRefetched(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("planting another user's files needs root")
	}
	_, _, js := embeddedJS(t)
	ctx := context.Background()
	pushed, _, err := Push(ctx, js, "../problems/aplusb")
	if err != nil {
		t.Fatal(err)
	}
	const nobody = 65534
	for _, tc := range []struct {
		name  string
		plant func(entry, pkg string) error
	}{
		{"entry of another user", func(e, _ string) error { return os.Chown(e, nobody, nobody) }},
		{"entry mode 0777", func(e, _ string) error { return os.Chmod(e, 0o777) }},
		{"package directory mode 0777", func(_, p string) error { return os.Chmod(p, 0o777) }},
		{"test data directory of another user", func(_, p string) error { return os.Chown(filepath.Join(p, "data/secret"), nobody, nobody) }},
		{"answer file mode 0666", func(_, p string) error { return os.Chmod(filepath.Join(p, "data/secret/01-max.ans"), 0o666) }},
	} {
		for _, loaded := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, loaded %v", tc.name, loaded), func(t *testing.T) {
				c := &Cache{Dir: filepath.Join(t.TempDir(), "problems"), MaxBytes: 1 << 30}
				p, err := c.Get(ctx, js, "aplusb", "")
				if err != nil {
					t.Fatal(err)
				}
				ans := filepath.Join(p.Dir, "data/secret/01-max.ans")
				if err := os.WriteFile(ans, []byte("planted\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := tc.plant(filepath.Dir(p.Dir), p.Dir); err != nil {
					t.Fatal(err)
				}
				if !loaded {
					c = &Cache{Dir: c.Dir, MaxBytes: 1 << 30}
				}
				p, err = c.Get(ctx, js, "aplusb", "")
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := os.ReadFile(ans); string(b) == "planted\n" || p.Digest != pushed.Digest {
					t.Errorf("the planted package was used: answer %q, digest %s (pushed %s)", b, p.Digest, pushed.Digest)
				}
			})
		}
	}
	c := &Cache{Dir: filepath.Join(t.TempDir(), "problems")}
	os.MkdirAll(c.Dir, 0o700)
	os.Chmod(c.Dir, 0o777)
	if _, err := c.Get(ctx, js, "aplusb", ""); !errors.Is(err, safedir.ErrUnsafe) {
		t.Errorf("a cache directory writable by others: %v, want safedir.ErrUnsafe", err)
	}
}
