package ziparchive

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// file is an entry for mkzip: a name, its body, and optionally a mode
// (external attributes), a method and flags.
type file struct {
	name, body string
	mode       fs.FileMode
	method     uint16
	flags      uint16
}

// mkzip builds an archive with archive/zip's writer (deflated, sizes in a
// data descriptor, as Create writes them, unless method says otherwise).
func mkzip(t testing.TB, files ...file) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Flags: f.flags}
		if f.method != 0 {
			h.Method = f.method
		}
		if f.mode != 0 {
			h.SetMode(f.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawzip builds an archive of stored entries whose local headers declare
// their sizes (no data descriptor), each entry's header as given: its
// sizes and CRC may lie.
func rawzip(t testing.TB, hs ...*zip.FileHeader) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, h := range hs {
		body := h.Comment // the bytes written, whatever the header says
		h.Comment = ""
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// stored is a truthful stored entry for rawzip.
func stored(name, body string) *zip.FileHeader {
	return &zip.FileHeader{Name: name, Method: zip.Store, CRC32: crc32.ChecksumIEEE([]byte(body)),
		CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(body)), Comment: body}
}

func extract(t *testing.T, data []byte, lim Limits) (string, error) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "pkg")
	err := Extract(bytes.NewReader(data), int64(len(data)), dst, lim)
	if err != nil {
		if _, serr := os.Lstat(dst); !errors.Is(serr, fs.ErrNotExist) {
			t.Errorf("refused (%v), yet %s is left: %v", err, dst, serr)
		}
	}
	return dst, err
}

// tree lists dst: path -> mode and, for files, content.
func listTree(t *testing.T, dst string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dst, p)
		info, _ := d.Info()
		v := info.Mode().String()
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		got[rel] = v
		return nil
	})
	return got
}

func TestExtractLayouts(t *testing.T) {
	old := umask(0o077) // the modes written are 0644 and 0755 whatever the umask
	defer umask(old)
	root := mkzip(t, file{name: "problem.yaml", body: "name: x\n"}, file{name: "data/secret/1.in", body: "1 2\n"},
		file{name: "data/sample/"}, file{name: "__MACOSX/._problem.yaml", body: "junk"})
	folder := mkzip(t, file{name: "aplusb/"}, file{name: "aplusb/problem.yaml", body: "name: x\n"},
		file{name: "aplusb/data/secret/1.in", body: "1 2\n"}, file{name: "aplusb/data/sample/"},
		file{name: "__MACOSX/aplusb/._problem.yaml", body: "junk"})
	storedZip := rawzip(t, stored("problem.yaml", "name: x\n"), stored("data/secret/1.in", "1 2\n"), stored("data/sample/", ""))
	want := map[string]string{".": "drwxr-xr-x", "problem.yaml": "-rw-r--r-- name: x\n", "data": "drwxr-xr-x",
		"data/secret": "drwxr-xr-x", "data/secret/1.in": "-rw-r--r-- 1 2\n", "data/sample": "drwxr-xr-x"}
	for name, data := range map[string][]byte{"files at the root": root, "one top-level folder": folder, "stored, sizes in the local headers": storedZip} {
		t.Run(name, func(t *testing.T) {
			dst, err := extract(t, data, DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			got := listTree(t, dst)
			if len(got) != len(want) {
				t.Errorf("got %v, want %v", got, want)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

// Two top-level folders, or a folder and a file, are files at the root.
func TestExtractNoFolderStripped(t *testing.T) {
	dst, err := extract(t, mkzip(t, file{name: "a/x", body: "1"}, file{name: "b/y", body: "2"}, file{name: "c", body: "3"}), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	got := listTree(t, dst)
	for _, p := range []string{"a/x", "b/y", "c"} {
		if got[p] == "" {
			t.Errorf("%s missing: %v", p, got)
		}
	}
}

// refusal is a hostile archive, the error it must get, and the entry it
// names ("" when the archive as a whole is to blame).
type refusal struct {
	name  string
	data  []byte
	lim   Limits
	want  error
	entry string
}

func checkRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lim := c.lim
			if lim == (Limits{}) {
				lim = DefaultLimits
			}
			_, err := extract(t, c.data, lim)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			var ee *Error
			if got := errors.As(err, &ee); c.entry != "" && (!got || ee.Entry != c.entry) {
				t.Errorf("%v: want it to name entry %q", err, c.entry)
			}
			t.Logf("%s: %v", c.name, err)
		})
	}
}

func TestExtractRefusesNames(t *testing.T) {
	var cases []refusal
	for _, n := range []string{"../evil", "a/../../evil", "/etc/passwd", `a\..\evil`, "C:/evil", "C:evil", "a//b", "./a",
		"bad\xff.txt", "nul\x00.txt", "esc\x1b[31m.txt", "c1\u0085.txt", "a/" + strings.Repeat("x", 256)} {
		cases = append(cases, refusal{name: n, data: mkzip(t, file{name: "ok", body: "1"}, file{name: n, body: "x"}), want: ErrName, entry: n})
	}
	deep := strings.Repeat("d/", 40) + "f"
	cases = append(cases, refusal{name: "40 levels deep", data: mkzip(t, file{name: deep, body: "x"}), want: ErrLimit, entry: deep})
	checkRefusals(t, cases)
}

func TestExtractRefusesModesAndDuplicates(t *testing.T) {
	checkRefusals(t, []refusal{
		{"symbolic link", mkzip(t, file{name: "problem.yaml", body: "/etc/shadow", mode: fs.ModeSymlink | 0o777}), Limits{}, ErrLink, "problem.yaml"},
		{"block device", mkzip(t, file{name: "dev", mode: fs.ModeDevice | 0o644}), Limits{}, ErrSpecial, "dev"},
		{"character device", mkzip(t, file{name: "tty", mode: fs.ModeDevice | fs.ModeCharDevice | 0o644}), Limits{}, ErrSpecial, "tty"},
		{"FIFO", mkzip(t, file{name: "fifo", mode: fs.ModeNamedPipe | 0o644}), Limits{}, ErrSpecial, "fifo"},
		{"socket", mkzip(t, file{name: "sock", mode: fs.ModeSocket | 0o644}), Limits{}, ErrSpecial, "sock"},
		{"directory mode on a file name", mkzip(t, file{name: "d", mode: fs.ModeDir | 0o755}), Limits{}, ErrFormat, "d"},
		{"duplicate", mkzip(t, file{name: "a.txt", body: "1"}, file{name: "a.txt", body: "2"}), Limits{}, ErrDuplicate, "a.txt"},
		{"duplicate directory", mkzip(t, file{name: "d/"}, file{name: "d/"}), Limits{}, ErrDuplicate, "d/"},
		{"case", mkzip(t, file{name: "A.txt", body: "1"}, file{name: "a.txt", body: "2"}), Limits{}, ErrDuplicate, "a.txt"},
		{"case of a directory", mkzip(t, file{name: "Data/1.in", body: "1"}, file{name: "data/2.in", body: "2"}), Limits{}, ErrDuplicate, "data/2.in"},
		{"file and directory", mkzip(t, file{name: "a", body: "1"}, file{name: "a/b", body: "2"}), Limits{}, ErrDuplicate, "a/b"},
		{"directory and file", mkzip(t, file{name: "a/b", body: "1"}, file{name: "A", body: "2"}), Limits{}, ErrDuplicate, "A"},
		{"encrypted", mkzip(t, file{name: "e", body: "x", flags: 0x1}), Limits{}, ErrEncrypted, "e"},
		{"bzip2", rawzip(t, &zip.FileHeader{Name: "b", Method: 12, CompressedSize64: 1, UncompressedSize64: 1, Comment: "x"}), Limits{}, ErrMethod, "b"},
	})
}

func TestExtractRefusesLimits(t *testing.T) {
	small := DefaultLimits
	small.MaxTotal, small.MaxEntries = 100, 3
	ratio := DefaultLimits
	ratio.MaxRatio = 100
	zeros := strings.Repeat("\x00", 2<<20)
	checkRefusals(t, []refusal{
		{"total", mkzip(t, file{name: "a", body: strings.Repeat("a", 60)}, file{name: "b", body: strings.Repeat("b", 60)}), small, ErrLimit, ""},
		{"entries", mkzip(t, file{name: "a"}, file{name: "b"}, file{name: "c"}, file{name: "d"}), small, ErrLimit, ""},
		{"ratio", mkzip(t, file{name: "zeros", body: zeros}), ratio, ErrLimit, "zeros"},
		{"declared 2 GiB", rawzip(t, &zip.FileHeader{Name: "big", Method: zip.Store, CompressedSize64: 1, UncompressedSize64: 2 << 30, Comment: "x"}), Limits{}, ErrLimit, "big"},
		{"declared ratio", rawzip(t, &zip.FileHeader{Name: "bomb", Method: zip.Deflate, CompressedSize64: 100, UncompressedSize64: 10 << 20, Comment: strings.Repeat("x", 100)}), Limits{}, ErrLimit, "bomb"},
	})
}

func TestExtractRefusesLyingSizes(t *testing.T) {
	longer := stored("long", "0123456789")
	longer.UncompressedSize64 = 3
	shorter := stored("short", "0123456789")
	shorter.UncompressedSize64 = 20
	badCRC := stored("crc", "0123456789")
	badCRC.CRC32++
	deflated := mkzip(t, file{name: "d", body: strings.Repeat("abc", 100)})
	// Go's writer puts the sizes in the data descriptor and the central
	// directory: the central directory says 300; make it say 200.
	lie := patchCentral(t, deflated, 0, 24, 200)
	local := rawzip(t, stored("local", "0123456789"))
	binary.LittleEndian.PutUint32(local[22:], 9) // the local header's uncompressed size
	checkRefusals(t, []refusal{
		{"stored, longer than declared", rawzip(t, longer), Limits{}, ErrSize, "long"},
		{"stored, shorter than declared", rawzip(t, shorter), Limits{}, ErrSize, "short"},
		{"deflated, longer than declared", lie, Limits{}, ErrSize, "d"},
		{"local and central sizes differ", local, Limits{}, ErrSize, "local"},
		{"CRC", rawzip(t, badCRC), Limits{}, ErrFormat, "crc"},
	})
}

// patchCentral sets the 32-bit field at off of the i-th central directory
// header to v.
func patchCentral(t *testing.T, data []byte, i, off int, v uint32) []byte {
	t.Helper()
	data = bytes.Clone(data)
	at := centralAt(t, data, i)
	binary.LittleEndian.PutUint32(data[at+off:], v)
	return data
}

func centralAt(t *testing.T, data []byte, i int) int {
	t.Helper()
	end := len(data) - endLen
	at := int(binary.LittleEndian.Uint32(data[end+16:]))
	for ; i > 0; i-- {
		h := le(data[at:])
		at += centralLen + int(h.u16(28)) + int(h.u16(30)) + int(h.u16(32))
	}
	return at
}

func TestExtractRefusesMalformed(t *testing.T) {
	good := rawzip(t, stored("a", "hello"), stored("b", "world"))
	truncated := good[:len(good)-10]
	trailing := append(bytes.Clone(good), "junk"...)
	prepended := append([]byte("MZ self-extracting stub"), good...)
	renamed := bytes.Clone(good)
	copy(renamed[localLen:], "z") // the first local header's name
	// Entry b's local header and data lie inside entry a's data: the
	// bytes of one stream counted twice, as the smallest zip bombs do.
	inner := rawzip(t, stored("b", "world"))
	innerLocal := string(inner[:localLen+1+5])
	overlap := patchCentral(t, rawzip(t, stored("a", innerLocal), stored("b", "world")), 1, 42, localLen+1)
	checkRefusals(t, []refusal{
		{"not a zip", []byte("just text, not an archive at all"), Limits{}, ErrFormat, ""},
		{"empty", nil, Limits{}, ErrFormat, ""},
		{"truncated", truncated, Limits{}, ErrFormat, ""},
		{"data after the end", trailing, Limits{}, ErrFormat, ""},
		{"data before the start", prepended, Limits{}, ErrFormat, ""},
		{"local name differs", renamed, Limits{}, ErrFormat, "a"},
		{"overlapping entries", overlap, Limits{}, ErrFormat, "b"},
	})
}

// endRecord is an end of central directory record.
func endRecord(records uint16, size, offset uint32) []byte {
	b := make([]byte, endLen)
	binary.LittleEndian.PutUint32(b, sigEnd)
	binary.LittleEndian.PutUint16(b[8:], records)
	binary.LittleEndian.PutUint16(b[10:], records)
	binary.LittleEndian.PutUint32(b[12:], size)
	binary.LittleEndian.PutUint32(b[16:], offset)
	return b
}

// zip64End is a zip64 end record and its locator, the record at at.
func zip64End(at, records, size, offset uint64) []byte {
	b := make([]byte, end64Len+locator64Len)
	binary.LittleEndian.PutUint32(b, sigEnd64)
	binary.LittleEndian.PutUint64(b[4:], end64Len-12)
	binary.LittleEndian.PutUint64(b[24:], records)
	binary.LittleEndian.PutUint64(b[32:], records)
	binary.LittleEndian.PutUint64(b[40:], size)
	binary.LittleEndian.PutUint64(b[48:], offset)
	l := b[end64Len:]
	binary.LittleEndian.PutUint32(l, sigLocator64)
	binary.LittleEndian.PutUint64(l[8:], at)
	binary.LittleEndian.PutUint32(l[16:], 1)
	return b
}

// withEnd replaces a one-entry archive's end record with end(dirAt,
// dirSize), given where its central directory is and its size.
func withEnd(t *testing.T, end func(dirAt, dirSize uint64) []byte) []byte {
	t.Helper()
	data := rawzip(t, stored("a", "hello"))
	dirAt := uint64(binary.LittleEndian.Uint32(data[len(data)-endLen+16:]))
	body := data[:len(data)-endLen]
	return append(bytes.Clone(body), end(dirAt, uint64(len(body))-dirAt)...)
}

func TestExtractZip64(t *testing.T) {
	z64 := func(records, size16 uint64, e16 uint16) func(uint64, uint64) []byte {
		return func(dirAt, dirSize uint64) []byte {
			at := dirAt + dirSize
			return append(zip64End(at, records, dirSize+size16, dirAt), endRecord(e16, max32, max32)...)
		}
	}
	valid := withEnd(t, z64(1, 0, max16))
	if _, err := extract(t, valid, DefaultLimits); err != nil {
		t.Errorf("a valid zip64 end: %v", err)
	}
	checkRefusals(t, []refusal{
		{"absurd zip64 count", withEnd(t, z64(1<<40, 0, max16)), Limits{}, ErrLimit, ""},
		{"count over the directory's size", withEnd(t, z64(50, 0, max16)), Limits{}, ErrFormat, ""},
		{"zip64 and end record disagree", withEnd(t, z64(1, 0, 2)), Limits{}, ErrFormat, ""},
		{"zip64 directory size wrong", withEnd(t, z64(1, 46, max16)), Limits{}, ErrFormat, ""},
		{"zip64 end missing", withEnd(t, func(dirAt, dirSize uint64) []byte { return endRecord(max16, max32, max32) }), Limits{}, ErrFormat, ""},
		{"absurd 16-bit count", withEnd(t, func(dirAt, dirSize uint64) []byte {
			return endRecord(60000, uint32(dirSize), uint32(dirAt))
		}), Limits{}, ErrFormat, ""},
		{"sizes defer to a missing zip64 extra", patchCentral(t, rawzip(t, stored("a", "hello")), 0, 20, max32), Limits{}, ErrFormat, "a"},
	})
}

// Nothing is written outside dst, which must be new.
func TestExtractIntoExisting(t *testing.T) {
	dst := t.TempDir()
	os.WriteFile(filepath.Join(dst, "keep"), []byte("x"), 0o644)
	data := mkzip(t, file{name: "a", body: "1"})
	if err := Extract(bytes.NewReader(data), int64(len(data)), dst, DefaultLimits); !errors.Is(err, fs.ErrExist) {
		t.Errorf("into an existing directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "keep")); err != nil {
		t.Errorf("what was there is gone: %v", err)
	}
}

func umask(m int) int { return syscall.Umask(m) }
