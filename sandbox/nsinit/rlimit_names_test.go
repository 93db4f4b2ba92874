package nsinit

import (
	"testing"

	"github.com/docketjudge/docket/sandbox/rlimit"
)

// rlimitNames are the resources 0..15 (RLIM_NLIMITS) by number, as the
// helper names them in its messages.
var rlimitNames = []string{
	"RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_DATA", "RLIMIT_STACK",
	"RLIMIT_CORE", "RLIMIT_RSS", "RLIMIT_NPROC", "RLIMIT_NOFILE",
	"RLIMIT_MEMLOCK", "RLIMIT_AS", "RLIMIT_LOCKS", "RLIMIT_SIGPENDING",
	"RLIMIT_MSGQUEUE", "RLIMIT_NICE", "RLIMIT_RTPRIO", "RLIMIT_RTTIME",
}

// The helper names every resource: a run now sets all sixteen, so any of
// them can be the one a setup error names. Soft above hard is EINVAL for
// every resource, before any permission check; the forked target applies
// the limits after the release, so the message is an exec error.
func TestHelperRlimitNames(t *testing.T) {
	for r, name := range rlimitNames {
		req := Request{Argv: []string{"/bin/true"}, UID: -1, GID: -1,
			Rlimits: []rlimit.Limit{{Resource: r, Cur: 2, Max: 1}}}
		run := runHelper(t, encode(t, &req), nil)
		if want := "Xrlimit: setrlimit " + name + ": invalid argument"; run.exec != want {
			t.Errorf("resource %d: got %+v, want %q", r, run, want)
		}
	}
}
