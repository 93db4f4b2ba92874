package nsinit

import (
	"testing"

	"github.com/docketjudge/docket/sandbox/rlimit"
)

// The helper (C with cgo) names every resource as rlimit.Name does: a run
// now sets all sixteen, so any of them can be the one a setup error names.
// Soft above hard is EINVAL for every resource, before any permission
// check.
func TestHelperRlimitNames(t *testing.T) {
	for r := 0; r < 16; r++ {
		req := Request{Argv: []string{"/bin/true"}, UID: -1, GID: -1,
			Rlimits: []rlimit.Limit{{Resource: r, Cur: 2, Max: 1}}}
		run := runHelper(t, encode(t, &req), true, nil)
		// Before the release, or from the forked target after it.
		want, got := "Erlimit: setrlimit "+rlimit.Name(r)+": invalid argument", run.setup
		if TargetIsChildOfInit {
			want, got = "X"+want[1:], run.exec
		}
		if got != want {
			t.Errorf("resource %d: got %+v, want %q", r, run, want)
		}
	}
}
