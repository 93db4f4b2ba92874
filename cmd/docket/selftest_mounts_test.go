package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/docketjudge/docket/internal/testguard"
	"golang.org/x/sys/unix"
)

// A host mount below a bound directory (/usr) shows in the run's mount
// table; the "recursive read-only" check passes only because the sandbox
// made it read-only, nosuid and nodev too.
func TestSelftestSubmount(t *testing.T) {
	needRoot(t)
	if !testguard.Guarded() {
		t.Skip("mounts only inside the test guard's mount namespace")
	}
	// Empty on a usual host; hidden for this test, and only in the
	// guard's mount namespace.
	const dir = "/usr/local/src"
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("no %s to mount on", dir)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(dir, unix.MNT_DETACH)
	cmd := exec.Command(docketBinary(t), "selftest", "--json")
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir())
	out, _ := cmd.Output() // the exit code: other checks are not this test's
	var rep selftestReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, c := range rep.Checks {
		if c.Name == "recursive read-only" {
			if !c.Passed || !strings.HasPrefix(c.Detail, "OK") {
				t.Errorf("with a mount on %s: %s", dir, c.Detail)
			}
			return
		}
	}
	t.Errorf("no recursive read-only check: %s", out)
}
