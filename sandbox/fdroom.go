package sandbox

import (
	"sync"

	"github.com/docketjudge/docket/sandbox/fswatch"
	"golang.org/x/sys/unix"
)

// roomToHold reports whether docket may hold descriptors for what it
// prepares ahead beyond what a run needs (a box's clones, the watches of
// sources and templates): only with a soft RLIMIT_NOFILE of 4096 or more
// (Go raises the soft limit to the hard one at start). A worker held to
// fewer descriptors opens each when the run needs it, as before, and
// keeps its few for the runs themselves.
var roomToHold = sync.OnceValue(func() bool {
	var rl unix.Rlimit
	return unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur >= 4096
})

// newWatch is a Watch with what mark marks, or nil where docket holds no
// more descriptors (roomToHold), or a mark fails: the caller then stamps
// what it would have watched, before each use.
func newWatch(mark func(*fswatch.Watch) error) *fswatch.Watch {
	if !roomToHold() {
		return nil
	}
	w, err := fswatch.New()
	if err != nil {
		return nil
	}
	if err := mark(w); err != nil {
		w.Close()
		return nil
	}
	return w
}
