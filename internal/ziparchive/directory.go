package ziparchive

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
)

// The zip format's records (APPNOTE.TXT 4.3), read here byte by byte
// because archive/zip keeps what is checked below to itself: where each
// local header is, what it declares, and how the end records agree.
const (
	sigLocal      = 0x04034b50
	sigCentral    = 0x02014b50
	sigEnd        = 0x06054b50
	sigEnd64      = 0x06064b50
	sigLocator64  = 0x07064b50
	endLen        = 22
	locator64Len  = 20
	end64Len      = 56
	centralLen    = 46
	localLen      = 30
	zip64ExtraID  = 0x0001
	max16         = 0xffff
	max32         = 0xffffffff
	flagEncrypted = 0x1
	flagDataDesc  = 0x8
)

// rawEntry is an entry as the central directory declares it.
type rawEntry struct {
	name         string
	flags        uint16
	method       uint16
	crc          uint32
	csize, usize uint64
	offset       uint64 // of the local header
	dataStart    uint64 // filled from the local header
}

// directoryEnd is what the end records say of the central directory.
type directoryEnd struct {
	records      uint64
	size, offset uint64
	// at is where the directory must end: the zip64 end record, or the
	// end record; nothing may lie between.
	at uint64
}

// le reads little-endian fields from a record.
type le []byte

func (b le) u16(at int) uint16 { return binary.LittleEndian.Uint16(b[at:]) }
func (b le) u32(at int) uint32 { return binary.LittleEndian.Uint32(b[at:]) }
func (b le) u64(at int) uint64 { return binary.LittleEndian.Uint64(b[at:]) }

func formatf(f string, a ...any) error {
	return fmt.Errorf("%w: "+f, append([]any{ErrFormat}, a...)...)
}

// readEnd finds the end of central directory record, which must end the
// file exactly (its comment running to the last byte), and the zip64 end
// record when a zip64 locator precedes it.
func readEnd(r io.ReaderAt, size int64) (directoryEnd, error) {
	n := min(size, endLen+max16)
	buf := make(le, n)
	if _, err := r.ReadAt(buf, size-n); err != nil {
		return directoryEnd{}, fmt.Errorf("%w: reading the end record: %v", ErrFormat, err)
	}
	for i := int(n) - endLen; i >= 0; i-- {
		if buf.u32(i) == sigEnd && i+endLen+int(buf.u16(i+20)) == int(n) {
			return parseEnd(r, buf[i:], uint64(size-n)+uint64(i))
		}
	}
	return directoryEnd{}, formatf("no end of central directory record at the end of the file (not a zip archive, or truncated, or data after it)")
}

func parseEnd(r io.ReaderAt, b le, at uint64) (directoryEnd, error) {
	if b.u16(4) != 0 || b.u16(6) != 0 {
		return directoryEnd{}, formatf("a multi-disk (spanned) archive")
	}
	if b.u16(8) != b.u16(10) {
		return directoryEnd{}, formatf("the end record counts %d entries on this disk and %d in all", b.u16(8), b.u16(10))
	}
	d := directoryEnd{records: uint64(b.u16(10)), size: uint64(b.u32(12)), offset: uint64(b.u32(16)), at: at}
	if at < locator64Len {
		return d, nil
	}
	loc := make(le, locator64Len)
	if _, err := r.ReadAt(loc, int64(at-locator64Len)); err != nil || loc.u32(0) != sigLocator64 {
		if d.records == max16 || d.size == max32 || d.offset == max32 {
			return d, formatf("the end record defers to a zip64 end record that is missing")
		}
		return d, nil
	}
	return parseEnd64(r, loc, d, at-locator64Len)
}

// parseEnd64 reads the zip64 end record the locator (at locAt) points to;
// the end record's fields that are not at their maximum must agree with it.
func parseEnd64(r io.ReaderAt, loc le, d directoryEnd, locAt uint64) (directoryEnd, error) {
	if loc.u32(4) != 0 || loc.u32(16) != 1 {
		return d, formatf("a multi-disk (spanned) zip64 archive")
	}
	at := loc.u64(8)
	if at > locAt || locAt-at < end64Len {
		return d, formatf("the zip64 locator points to %d, not to a record before it", at)
	}
	b := make(le, end64Len)
	if _, err := r.ReadAt(b, int64(at)); err != nil || b.u32(0) != sigEnd64 {
		return d, formatf("no zip64 end record at %d", at)
	}
	if b.u64(4)+12 != locAt-at {
		return d, formatf("the zip64 end record's size %d disagrees with its place", b.u64(4))
	}
	if b.u32(16) != 0 || b.u32(20) != 0 {
		return d, formatf("a multi-disk (spanned) zip64 archive")
	}
	d64 := directoryEnd{records: b.u64(32), size: b.u64(40), offset: b.u64(48), at: at}
	if b.u64(24) != d64.records {
		return d, formatf("the zip64 end record counts %d entries on this disk and %d in all", b.u64(24), d64.records)
	}
	if (d.records != max16 && d.records != d64.records) || (d.size != max32 && d.size != d64.size) ||
		(d.offset != max32 && d.offset != d64.offset) {
		return d, formatf("the end record and the zip64 end record disagree (%d/%d entries, directory %d/%d bytes at %d/%d)",
			d.records, d64.records, d.size, d64.size, d.offset, d64.offset)
	}
	return d64, nil
}

// readDirectory reads the central directory: entry count first (against
// the limit, before anything is allocated for the entries), then each
// entry, then each entry's local header.
func readDirectory(r io.ReaderAt, size int64, lim Limits) ([]rawEntry, error) {
	d, err := readEnd(r, size)
	if err != nil {
		return nil, err
	}
	if d.records > uint64(lim.MaxEntries) {
		return nil, fmt.Errorf("%w: %d entries, more than %d", ErrLimit, d.records, lim.MaxEntries)
	}
	if d.offset > d.at || d.at-d.offset != d.size {
		return nil, formatf("the central directory (%d bytes at %d) does not end where the end record begins (%d)", d.size, d.offset, d.at)
	}
	if d.records*centralLen > d.size {
		return nil, formatf("%d entries cannot fit in a central directory of %d bytes", d.records, d.size)
	}
	entries, err := readCentral(io.NewSectionReader(r, int64(d.offset), int64(d.size)), d)
	if err != nil {
		return nil, err
	}
	if err := readLocals(r, entries); err != nil {
		return nil, err
	}
	return entries, checkOverlap(entries, d.offset)
}

func readCentral(sr *io.SectionReader, d directoryEnd) ([]rawEntry, error) {
	br := bufio.NewReader(sr)
	entries := make([]rawEntry, 0, d.records)
	var read uint64
	for i := uint64(0); i < d.records; i++ {
		e, n, err := readCentralEntry(br)
		if err != nil {
			return nil, err
		}
		read += n
		entries = append(entries, e)
	}
	if read != d.size {
		return nil, formatf("the central directory holds %d bytes of entries, the end record says %d", read, d.size)
	}
	return entries, nil
}

// readCentralEntry reads one central directory header and returns it
// with its length.
func readCentralEntry(br *bufio.Reader) (rawEntry, uint64, error) {
	h := make(le, centralLen)
	if _, err := io.ReadFull(br, h); err != nil || h.u32(0) != sigCentral {
		return rawEntry{}, 0, formatf("a central directory entry is missing or malformed")
	}
	nameLen, extraLen, commentLen := int(h.u16(28)), int(h.u16(30)), int(h.u16(32))
	if nameLen > MaxNameBytes {
		return rawEntry{}, 0, fmt.Errorf("%w: an entry name of %d bytes, more than %d", ErrName, nameLen, MaxNameBytes)
	}
	rest := make([]byte, nameLen+extraLen+commentLen)
	if _, err := io.ReadFull(br, rest); err != nil {
		return rawEntry{}, 0, formatf("a central directory entry is truncated")
	}
	e := rawEntry{name: string(rest[:nameLen]), flags: h.u16(8), method: h.u16(10), crc: h.u32(16),
		csize: uint64(h.u32(20)), usize: uint64(h.u32(24)), offset: uint64(h.u32(42))}
	disk := uint64(h.u16(34))
	if err := applyZip64(rest[nameLen:nameLen+extraLen], []*uint64{&e.usize, &e.csize, &e.offset}, []uint64{max32, max32, max32}, &disk); err != nil {
		return rawEntry{}, 0, &Error{Entry: e.name, Err: err}
	}
	if disk != 0 {
		return rawEntry{}, 0, &Error{Entry: e.name, Err: formatf("starts on disk %d (a spanned archive)", disk)}
	}
	return e, uint64(centralLen + len(rest)), nil
}

// applyZip64 replaces each field at its 32-bit maximum with the next value
// of the zip64 extra field, in the order of fields (then the disk number,
// when disk is at its 16-bit maximum); a field at its maximum with no
// value for it is an error.
func applyZip64(extra le, fields []*uint64, maxes []uint64, disk *uint64) error {
	data, found := findExtra(extra, zip64ExtraID)
	for i, f := range fields {
		if *f != maxes[i] {
			continue
		}
		if len(data) < 8 {
			return formatf("a size or offset defers to a zip64 extra field that is missing or short")
		}
		*f, data = data.u64(0), data[8:]
	}
	if disk != nil && *disk == max16 && found {
		if len(data) < 4 {
			return formatf("the disk number defers to a zip64 extra field that is short")
		}
		*disk = uint64(data.u32(0))
	}
	return nil
}

// findExtra returns the data of the extra field id.
func findExtra(extra le, id uint16) (le, bool) {
	for len(extra) >= 4 {
		tag, n := extra.u16(0), int(extra.u16(2))
		if 4+n > len(extra) {
			return nil, false
		}
		if tag == id {
			return extra[4 : 4+n], true
		}
		extra = extra[4+n:]
	}
	return nil, false
}

// readLocals reads each entry's local header, which must agree with the
// central directory: same name, same method and flags' encryption, and
// (unless a data descriptor follows the data) the same sizes and CRC.
func readLocals(r io.ReaderAt, entries []rawEntry) error {
	for i := range entries {
		if err := readLocal(r, &entries[i]); err != nil {
			return &Error{Entry: entries[i].name, Err: err}
		}
	}
	return nil
}

func readLocal(r io.ReaderAt, e *rawEntry) error {
	h := make(le, localLen)
	if _, err := r.ReadAt(h, int64(e.offset)); err != nil || h.u32(0) != sigLocal {
		return formatf("no local header at %d", e.offset)
	}
	nameLen, extraLen := int(h.u16(26)), int(h.u16(28))
	rest := make([]byte, nameLen+extraLen)
	if _, err := r.ReadAt(rest, int64(e.offset)+localLen); err != nil {
		return formatf("the local header is truncated")
	}
	if string(rest[:nameLen]) != e.name {
		return formatf("the local header names it %q", rest[:nameLen])
	}
	flags := h.u16(6)
	if (flags|e.flags)&flagEncrypted != 0 {
		return ErrEncrypted
	}
	if h.u16(8) != e.method || flags&flagDataDesc != e.flags&flagDataDesc {
		return formatf("the local header's method or flags (%d, %#x) differ from the central directory's (%d, %#x)", h.u16(8), flags, e.method, e.flags)
	}
	e.dataStart = e.offset + localLen + uint64(len(rest))
	if flags&flagDataDesc != 0 {
		return nil // the sizes follow the data; the central directory's are counted while extracting
	}
	return compareLocal(h, rest[nameLen:], e)
}

// compareLocal: the sizes and CRC a local header declares (zip64 extra
// included) are the central directory's.
func compareLocal(h, extra le, e *rawEntry) error {
	usize, csize := uint64(h.u32(22)), uint64(h.u32(18))
	if err := applyZip64(extra, []*uint64{&usize, &csize}, []uint64{max32, max32}, nil); err != nil {
		return err
	}
	if usize != e.usize || csize != e.csize || h.u32(14) != e.crc {
		return fmt.Errorf("%w: the local header declares %d bytes (%d compressed, CRC %08x), the central directory %d (%d compressed, CRC %08x)",
			ErrSize, usize, csize, h.u32(14), e.usize, e.csize, e.crc)
	}
	return nil
}

// checkOverlap refuses entries whose headers and data overlap, or run
// into the central directory: one compressed stream shared by many
// entries is how the smallest zip bombs multiply their output.
func checkOverlap(entries []rawEntry, dirOffset uint64) error {
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return entries[order[a]].offset < entries[order[b]].offset })
	var end uint64
	for _, i := range order {
		e := entries[i]
		if e.offset < end {
			return &Error{Entry: e.name, Err: formatf("overlaps the entry before it in the file")}
		}
		if e.csize > dirOffset || e.dataStart > dirOffset-e.csize {
			return &Error{Entry: e.name, Err: formatf("its data (%d bytes at %d) runs into the central directory at %d", e.csize, e.dataStart, dirOffset)}
		}
		end = e.dataStart + e.csize
	}
	return nil
}
