package sandbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/docketjudge/docket/sandbox/mount"
)

// MountViolations checks a run's mount table, the text of its
// /proc/self/mountinfo, against the flags the new root promises
// (docs/sandbox.md): the box, /tmp and /proc may be writable but are
// nosuid and nodev; /dev and its nodes are read-only and nosuid (the
// nodes must work, so no nodev); every other mount, the root itself, each
// bind and each host mount below a bind, is ro, nosuid and nodev (a bind
// a caller made Writable shows as looser: docket's own are not). It
// returns one line per mount that is looser, saying what it lacks. The
// selftest and the tests run it inside a run.
func MountViolations(mountinfo string) []string {
	var out []string
	for _, m := range mount.ParseMountinfo(mountinfo) {
		var lacks []string
		for _, need := range mountNeeds(m.Point) {
			if !slices.Contains(m.Options, need) {
				lacks = append(lacks, need)
			}
		}
		if len(lacks) > 0 {
			out = append(out, fmt.Sprintf("%s (%s) lacks %s", m.Point, strings.Join(m.Options, ","), strings.Join(lacks, ",")))
		}
	}
	return out
}

// mountNeeds is what a mount at point must have.
func mountNeeds(point string) []string {
	under := func(dir string) bool { return point == dir || strings.HasPrefix(point, dir+"/") }
	switch {
	case under(BoxDir), under("/tmp"), under("/proc"):
		return []string{"nosuid", "nodev"}
	case under("/dev"):
		return []string{"ro", "nosuid"}
	}
	return []string{"ro", "nosuid", "nodev"}
}
