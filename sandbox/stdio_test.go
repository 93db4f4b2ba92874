package sandbox_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/docketjudge/docket/sandbox"
)

// interleave writes n numbered lines to stdout and stderr in turn.
const interleave = `i=0; while [ $i -lt %d ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done`

// A compile step sends stdout and stderr into one buffer: the sandbox
// must use one pipe for both, so that one goroutine writes the buffer (no
// data race, which -race reports) and the streams keep the order in
// which the program wrote them.
func TestSharedStdoutStderr(t *testing.T) { eachHelperPath(t, sharedStdoutStderr) }

func sharedStdoutStderr(t *testing.T, sl *sandbox.Slot) {
	const n = 300
	var log bytes.Buffer
	cmd := sl.Command("/bin/sh", "-c", fmt.Sprintf(interleave, n))
	cmd.Stdout, cmd.Stderr = &log, &log
	res := run(t, cmd)
	var want strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&want, "out %d\nerr %d\n", i, i)
	}
	if res.Status != sandbox.OK || log.String() != want.String() {
		t.Errorf("status %s (%s); got %d bytes, want %d in the order written; first difference at byte %d",
			res.Status, res.Source, log.Len(), want.Len(), firstDiff(log.String(), want.String()))
	}
	if len(res.Stdout) != 0 || len(res.Stderr) != 0 {
		t.Errorf("output also kept in the result: %d, %d bytes", len(res.Stdout), len(res.Stderr))
	}
}

// The shared pipe is capped at Limits.Stdout, both streams together.
func TestSharedOutputCap(t *testing.T) {
	sl := testSlot(t)
	var log bytes.Buffer
	cmd := sl.Command("/bin/sh", "-c", fmt.Sprintf(interleave, 2000)) // about 20 KiB each
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.Limits = sandbox.Limits{Stdout: 30 << 10, Stderr: 1 << 20}
	res := run(t, cmd)
	if res.Status != sandbox.OLE || res.Source != sandbox.SourceOutput || log.Len() != 30<<10 {
		t.Errorf("status %s (%s) with %d bytes kept, want OLE (%s) at exactly %d", res.Status, res.Source, log.Len(), sandbox.SourceOutput, 30<<10)
	}
}

// Separate writers keep separate pipes, each with its own cap.
func TestSeparateStdoutStderr(t *testing.T) {
	sl := testSlot(t)
	var out, errb bytes.Buffer
	cmd := sl.Command("/bin/sh", "-c", fmt.Sprintf(interleave, 3))
	cmd.Stdout, cmd.Stderr = &out, &errb
	res := run(t, cmd)
	if res.Status != sandbox.OK || out.String() != "out 0\nout 1\nout 2\n" || errb.String() != "err 0\nerr 1\nerr 2\n" {
		t.Errorf("status %s; stdout %q, stderr %q", res.Status, out.String(), errb.String())
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
