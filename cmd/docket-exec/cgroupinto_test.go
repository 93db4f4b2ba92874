package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox/cgroup"
)

// On cgroup v2 the target is started in its group (clone3 with
// CLONE_INTO_CGROUP) and then makes a cgroup namespace of its own, rooted
// there, so /proc/self/cgroup shows it at "/"; its CPU time is counted.
// Under a seccomp filter that refuses clone3, as some container profiles
// do, it joins by writing cgroup.procs instead, with the same result. On a
// hybrid host the v2 hierarchy has no memory controller, so the level is
// allowed to be lower; the cgroup v2 VM runs it at full.
func TestCgroupV2RunInItsGroup(t *testing.T) {
	needRoot(t)
	if _, err := cgroup.Open(cgroup.Options{Version: cgroup.V2}); errors.Is(err, cgroup.ErrUnavailable) {
		t.Skipf("no cgroup v2 hierarchy: %v", err)
	}
	bins := build(t, map[string]string{"docket-exec": "."})
	noclone3 := testprog.C(t, "../../sandbox/testdata/progs/noclone3.c")
	t.Setenv("DOCKET_CGROUP_VERSION", "2")
	t.Setenv("DOCKET_SANDBOX_MIN_LEVEL", "none")
	state := t.TempDir()
	for _, c := range []struct {
		name string
		argv []string
	}{
		{"clone3", []string{bins["docket-exec"]}},
		{"clone3 refused", []string{noclone3, bins["docket-exec"]}},
	} {
		argv := append(c.argv, "--json", "--processes", "4", "--", "/bin/sh", "-c", "cat /proc/self/cgroup; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done")
		stdout, stderr, code := run(t, state, argv...)
		var res struct {
			Status string `json:"status"`
			Stdout string `json:"stdout"`
			CPUMs  int64  `json:"cpu_ms"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 || res.Status != "OK" {
			t.Fatalf("%s: exit %d, %v\nstdout: %s\nstderr: %s", c.name, code, err, stdout, stderr)
		}
		if !strings.Contains("\n"+res.Stdout, "\n0::/\n") {
			t.Errorf("%s: the run's /proc/self/cgroup has no 0::/ (its own namespace, rooted at its group):\n%s", c.name, res.Stdout)
		}
		if res.CPUMs == 0 {
			t.Errorf("%s: the group counted no CPU time for a shell loop", c.name)
		}
	}
}
