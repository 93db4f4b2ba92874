package deploy_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Docker 20.10's default seccomp profile lets a container with
// CAP_SYS_ADMIN create namespaces and mount, but refuses pivot_root: every
// box then fails. `docket selftest` must not call that level full: the
// worker's profile without pivot_root stands in for it here.
func TestSelftestWithoutPivotRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: docket's sandbox makes namespaces and mounts (as it does in the worker container)")
	}
	dir := t.TempDir()
	docket := buildDocket(t, dir)
	// Each run its own state directory: the probes are cached there for
	// the boot, and both profiles have one filter.
	env := func(name string) []string {
		return []string{"DOCKET_SANDBOX_UID_BASE=47100", "DOCKET_SANDBOX_DIR=" + filepath.Join(dir, name)}
	}

	// The whole profile: the box is made, the level is full.
	out, err := underProfile(t, repoPath("deploy/seccomp-worker.json"), env("whole"), docket, "selftest", "--json")
	if rep := selftestJSON(t, out); err != nil || rep.Level != "full" {
		t.Fatalf("selftest under the worker's profile: %v, level %s; want full, exit 0\n%s", err, rep.Level, out)
	}

	out, err = underProfile(t, profileWithout(t, dir, "pivot_root"), env("no-pivot-root"), docket, "selftest", "--json")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("selftest without pivot_root: %v, want exit status 1", err)
	}
	rep := selftestJSON(t, out)
	if rep.Level == "full" || rep.MeetsMin {
		t.Errorf("selftest without pivot_root reports level %s (meets the minimum: %v); no box can be made", rep.Level, rep.MeetsMin)
	}
	fs := rep.layer("filesystem")
	if fs.Active || !strings.Contains(fs.Detail, "pivot_root") {
		t.Errorf("filesystem layer %+v: want missing, saying pivot_root failed", fs)
	}
}

type selftestOut struct {
	MeetsMin     bool `json:"meets_min_level"`
	Capabilities struct {
		Level  string          `json:"level"`
		Layers []selftestLayer `json:"layers"`
	} `json:"capabilities"`
	Level string `json:"-"`
}

type selftestLayer struct {
	Name   string `json:"name"`
	Active bool   `json:"active"`
	Detail string `json:"detail"`
}

func (r selftestOut) layer(name string) selftestLayer {
	for _, l := range r.Capabilities.Layers {
		if l.Name == name {
			return l
		}
	}
	return selftestLayer{Name: name, Detail: "not reported"}
}

func selftestJSON(t *testing.T, out string) selftestOut {
	t.Helper()
	var r selftestOut
	i := strings.Index(out, "{")
	if i < 0 || json.Unmarshal([]byte(out[i:]), &r) != nil {
		t.Fatalf("selftest --json printed no report:\n%s", out)
	}
	r.Level = r.Capabilities.Level
	return r
}
