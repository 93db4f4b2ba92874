package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// --once runs the checks the first time and keeps the report; later calls
// answer from it (a kept failure stays a failure) as long as the key
// matches, and run the checks again when it does not.
func TestSelftestOnce(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	state := t.TempDir()
	report := filepath.Join(state, selftestReportName)
	selftest := func() (selftestReport, int) {
		t.Helper()
		cmd := exec.Command(bin, "selftest", "--once", "--json")
		cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+state)
		out, err := cmd.Output()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var rep selftestReport
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return rep, code
	}
	first, code := selftest()
	if code != exitOK || !first.OK || len(first.Checks) < 10 || first.Key == "" {
		t.Fatalf("first --once: exit %d, ok %v, %d checks, key %q", code, first.OK, len(first.Checks), first.Key)
	}
	kept, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no report kept: %v", err)
	}
	// The kept report says a check failed: --once believes it.
	var rep selftestReport
	if err := json.Unmarshal(kept, &rep); err != nil {
		t.Fatal(err)
	}
	rep.OK, rep.Checks[0].Passed, rep.Checks[0].Detail = false, false, "planted by the test"
	if err := saveSelftestReport(report, rep); err != nil {
		t.Fatal(err)
	}
	if again, code := selftest(); code != exitFailed || again.OK || again.Checks[0].Detail != "planted by the test" {
		t.Errorf("--once with a kept failure: exit %d, ok %v, first check %q", code, again.OK, again.Checks[0].Detail)
	}
	// Made by another binary or boot: ignored, the checks run again.
	rep.Key = "another binary"
	if err := saveSelftestReport(report, rep); err != nil {
		t.Fatal(err)
	}
	if fresh, code := selftest(); code != exitOK || !fresh.OK || fresh.Key != first.Key {
		t.Errorf("--once with a stale report: exit %d, ok %v, key %q", code, fresh.OK, fresh.Key)
	}
}
