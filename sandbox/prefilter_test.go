package sandbox_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

// A run given to a spare helper, which loaded the pre-filter, loads only
// the delta (debug log: "seccomp": "delta"), and its target is refused
// exactly what the run's whole filter refuses: the helper's own calls
// (seccomp.HelperCalls) kill it, clone3 is ENOSYS, fork is EPERM, a
// thread and setuid's refusal are as without the pre-filter.
func TestSpareLoadsDelta(t *testing.T) {
	log := filepath.Join(t.TempDir(), "debug.jsonl")
	sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 63700, DebugLog: log})
	if err != nil {
		t.Skip("the full sandbox: ", err)
	}
	defer sb.Close()
	if !sandbox.Warm(sb) || !sb.Capabilities().Seccomp {
		t.Skip("no zygote or no seccomp at this host's level: no spare loads a pre-filter")
	}
	sl := slotOf(t, sb)
	box := boxWith(t, sl, hostile(t, "syscalls"), hostile(t, "threads"))
	quick := sandbox.Limits{CPUTime: scaled(time.Second), WallTime: scaled(3 * time.Second), Memory: 64 << 20}
	cases := []struct {
		prog, arg string
		status    sandbox.Status
		source    string
		out       string
	}{
		{"./syscalls", "setns", sandbox.RE, sandbox.SourceSeccomp, ""},
		{"./syscalls", "sethostname", sandbox.RE, sandbox.SourceSeccomp, ""},
		{"./syscalls", "move_mount", sandbox.RE, sandbox.SourceSeccomp, ""},
		{"./syscalls", "open_tree", sandbox.RE, sandbox.SourceSeccomp, ""},
		{"./syscalls", "umount2", sandbox.RE, sandbox.SourceSeccomp, ""},
		{"./syscalls", "mount", sandbox.RE, sandbox.SourceSeccomp, ""},
		{"./syscalls", "unshare", sandbox.RE, sandbox.SourceSeccomp, ""},
		{"./syscalls", "ptrace", sandbox.RE, sandbox.SourceSeccomp, ""},
		{"./syscalls", "clone3", sandbox.OK, "", "refused clone3: Function not implemented"},
		{"./syscalls", "fork", sandbox.OK, "", "refused fork: Operation not permitted"},
		{"./syscalls", "setuid", sandbox.OK, "", "refused setuid"},
		{"./threads", "", sandbox.OK, "", "threads ok"},
	}
	for _, tc := range cases {
		waitForSpare(t, sb)
		args := []string{tc.arg}
		if tc.arg == "" {
			args = nil
		}
		res := runIn(t, sl, box, quick, tc.prog, args...)
		if res.Status != tc.status || res.Source != tc.source || !strings.Contains(string(res.Stdout), tc.out) || strings.Contains(string(res.Stdout), "ALLOWED") {
			t.Errorf("%s %s: %s (%s) %q, want %s (%s) %q", tc.prog, tc.arg, res.Status, res.Source, res.Stdout, tc.status, tc.source, tc.out)
		}
	}
	sl.Settle()
	delta := 0
	for _, rec := range debugRecords(t, log) {
		if rec["seccomp"] == "delta" {
			delta++
		}
	}
	if delta != len(cases) {
		t.Errorf("%d of %d runs loaded the delta over a spare's pre-filter, want all", delta, len(cases))
	}
}

// waitForSpare waits until the Sandbox has a spare helper ready.
func waitForSpare(t *testing.T, sb *sandbox.Sandbox) {
	t.Helper()
	deadline := time.Now().Add(scaled(5 * time.Second))
	for sandbox.Spares(sb) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no spare helper within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}
