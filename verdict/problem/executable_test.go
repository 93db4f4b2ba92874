package problem

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// thisELF is a real executable of this worker's architecture: the test
// binary itself.
func thisELF(t *testing.T) []byte {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// patched is b with the little-endian field of size bytes at off set to
// v: an ELF header's e_type (16), e_machine (18) or, in a 64-bit file,
// e_entry (24).
func patched(b []byte, off, size int, v uint64) string {
	c := slices.Clone(b)
	switch size {
	case 2:
		binary.LittleEndian.PutUint16(c[off:], uint16(v))
	case 8:
		binary.LittleEndian.PutUint64(c[off:], v)
	}
	return string(c)
}

// otherMachine is an ELF machine that is not this worker's.
func otherMachine() uint64 {
	if runtime.GOARCH == "amd64" {
		return 183 // EM_AARCH64
	}
	return 62 // EM_X86_64
}

// A CMS task folder with only the executable check/checker (the
// Makefile's output) or cor/correttore has it as its comparator, run
// as it is; with the source beside it, docket builds the source. The
// executable is one of the package's trusted programs.
func TestCMSExecutableComparator(t *testing.T) {
	elfBody := string(thisELF(t))
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string // the checker's path in the package
		exe   bool
	}{
		{"checker alone", map[string]string{"check/checker": elfBody}, "check/checker", true},
		{"correttore alone", map[string]string{"cor/correttore": elfBody}, "cor/correttore", true},
		{"source beside it", map[string]string{"check/checker": elfBody, "check/checker.cpp": "int main(){}"}, "check/checker.cpp", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Load(cmsTaskDir(t, cmsStd, 2, c.files))
			if err != nil {
				t.Fatal(err)
			}
			ch := p.Checker
			if ch == nil || ch.Protocol != CMS || ch.Executable != c.exe || !slices.Equal(p.TrustedPrograms(), []string{c.want}) {
				t.Fatalf("checker %+v, trusted %v; want %s", ch, p.TrustedPrograms(), c.want)
			}
			if len(p.ValidatorFlags) != 0 {
				t.Errorf("white-diff beside a comparator: %v", p.ValidatorFlags)
			}
		})
	}
}

// An executable manager makes a Communication task, as its source does.
func TestCMSExecutableManager(t *testing.T) {
	for _, dir := range []string{"check", "cor"} {
		p, err := Load(cmsTaskDir(t, cmsStd+"num_processes: 2\n", 2, map[string]string{dir + "/manager": string(thisELF(t))}))
		if err != nil {
			t.Fatal(err)
		}
		c := p.Communication
		if c == nil || !c.Manager.Executable || c.Manager.Protocol != CMS || c.Processes != 2 || !slices.Equal(p.TrustedPrograms(), []string{dir + "/manager"}) {
			t.Errorf("%s: communication %+v, trusted %v", dir, c, p.TrustedPrograms())
		}
	}
}

// What docket cannot run as a compiled program is a load error naming
// the file and what to give instead, matched by ErrNotExecutable.
func TestCMSExecutableRefused(t *testing.T) {
	elfBody := thisELF(t)
	for _, c := range []struct {
		name, file, body, want string
	}{
		{"garbage", "check/checker", "MZ\x90\x00not a program", "check/checker: not an executable for this worker: not an ELF file"},
		{"empty", "cor/correttore", "", "cor/correttore: not an executable for this worker: not an ELF file"},
		{"script", "check/checker", "#!/usr/bin/env python3\nprint(1)\n", "a script (#!), not a compiled program: give its source (check/checker.cpp, or check/checker.py"},
		{"truncated", "check/manager", "\x7fELF", "check/manager: not an executable for this worker: a damaged ELF file"},
		{"another architecture", "check/checker", patched(elfBody, 18, 2, otherMachine()), "not for this worker's"},
		{"object file", "check/checker", patched(elfBody, 16, 2, 1), "an ELF ET_REL, not a program"},
		{"shared library", "cor/manager", patched([]byte(patched(elfBody, 16, 2, 3)), 24, 8, 0), "an ELF ET_DYN without an entry point"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(cmsTaskDir(t, cmsStd, 2, map[string]string{c.file: c.body}))
			if !errors.Is(err, ErrNotExecutable) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file+": ") {
				t.Fatalf("Load: %v, want %q", err, c.want)
			}
		})
	}
}

// A link to an executable elsewhere in the package is read as the file
// it names; one out of the package is refused before anything reads it.
func TestCMSExecutableLinked(t *testing.T) {
	d := cmsTaskDir(t, cmsStd, 2, map[string]string{"bin/checker.elf": string(thisELF(t))})
	symlink(t, "../bin/checker.elf", filepath.Join(d, "check/checker"))
	p, err := Load(d)
	if err != nil || p.Checker == nil || !p.Checker.Executable {
		t.Fatalf("Load: %v, checker %+v", err, p)
	}
	outside := filepath.Join(t.TempDir(), "checker")
	if err := os.WriteFile(outside, thisELF(t), 0o755); err != nil {
		t.Fatal(err)
	}
	d = cmsTaskDir(t, cmsStd, 2, nil)
	rel, err := filepath.Rel(filepath.Join(d, "check"), outside)
	if err != nil {
		t.Fatal(err)
	}
	symlink(t, rel, filepath.Join(d, "check/checker"))
	if _, err := Load(d); !errors.Is(err, ErrLinkOutside) || !strings.Contains(err.Error(), "check/checker") {
		t.Fatalf("Load: %v, want %v", err, ErrLinkOutside)
	}
}

// The package's digest covers the executable's content: another build
// of the comparator is another package, never a stale cached program.
func TestCMSExecutableDigest(t *testing.T) {
	b := thisELF(t)
	p1, err1 := Load(cmsTaskDir(t, cmsStd, 2, map[string]string{"check/checker": string(b)}))
	p2, err2 := Load(cmsTaskDir(t, cmsStd, 2, map[string]string{"check/checker": string(b) + "\x00"}))
	if err1 != nil || err2 != nil || p1.Digest == p2.Digest {
		t.Fatalf("digests %v %v: %v %v", p1, p2, err1, err2)
	}
}
