package sandbox

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A box's file of a huge page or more is copied into the space in huge
// pages, and what is written into the space afterwards (the run's files)
// never is: a sparse file with one byte written costs one small page.
func TestSpaceHugeCopy(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a space needs root (fsmount), and the page flags need CAP_SYS_ADMIN")
	}
	skipUnlessHugeAsMounted(t)
	src := t.TempDir()
	program := make([]byte, hugePageSize+hugePageSize/8)
	for i := range program {
		program[i] = byte(i)
	}
	if err := os.WriteFile(filepath.Join(src, "main"), program, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "small"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fallbacks := thpFileFallbacks()
	sp, err := newSpace(spaceKey{from: src, disk: 64 << 20, inodes: 64, uid: 65000, gid: 65000})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	if hugeRefused.Load() {
		t.Skip("this kernel refuses huge=within_size (no transparent huge pages): spaces copy in small pages")
	}
	if !inHugePage(t, sp.dir("box/main")) {
		if thpFileFallbacks() > fallbacks {
			t.Skip("the kernel had no free huge page for the copy (/proc/vmstat's thp_file_fallback went up): fragmented memory, the copy fell back to small pages")
		}
		t.Error("the box's 2.25 MiB file was not copied into a huge page")
	}
	if got, err := os.ReadFile(sp.dir("box/main")); err != nil || string(got) != string(program) {
		t.Errorf("the copy differs from the program (%v)", err)
	}
	// What the run writes: a 4 MiB file of one byte.
	f, err := os.OpenFile(sp.dir("box/sparse"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(2 * hugePageSize); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{1}, 0); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	if st.Blocks*512 > pageSize {
		t.Errorf("one byte written into a sparse file of the space took %d bytes: huge pages were still on for the run", st.Blocks*512)
	}
}

// skipUnlessHugeAsMounted skips where a tmpfs's huge pages are not what
// its mount says: the host's shmem_enabled at deny (none) or force (all),
// or a huge page of another size than hugePageSize.
func skipUnlessHugeAsMounted(t *testing.T) {
	const thp = "/sys/kernel/mm/transparent_hugepage/"
	if b, err := os.ReadFile(thp + "shmem_enabled"); err == nil {
		for _, over := range []string{"[deny]", "[force]"} {
			if strings.Contains(string(b), over) {
				t.Skipf("%sshmem_enabled is %s: tmpfs huge pages do not follow the mount's option", thp, over)
			}
		}
	}
	if b, err := os.ReadFile(thp + "hpage_pmd_size"); err == nil && strings.TrimSpace(string(b)) != strconv.Itoa(hugePageSize) {
		t.Skipf("huge pages of %s bytes here, not %d", strings.TrimSpace(string(b)), hugePageSize)
	}
}

// thpFileFallbacks is /proc/vmstat's count of file huge pages the kernel
// could not allocate, -1 where it has none.
func thpFileFallbacks() int64 {
	b, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "thp_file_fallback "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// inHugePage reports whether the first page of the file at path is part
// of a transparent huge page, from the kernel's page flags (its frame
// from /proc/self/pagemap, then /proc/kpageflags' THP bit).
func inHugePage(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, pageSize, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if m[0] != 0 { // fault the page in (the copy's first byte is 0)
		t.Fatalf("the mapped file begins with %#x", m[0])
	}
	entry := readUint64At(t, "/proc/self/pagemap", int64(uintptr(unsafe.Pointer(&m[0]))/pageSize*8))
	const present, pfnMask = 1 << 63, 1<<55 - 1
	if entry&present == 0 || entry&pfnMask == 0 {
		t.Fatalf("pagemap gives no frame for the mapped page (entry %#x)", entry)
	}
	const kpfTHP = 1 << 22
	return readUint64At(t, "/proc/kpageflags", int64(entry&pfnMask*8))&kpfTHP != 0
}

func readUint64At(t *testing.T, path string, off int64) uint64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [8]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		t.Fatalf("%s at %d: %v", path, off, err)
	}
	return binary.LittleEndian.Uint64(b[:])
}

// A copy sized ahead ends at what was copied, whatever size the source
// had when it was stat'ed.
func TestCopyContentsSize(t *testing.T) {
	dir := t.TempDir()
	const n = hugePageSize + 100
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, make([]byte, n), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, stated := range []int64{n, n + 5000, n - 5000, 10} {
		in, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		err = copyContents(int(out.Fd()), int(in.Fd()), stated)
		st, serr := out.Stat()
		in.Close()
		out.Close()
		if err != nil || serr != nil || st.Size() != n {
			t.Errorf("source of %d bytes stat'ed at %d: copy of %d bytes (%v, %v)", n, stated, st.Size(), err, serr)
		}
	}
}

// Where the switch back to huge=never is refused (fspick, under the
// worker container's seccomp profile), the space is made again in small
// pages, and so are later ones: never a run with huge pages on.
func TestSpaceHugeRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a space needs root (fsmount), and the page flags need CAP_SYS_ADMIN")
	}
	skipUnlessHugeAsMounted(t)
	was, pick := hugeRefused.Load(), pickFS
	defer func() { hugeRefused.Store(was); pickFS = pick }()
	hugeRefused.Store(false)
	pickFS = func(int) (int, error) { return -1, unix.EPERM }
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "main"), make([]byte, hugePageSize+pageSize), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		sp, err := newSpace(spaceKey{from: src, disk: 64 << 20, inodes: 64, uid: 65000, gid: 65000})
		if err != nil {
			t.Fatalf("space %d: %v", i, err)
		}
		if inHugePage(t, sp.dir("box/main")) {
			t.Errorf("space %d: copied in a huge page, and huge pages could not be turned off", i)
		}
		sp.close()
	}
	if !hugeRefused.Load() {
		t.Error("the refusal was not remembered")
	}
}
