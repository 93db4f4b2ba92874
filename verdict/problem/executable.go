package problem

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// ErrNotExecutable is a package's compiled program that docket cannot
// run on this worker: not an ELF executable, or one for another
// architecture (errors.Is).
var ErrNotExecutable = errors.New("not an executable for this worker")

// elfMachines are the ELF machine and class of each architecture a
// worker may run on: a compiled program must match the worker's.
var elfMachines = map[string]struct {
	machine elf.Machine
	class   elf.Class
}{
	"amd64":   {elf.EM_X86_64, elf.ELFCLASS64},
	"386":     {elf.EM_386, elf.ELFCLASS32},
	"arm64":   {elf.EM_AARCH64, elf.ELFCLASS64},
	"arm":     {elf.EM_ARM, elf.ELFCLASS32},
	"riscv64": {elf.EM_RISCV, elf.ELFCLASS64},
	"ppc64le": {elf.EM_PPC64, elf.ELFCLASS64},
	"s390x":   {elf.EM_S390, elf.ELFCLASS64},
	"loong64": {elf.EM_LOONGARCH, elf.ELFCLASS64},
}

// CheckExecutable reports whether the file at path is an ELF executable
// docket can run on this worker (runtime.GOARCH): a program, static or
// dynamically linked, not an object file or a shared library. A script
// (#!) is refused too: its interpreter would have to be in the sandbox,
// and a script in a language docket has runs as a source once named
// with its extension. Errors wrap ErrNotExecutable.
func CheckExecutable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 4)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, []byte(elf.ELFMAG)) {
		if bytes.HasPrefix(head, []byte("#!")) {
			return fmt.Errorf("%w: a script (#!), not a compiled program", ErrNotExecutable)
		}
		return fmt.Errorf("%w: not an ELF file", ErrNotExecutable)
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return fmt.Errorf("%w: a damaged ELF file: %v", ErrNotExecutable, err)
	}
	return checkELF(ef)
}

// checkELF checks an ELF file's machine, class and type.
func checkELF(ef *elf.File) error {
	want, ok := elfMachines[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("%w: docket runs no compiled program on %s", ErrNotExecutable, runtime.GOARCH)
	}
	if ef.Machine != want.machine || ef.Class != want.class {
		return fmt.Errorf("%w: built for %v (%v), not for this worker's %s (%v, %v)", ErrNotExecutable, ef.Machine, ef.Class, runtime.GOARCH, want.machine, want.class)
	}
	if ef.Type != elf.ET_EXEC && ef.Type != elf.ET_DYN {
		return fmt.Errorf("%w: an ELF %v, not a program", ErrNotExecutable, ef.Type)
	}
	// A position-independent executable is ET_DYN as a shared library
	// is; a library has no entry point of its own.
	if ef.Entry == 0 {
		return fmt.Errorf("%w: an ELF %v without an entry point (a library?), not a program", ErrNotExecutable, ef.Type)
	}
	return nil
}

// cmsExecutable reads dir/name, a compiled comparator or manager given
// without its source, as the package's program to run as it is (what
// CMS's italy_yaml loader always takes); anything docket cannot run is
// an error that says what to give instead.
func (l *loader) cmsExecutable(dir, name string) *Program {
	rel := dir + "/" + name
	path, ok := l.regularFile(rel)
	if !ok {
		l.errorf("%s: not a regular file: give the program's source (%s.cpp or another language's) or its executable", rel, rel)
		return nil
	}
	if err := CheckExecutable(path); err != nil {
		l.fail(fmt.Errorf("%s: %w: give its source (%s.cpp, or %s.py for a Python script) or an executable for linux/%s", rel, err, rel, rel, runtime.GOARCH))
		return nil
	}
	return &Program{Dir: filepath.Join(l.dir, dir), Sources: []string{name}, Executable: true}
}
