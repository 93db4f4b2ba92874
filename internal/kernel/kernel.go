// Package kernel tells which Linux release the tests run on, for the
// checks whose expected answer depends on it (a feature a release added).
//
// It must not import any other package of docket's; only tests import it.
package kernel

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Release is the running kernel's release string (uname -r).
func Release() (string, error) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", err
	}
	return unix.ByteSliceToString(u.Release[:]), nil
}

// AtLeast reports whether the running kernel is release major.minor or
// later, and the release it read.
func AtLeast(major, minor int) (bool, string, error) {
	release, err := Release()
	if err != nil {
		return false, "", err
	}
	var a, b int
	if _, err := fmt.Sscanf(release, "%d.%d", &a, &b); err != nil {
		return false, release, fmt.Errorf("kernel release %q: %w", release, err)
	}
	return a > major || (a == major && b >= minor), release, nil
}
