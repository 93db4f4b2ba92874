package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/docketjudge/docket/sandbox"
)

// looseMounts is the hostile side of the "recursive read-only" check:
// inside a run, every mount but the box, /tmp, /proc and /dev must be
// read-only, nosuid and nodev, the host's mounts below a bound directory
// (a separate /usr/local) included (sandbox.MountViolations). A table it
// cannot read counts as loose: nothing was shown to hold.
func looseMounts() (bool, string) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return true, fmt.Sprintf("mount table: %v", err)
	}
	if v := sandbox.MountViolations(string(b)); len(v) > 0 {
		return true, "mounts: " + strings.Join(v, "; ")
	}
	return false, fmt.Sprintf("mounts: %d, all read-only, nosuid, nodev where they must be", strings.Count(string(b), "\n"))
}
