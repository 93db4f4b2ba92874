package worker

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileTar builds an archive of the given headers, each regular file
// with body as its content. A header's Size is kept when it is set, so
// that the last one can lie about its size.
func hostileTar(t testing.TB, body string, hdrs ...tar.Header) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range hdrs {
		if h.Typeflag == tar.TypeReg && h.Size == 0 {
			h.Size = int64(len(body))
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatalf("seed %q: %v", h.Name, err)
		}
		if h.Typeflag == tar.TypeReg && h.Size == int64(len(body)) {
			io.WriteString(tw, body)
		}
	}
	tw.Flush() // not Close: a truncated archive is a seed too
	return buf.Bytes()
}

func FuzzUnpack(f *testing.F) {
	addUnpackSeeds(f)
	f.Fuzz(checkUnpack)
}

// addUnpackSeeds: a real package, an empty archive and hostile ones
// (absolute and climbing names, links out, devices, huge and truncated
// entries, set-id modes, long names).
func addUnpackSeeds(f *testing.F) {
	reg := func(name string) tar.Header { return tar.Header{Name: name, Typeflag: tar.TypeReg} }
	dir := func(name string) tar.Header { return tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755} }
	good, err := PackTar("../problems/aplusb")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte{})
	for _, hs := range [][]tar.Header{
		{dir("data/"), reg("data/a.in"), reg("problem.yaml")},
		{reg("/etc/docket-fuzz")},
		{reg("../escape")},
		{reg("a/../../escape")},
		{reg("./a")},
		{reg("a//b")},
		{reg("a\\b")},
		{reg("a"), reg("a")},
		{reg("a"), reg("a/b")},
		{dir("a/"), reg("a")},
		{{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}},
		{{Name: "dir", Typeflag: tar.TypeSymlink, Linkname: ".."}, reg("dir/escape")},
		{reg("a"), {Name: "hard", Typeflag: tar.TypeLink, Linkname: "a"}},
		{{Name: "hard", Typeflag: tar.TypeLink, Linkname: "/etc/shadow"}},
		{{Name: "null", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3}},
		{{Name: "sda", Typeflag: tar.TypeBlock, Devmajor: 8}},
		{{Name: "fifo", Typeflag: tar.TypeFifo}},
		{{Name: "huge", Typeflag: tar.TypeReg, Size: 1 << 40}},
		{reg("a"), {Name: "big", Typeflag: tar.TypeReg, Size: 600 << 20}},
		{{Name: "short", Typeflag: tar.TypeReg, Size: 100}},
		{{Name: "suid", Typeflag: tar.TypeReg, Mode: 0o4777}},
		{{Name: strings.Repeat("long/", 60) + "name", Typeflag: tar.TypeReg}},
		{{Name: strings.Repeat("n", 300), Typeflag: tar.TypeReg}},
	} {
		f.Add(hostileTar(f, "body\n", hs...))
	}
}

// checkUnpack: whatever data holds, Unpack writes nothing beside its
// target, leaves nothing behind when it refuses the archive, writes every
// regular entry with its content, and what it unpacked packs and unpacks
// again to the same tree.
func checkUnpack(t *testing.T, data []byte) {
	base := t.TempDir()
	target := filepath.Join(base, "pkg")
	err := Unpack(data, target)
	if entries, _ := os.ReadDir(base); len(entries) > 1 || len(entries) == 1 && entries[0].Name() != "pkg" {
		t.Fatalf("unpack wrote %v beside the target directory", entries)
	}
	if err != nil {
		// Archive checks come before anything is written.
		if errors.Is(err, ErrBadArchive) {
			if _, serr := os.Lstat(target); serr == nil {
				t.Fatalf("rejected archive (%v) left %s behind", err, target)
			}
		}
		return
	}
	if _, err := os.Lstat(target); err != nil {
		// An archive without entries writes nothing (problem.Load then
		// says what is missing).
		if n := len(tarNames(data)); n > 0 {
			t.Fatalf("%d entries accepted, nothing unpacked: %v", n, err)
		}
		return
	}
	want := checkTree(t, target)
	// Every regular entry of the archive was written with its content.
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		body, _ := io.ReadAll(tr)
		got, err := os.ReadFile(filepath.Join(target, filepath.FromSlash(h.Name)))
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%s: unpacked %d bytes (%v), archive holds %d", h.Name, len(got), err, len(body))
		}
	}
	// What was unpacked packs and unpacks again to the same tree.
	again, err := PackTar(target)
	if err != nil {
		t.Fatalf("PackTar of an unpacked archive: %v", err)
	}
	target2 := filepath.Join(t.TempDir(), "pkg")
	if err := Unpack(again, target2); err != nil {
		t.Fatalf("Unpack of PackTar output: %v", err)
	}
	if got := checkTree(t, target2); !packedEqual(want, got) {
		t.Fatalf("round trip changed the tree:\n  %v\n  %v", want, got)
	}
}

// tarNames lists the entries a tar reader reads from data.
func tarNames(data []byte) []string {
	var names []string
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err != nil {
			return names
		}
		names = append(names, h.Name)
	}
}

// checkTree asserts that dir holds only directories and plain regular
// files (no links, devices, FIFOs, no set-id bits) and returns them:
// slash path → content, "/" suffix for directories.
func checkTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		m := info.Mode()
		switch {
		case m.IsDir():
			tree[filepath.ToSlash(rel)+"/"] = ""
		case m.IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			tree[filepath.ToSlash(rel)] = string(b)
		default:
			t.Fatalf("unpacked %s of mode %v", rel, m)
		}
		if m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 || m.Perm()&0o022 != 0 {
			t.Fatalf("unpacked %s with mode %v", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// packedEqual compares two trees as PackTar sees them: it leaves out the
// top-level submissions/ and every .git* directory.
func packedEqual(a, b map[string]string) bool {
	skipped := func(p string) bool {
		if strings.HasPrefix(p, "submissions/") {
			return true
		}
		parts := strings.Split(strings.TrimSuffix(p, "/"), "/")
		for i, part := range parts {
			if strings.HasPrefix(part, ".git") && (i < len(parts)-1 || strings.HasSuffix(p, "/")) {
				return true
			}
		}
		return false
	}
	n := 0
	for p, v := range a {
		if skipped(p) {
			continue
		}
		if w, ok := b[p]; !ok || w != v {
			return false
		}
		n++
	}
	return n == len(b)
}
