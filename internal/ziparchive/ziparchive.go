// Package ziparchive extracts a zip archive of a problem package into a
// fresh directory, refusing what an archive from a stranger may hold to
// write outside that directory or to fill the disk or memory: names that
// leave it, links, special files, duplicates, encrypted entries, sizes
// that lie, and archives over stated limits. Nothing is written until
// the whole archive has been checked, and what is written is regular
// files (0644) and directories (0755) of the caller's.
//
// It must not import any other package of docket's: it knows zips, not
// problem packages.
//
// archive/zip does the decompressing and reads the directory; this
// package checks what it does not: it reads the end records, the
// central directory and every local header itself, refuses any
// disagreement between them and any overlap, and counts the bytes each
// entry yields against what it declares.
package ziparchive

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Limits bound what an archive may unpack to.
type Limits struct {
	MaxTotal   int64 // bytes, all entries uncompressed
	MaxEntries int   // entries, directories included
	// An entry of more than RatioFrom bytes may be at most MaxRatio times
	// its compressed size.
	MaxRatio, RatioFrom int64
	MaxDepth            int // path elements in a name
}

// DefaultLimits are 1 GiB (the most a pushed package may hold), 100,000
// entries, 1000:1 for entries over 1 MiB, 32 levels.
var DefaultLimits = Limits{MaxTotal: 1 << 30, MaxEntries: 100_000, MaxRatio: 1000, RatioFrom: 1 << 20, MaxDepth: 32}

// MaxNameBytes is the longest entry name read.
const MaxNameBytes = 1024

// What an archive is refused for; an error of Extract wraps one of them,
// and an *Error when an entry is to blame.
var (
	ErrFormat    = errors.New("not a well-formed zip archive")
	ErrName      = errors.New("unsafe name")
	ErrLink      = errors.New("a symbolic link")
	ErrSpecial   = errors.New("a device, FIFO or socket")
	ErrDuplicate = errors.New("duplicate name")
	ErrEncrypted = errors.New("encrypted")
	ErrMethod    = errors.New("unsupported compression method")
	ErrSize      = errors.New("declared size lies")
	ErrLimit     = errors.New("over a limit")
)

// Error is a refusal of one entry, by its name in the archive.
type Error struct {
	Entry string
	Err   error
}

// Error names the entry and why it was refused.
func (e *Error) Error() string { return fmt.Sprintf("entry %q: %v", e.Entry, e.Err) }

// Unwrap returns the reason, one of the Err* sentinels, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// entry is an archive entry to write: where, and what.
type entry struct {
	raw  rawEntry
	file *zip.File
	path string // relative to the package's root, "/"-separated
	dir  bool
}

// Extract checks the zip archive r (size bytes) and writes it into dst,
// which it creates (its parent must exist, and should be the caller's
// alone). When every name lies under one top-level folder, that folder's
// content is what dst gets. macOS's __MACOSX metadata folder is left
// out. On an error dst is removed.
func Extract(r io.ReaderAt, size int64, dst string, lim Limits) error {
	entries, err := plan(r, size, lim)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err // an existing dst is not this call's to remove
	}
	if err := write(dst, entries); err != nil {
		return errors.Join(err, removeAll(dst))
	}
	return nil
}

// plan reads and checks the whole archive and returns what to write.
func plan(r io.ReaderAt, size int64, lim Limits) ([]entry, error) {
	raws, err := readDirectory(r, size, lim)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // names are checked below
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if len(zr.File) != len(raws) {
		return nil, formatf("archive/zip reads %d entries, the central directory has %d", len(zr.File), len(raws))
	}
	entries := make([]entry, 0, len(raws))
	var total int64
	for i, raw := range raws {
		e, err := checkEntry(raw, zr.File[i], lim)
		if err != nil {
			return nil, &Error{Entry: raw.name, Err: err}
		}
		if total += int64(raw.usize); total > lim.MaxTotal {
			return nil, fmt.Errorf("%w: more than %d bytes uncompressed", ErrLimit, lim.MaxTotal)
		}
		entries = append(entries, e)
	}
	return layout(entries)
}

// checkEntry checks one entry on its own: its name, what archive/zip
// reads of it, its mode, method and sizes.
func checkEntry(raw rawEntry, f *zip.File, lim Limits) (entry, error) {
	if err := checkName(raw.name, lim.MaxDepth); err != nil {
		return entry{}, err
	}
	if off, err := f.DataOffset(); err != nil || f.Name != raw.name || f.UncompressedSize64 != raw.usize ||
		f.CompressedSize64 != raw.csize || uint64(off) != raw.dataStart {
		return entry{}, formatf("archive/zip reads it differently (%v)", err)
	}
	dir := strings.HasSuffix(raw.name, "/")
	if err := checkMode(f.Mode(), dir); err != nil {
		return entry{}, err
	}
	if err := checkSizes(raw, dir, lim); err != nil {
		return entry{}, err
	}
	return entry{raw: raw, file: f, path: strings.TrimSuffix(raw.name, "/"), dir: dir}, nil
}

// checkMode refuses what the external attributes make other than a
// regular file or directory, and a directory mode on a file's name.
func checkMode(m fs.FileMode, dir bool) error {
	switch {
	case m&fs.ModeSymlink != 0:
		return ErrLink
	case m&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeIrregular) != 0:
		return fmt.Errorf("%w (mode %v)", ErrSpecial, m)
	case m.IsDir() != dir:
		return formatf("mode %v on a name that does %send in /", m, map[bool]string{true: "", false: "not "}[dir])
	}
	return nil
}

func checkSizes(raw rawEntry, dir bool, lim Limits) error {
	switch {
	case raw.method != zip.Store && raw.method != zip.Deflate:
		return fmt.Errorf("%w %d (docket reads stored and deflated entries)", ErrMethod, raw.method)
	case dir && raw.usize != 0:
		return formatf("a directory with %d bytes of data", raw.usize)
	case raw.usize > uint64(lim.MaxTotal):
		return fmt.Errorf("%w: %d bytes uncompressed, more than %d", ErrLimit, raw.usize, lim.MaxTotal)
	case int64(raw.usize) > lim.RatioFrom && raw.usize/max(raw.csize, 1) > uint64(lim.MaxRatio):
		return fmt.Errorf("%w: %d bytes from %d compressed, more than %d:1", ErrLimit, raw.usize, raw.csize, lim.MaxRatio)
	}
	return nil
}

// layout strips the one top-level folder, if there is one, leaves out
// __MACOSX, and checks the paths against each other.
func layout(entries []entry) ([]entry, error) {
	names := make([]string, len(entries))
	seen := make(map[string]bool, len(entries))
	for i, e := range entries {
		if seen[e.raw.name] { // even where the tree below would not see it (the top folder, __MACOSX)
			return nil, &Error{Entry: e.raw.name, Err: duplicate("", "")}
		}
		seen[e.raw.name] = true
		names[i] = e.raw.name
	}
	top := topFolder(names)
	t := newTree()
	out := entries[:0]
	for _, e := range entries {
		if first, _, _ := strings.Cut(e.path, "/"); first == macMetadata {
			continue
		}
		if top != "" {
			if e.path == top {
				continue // the folder itself: dst
			}
			e.path = strings.TrimPrefix(e.path, top+"/")
		}
		if err := t.add(e.path, e.dir); err != nil {
			return nil, &Error{Entry: e.raw.name, Err: err}
		}
		out = append(out, e)
	}
	return out, nil
}
