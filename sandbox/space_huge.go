package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// A box's large files are copied into the run's tmpfs in huge pages: a
// statically linked C++ program (2.2 MB), a Go or Haskell binary, is
// copied for every test, and in 4 KiB pages its copy and release cost
// about 1.8 ms of CPU a test here, against 0.5 ms in 2 MiB pages.
//
// Only docket's copy gets them. The tmpfs is made with huge=within_size
// (a huge page only where a file's size covers all of it, so a file's
// pages never cost more than its size) and switched to huge=never before
// the run sees it: a run's own files stay in 4 KiB pages, so that a
// sparse file it writes one byte into costs it one page of its disk and
// memory limits, never 2 MiB.

// hugePageSize is the size of the tmpfs's huge pages (x86-64, arm64 with
// 4 KiB pages): a box whose files are all smaller gets none.
const hugePageSize = 2 << 20

// fspickEmptyPath and fspickCloexec are FSPICK_EMPTY_PATH and
// FSPICK_CLOEXEC, which x/sys does not define.
const (
	fspickCloexec   = 0x1
	fspickEmptyPath = 0x8
)

// hugeRefused is set once a kernel refused huge=within_size (built
// without transparent huge pages), or refused to switch a tmpfs to
// huge=never afterwards: later spaces do not ask again.
var hugeRefused atomic.Bool

// wantsHugeCopy reports whether a box made from source should be copied
// in huge pages: it holds a regular file of a huge page or more.
func wantsHugeCopy(source []entryStamp) bool {
	if hugeRefused.Load() {
		return false
	}
	for _, e := range source {
		if e.mode&unix.S_IFMT == unix.S_IFREG && e.size >= hugePageSize {
			return true
		}
	}
	return false
}

// setHugeOption sets the new tmpfs's huge= option on its fs context:
// within_size for a huge copy where the kernel takes it, else never. It
// says which it set.
func setHugeOption(fsfd int, hugeCopy bool) (bool, error) {
	if hugeCopy {
		err := unix.FsconfigSetString(fsfd, "huge", "within_size")
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, unix.EINVAL) {
			return false, fmt.Errorf("tmpfs huge=within_size: %w", err)
		}
		hugeRefused.Store(true) // the context is still good for never
	}
	if err := unix.FsconfigSetString(fsfd, "huge", "never"); err != nil {
		return false, fmt.Errorf("tmpfs huge=never: %w", err)
	}
	return false, nil
}

// hugePagesOff switches the tmpfs mounted at mnt to huge=never: what is
// in huge pages stays there, and nothing written from now on goes into
// one.
func hugePagesOff(mnt *os.File) error {
	fd, err := pickFS(int(mnt.Fd()))
	if err != nil {
		return fmt.Errorf("fspick space: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.FsconfigSetString(fd, "huge", "never"); err != nil {
		return fmt.Errorf("space huge=never: %w", err)
	}
	if err := unix.FsconfigReconfigure(fd); err != nil {
		return fmt.Errorf("space reconfigure: %w", err)
	}
	return nil
}

// pickFS opens the tmpfs mounted at mnt for reconfiguration. A variable
// for the test of a refusal: the worker container's seccomp profile
// refuses fspick (docs/deploy.md), and docket then copies in small pages.
var pickFS = func(mnt int) (int, error) {
	return unix.Fspick(mnt, "", fspickEmptyPath|fspickCloexec)
}
