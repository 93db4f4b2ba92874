package ziparchive

import (
	"archive/zip"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path"
	"sort"
)

// write writes the entries into dst, just created, through an os.Root,
// which no name can leave and which follows no link out of it (and there
// are none: only this function writes there).
func write(dst string, entries []entry) error {
	if err := os.Chmod(dst, 0o755); err != nil { // whatever the umask
		return err
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := makeDirs(root, entries); err != nil {
		return err
	}
	for _, e := range entries {
		if e.dir {
			continue
		}
		if err := writeFile(root, e); err != nil {
			return &Error{Entry: e.raw.name, Err: err}
		}
	}
	return nil
}

// makeDirs creates every directory, named or implied, parents first.
func makeDirs(root *os.Root, entries []entry) error {
	set := map[string]bool{}
	for _, e := range entries {
		p := e.path
		if !e.dir {
			p = path.Dir(p)
		}
		for ; p != "." && !set[p]; p = path.Dir(p) {
			set[p] = true
		}
	}
	dirs := make([]string, 0, len(set))
	for d := range set {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs) // a parent sorts before what is beneath it
	for _, d := range dirs {
		if err := root.Mkdir(d, 0o755); err != nil {
			return err
		}
		if err := root.Chmod(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes one entry, counting what it yields: more or fewer
// bytes than it declares, or another CRC, and it is refused.
func writeFile(root *os.Root, e entry) error {
	rd, err := e.file.OpenRaw()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if e.raw.method == zip.Deflate {
		fr := flate.NewReader(rd)
		defer fr.Close()
		rd = fr
	}
	out, err := root.OpenFile(e.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	h := crc32.NewIEEE()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(rd, int64(e.raw.usize)+1))
	err = errors.Join(readError(err), out.Chmod(0o644), out.Close())
	switch {
	case err != nil:
		return err
	case uint64(n) > e.raw.usize:
		return fmt.Errorf("%w: holds more than the %d bytes it declares", ErrSize, e.raw.usize)
	case uint64(n) < e.raw.usize:
		return fmt.Errorf("%w: holds %d bytes, declares %d", ErrSize, n, e.raw.usize)
	case h.Sum32() != e.raw.crc:
		return fmt.Errorf("%w: CRC %08x, declared %08x", ErrFormat, h.Sum32(), e.raw.crc)
	}
	return nil
}

// readError: a corrupt or truncated compressed stream is the archive's
// fault; a write error is the disk's.
func readError(err error) error {
	var ce flate.CorruptInputError
	if errors.As(err, &ce) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: corrupt compressed data: %v", ErrFormat, err)
	}
	return err
}

func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing what was extracted: %w", err)
	}
	return nil
}
