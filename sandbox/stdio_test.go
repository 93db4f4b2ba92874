package sandbox_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

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

// A truncated stderr keeps its first Limits.Stderr bytes and drops the
// rest without ending the run: a program that writes 8 MiB to stderr and
// exits 0 is OK, with exactly the cap kept and the rest counted.
func TestTruncatedStderrKeepsTheCap(t *testing.T) {
	sl := testSlot(t)
	const total, keep = 8 << 20, 64 << 10
	cmd := sl.Command("/bin/sh", "-c", fmt.Sprintf("head -c %d /dev/zero >&2; echo done", total))
	cmd.Limits = sandbox.Limits{Processes: 4, Stderr: keep, TruncateStderr: true}
	res := run(t, cmd)
	if res.Status != sandbox.OK || string(res.Stdout) != "done\n" {
		t.Fatalf("status %s (%s), stdout %q; want OK and done", res.Status, res.Source, res.Stdout)
	}
	if len(res.Stderr) != keep || res.StderrDropped != total-keep {
		t.Errorf("kept %d bytes and dropped %d, want %d and %d", len(res.Stderr), res.StderrDropped, keep, total-keep)
	}
}

// A program flooding stderr without end under a truncated stderr runs
// into its time limit: TLE, not OLE (DOMjudge's test-fill-stderr). It
// writes far more than a GiB could take in the wall time allowed, and
// docket's heap holds only the cap: the flood is drained, not buffered.
func TestStderrFloodIsTLE(t *testing.T) {
	sl := testSlot(t)
	cmd := sl.Command("/bin/sh", "-c", "exec cat /dev/zero >&2")
	cmd.Limits = sandbox.Limits{CPUTime: 500 * time.Millisecond, WallTime: 3 * time.Second, Stderr: 64 << 10, TruncateStderr: true}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := run(t, cmd)
	runtime.ReadMemStats(&after)
	if res.Status != sandbox.TLE {
		t.Fatalf("status %s (%s), want TLE", res.Status, res.Source)
	}
	if len(res.Stderr) != 64<<10 || res.StderrDropped < 16<<20 {
		t.Errorf("kept %d bytes and dropped %d: want the 64 KiB cap kept and a flood drained", len(res.Stderr), res.StderrDropped)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("docket allocated %d MiB while %d MiB of stderr went by: the flood is buffered", grew>>20, res.StderrDropped>>20)
	}
	t.Logf("%s (%s) after %v CPU, %v wall; stderr: %d bytes kept, %d MiB dropped", res.Status, res.Source, res.CPUTime, res.WallTime, len(res.Stderr), res.StderrDropped>>20)
}

// Without TruncateStderr a stderr past its cap ends the run OLE (stderr),
// as before: the truncation is opt-in.
func TestStderrCapWithoutTruncateIsOLE(t *testing.T) {
	sl := testSlot(t)
	cmd := sl.Command("/bin/sh", "-c", "exec cat /dev/zero >&2")
	cmd.Stderr = &bytes.Buffer{}
	cmd.Limits = sandbox.Limits{CPUTime: 2 * time.Second, Stderr: 64 << 10}
	res := run(t, cmd)
	if res.Status != sandbox.OLE || res.Source != sandbox.SourceStderr {
		t.Errorf("status %s (%s), want OLE (%s)", res.Status, res.Source, sandbox.SourceStderr)
	}
}

// In-memory stdin reaches the target whole, whichever way it goes: up to
// 4096 bytes written into the pipe before the start, more through a
// copying goroutine, and readers of other kinds always through one. Each
// reader is drained, as os/exec drains it.
func TestInMemoryStdin(t *testing.T) {
	sl := testSlot(t)
	for _, size := range []int{0, 4, 4096, 4097, 200 << 10} {
		in := strings.Repeat("0123456789abcde\n", size/16+1)[:size]
		readers := map[string]interface {
			io.Reader
			Len() int
		}{
			"strings.Reader": strings.NewReader(in),
			"bytes.Reader":   bytes.NewReader([]byte(in)),
			"bytes.Buffer":   bytes.NewBufferString(in),
		}
		for name, r := range readers {
			cmd := sl.Command("/bin/cat")
			cmd.Stdin = r
			cmd.Limits = sandbox.Limits{Stdout: 1 << 20}
			res := run(t, cmd)
			if res.Status != sandbox.OK || string(res.Stdout) != in || r.Len() != 0 {
				t.Errorf("%s of %d bytes: status %s (%s), %d bytes out, %d left unread",
					name, size, res.Status, res.Source, len(res.Stdout), r.Len())
			}
		}
		cmd := sl.Command("/bin/cat")
		cmd.Stdin = io.MultiReader(strings.NewReader(in))
		cmd.Limits = sandbox.Limits{Stdout: 1 << 20}
		if res := run(t, cmd); res.Status != sandbox.OK || string(res.Stdout) != in {
			t.Errorf("io.MultiReader of %d bytes: status %s, %d bytes out", size, res.Status, len(res.Stdout))
		}
	}
}
