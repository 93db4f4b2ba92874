package deploy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/docketjudge/docket/internal/testguard"
	seccompbpf "github.com/elastic/go-seccomp-bpf"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// The static checks above read the profile; this one enforces it. The
// test binary re-executes itself with runUnderProfile set: it loads
// deploy/seccomp-worker.json as a real kernel filter (assembled with
// go-seccomp-bpf, as the container runtime would with libseccomp) and
// execs the command, which then runs with the profile on every thread and
// child, as in the worker container. What it cannot show here: the
// container's reduced capabilities (this process keeps root's).
const runUnderProfile = "DOCKET_DEPLOY_TEST_SECCOMP_EXEC"

// The tests run inside testguard (as the sandbox's own tests do): the
// enforced test starts docket's real sandbox.
func TestMain(m *testing.M) {
	if prof := os.Getenv(runUnderProfile); prof != "" {
		os.Exit(execUnderProfile(prof, os.Args[1:]))
	}
	testguard.Main(m)
}

func execUnderProfile(profile string, argv []string) int {
	b, err := os.ReadFile(profile)
	if err == nil {
		var p *specs.LinuxSeccomp
		if p, err = parseSeccomp(b); err == nil {
			var pol seccompbpf.Policy
			if pol, err = toPolicy(p); err == nil {
				err = seccompbpf.LoadFilter(seccompbpf.Filter{NoNewPrivs: true, Flag: seccompbpf.FilterFlagTSync, Policy: pol})
			}
		}
	}
	if err == nil {
		var path string
		if path, err = exec.LookPath(argv[0]); err == nil {
			err = syscall.Exec(path, argv, os.Environ())
		}
	}
	fmt.Fprintln(os.Stderr, "under profile:", err)
	return 111
}

// toPolicy translates the OCI profile into go-seccomp-bpf's policy: an
// allow rule with argument conditions becomes one condition set per rule
// (alternatives are OR-ed, as libseccomp does for repeated rules); the
// operators the profile uses map one to one (MASKED_EQ with valueTwo 0 is
// "these bits not set").
func toPolicy(p *specs.LinuxSeccomp) (seccompbpf.Policy, error) {
	action := func(a specs.LinuxSeccompAction, errno *uint) (seccompbpf.Action, error) {
		switch a {
		case specs.ActAllow:
			return seccompbpf.ActionAllow, nil
		case specs.ActErrno:
			e := uint(syscall.EPERM)
			if errno != nil {
				e = *errno
			}
			if e == uint(syscall.EPERM) {
				return seccompbpf.ActionErrno, nil // the assembler's spelling of EPERM
			}
			return seccompbpf.ActionErrno | seccompbpf.Action(e), nil
		}
		return 0, fmt.Errorf("action %s not translated", a)
	}
	def, err := action(p.DefaultAction, p.DefaultErrnoRet)
	if err != nil {
		return seccompbpf.Policy{}, err
	}
	pol := seccompbpf.Policy{DefaultAction: def}
	conditional := map[seccompbpf.Action]map[string][]seccompbpf.ArgumentConditions{}
	for _, r := range p.Syscalls {
		a, err := action(r.Action, r.ErrnoRet)
		if err != nil {
			return pol, err
		}
		if len(r.Args) == 0 {
			pol.Syscalls = append(pol.Syscalls, seccompbpf.SyscallGroup{Names: r.Names, Action: a})
			continue
		}
		var conds seccompbpf.ArgumentConditions
		for _, arg := range r.Args {
			c := seccompbpf.Condition{Argument: uint32(arg.Index), Value: arg.Value}
			switch {
			case arg.Op == specs.OpEqualTo:
				c.Operation = seccompbpf.Equal
			case arg.Op == specs.OpNotEqual:
				c.Operation = seccompbpf.NotEqual
			case arg.Op == specs.OpMaskedEqual && arg.ValueTwo == 0:
				c.Operation = seccompbpf.BitsNotSet
			default:
				return pol, fmt.Errorf("%v: operator %s (valueTwo %d) not translated", r.Names, arg.Op, arg.ValueTwo)
			}
			conds = append(conds, c)
		}
		if conditional[a] == nil {
			conditional[a] = map[string][]seccompbpf.ArgumentConditions{}
		}
		for _, n := range r.Names {
			conditional[a][n] = append(conditional[a][n], conds)
		}
	}
	for a, byName := range conditional {
		g := seccompbpf.SyscallGroup{Action: a}
		for _, n := range sortedKeys(byName) {
			for _, c := range byName[n] {
				g.NamesWithCondtions = append(g.NamesWithCondtions, seccompbpf.NameWithConditions{Name: n, Conditions: c})
			}
		}
		pol.Syscalls = append(pol.Syscalls, g)
	}
	return pol, nil
}

// buildDocket builds ./cmd/docket into dir.
func buildDocket(t *testing.T, dir string) string {
	t.Helper()
	docket := filepath.Join(dir, "docket")
	if out, err := exec.Command("go", "build", "-o", docket, "../cmd/docket").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/docket: %v\n%s", err, out)
	}
	return docket
}

// profileWithout writes a copy of the worker's profile without the
// syscall name, as a host profile that refuses it would be.
func profileWithout(t *testing.T, dir, name string) string {
	t.Helper()
	b := readRepo(t, "deploy/seccomp-worker.json")
	cut := strings.Replace(string(b), `"`+name+`",`, ``, 1)
	if cut == string(b) {
		t.Fatalf(`the profile no longer lists "%s",: update this test`, name)
	}
	path := filepath.Join(dir, "no-"+name+".json")
	if err := os.WriteFile(path, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// underProfile runs argv with the profile file enforced.
func underProfile(t *testing.T, profile string, env []string, argv ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], argv...)
	cmd.Env = append(append(os.Environ(), runUnderProfile+"="+profile), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestSeccompProfileEnforced(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: docket's sandbox makes namespaces and mounts (as it does in the worker container)")
	}
	profile, err := filepath.Abs(repoPath("deploy/seccomp-worker.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Without a profile, as root, a user namespace is allowed: the
	// refusal below is the profile's.
	if out, err := exec.Command("unshare", "--user", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare --user fails even without the profile (%v: %s); the host refuses user namespaces", err, out)
	}
	if out, err := underProfile(t, profile, nil, "true"); err != nil {
		t.Fatalf("true under the profile: %v\n%s", err, out)
	}
	if out, err := underProfile(t, profile, nil, "unshare", "--user", "true"); err == nil || !strings.Contains(out, "unshare failed") {
		t.Errorf("unshare --user under the profile: want it refused by unshare(2), got %v: %s", err, out)
	}

	// docket's real sandbox, started under the profile: namespaces, the
	// new root, the uid switch, cgroups, its own filter stacked on ours.
	dir := t.TempDir()
	docket := buildDocket(t, dir)
	env := []string{"DOCKET_SANDBOX_UID_BASE=47000", "DOCKET_SANDBOX_DIR=" + filepath.Join(dir, "sandbox")}
	out, err := underProfile(t, profile, env, docket, "exec", "--json", "--processes", "4", "--", "/bin/sh", "-c", "echo judged; grep Seccomp_filters /proc/self/status")
	if err != nil {
		t.Fatalf("docket exec under the profile: %v\n%s", err, out)
	}
	var res struct {
		Status, Stdout, Level string
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil {
		t.Fatalf("docket exec output %q: %v", out, err)
	}
	if res.Status != "OK" || !strings.HasPrefix(res.Stdout, "judged\n") || res.Level != "full" {
		t.Errorf("docket exec under the profile: status %s, level %s, stdout %q; want OK at level full", res.Status, res.Level, res.Stdout)
	}
	// The box carries both filters: the profile's and docket's own.
	var filters int
	if _, err := fmt.Sscanf(strings.TrimPrefix(res.Stdout, "judged\n"), "Seccomp_filters:\t%d", &filters); err != nil || filters < 2 {
		t.Errorf("the box reports %q: want at least 2 stacked seccomp filters (%v)", res.Stdout, err)
	}

	// A compiler under the profile (gcc forks cc1, as, ld).
	if _, err := exec.LookPath("gcc"); err == nil {
		src := filepath.Join(dir, "hello.c")
		os.WriteFile(src, []byte("#include <stdio.h>\nint main(void){puts(\"hello\");return 0;}\n"), 0o644)
		if out, err := underProfile(t, profile, nil, "gcc", "-O2", "-o", filepath.Join(dir, "hello"), src); err != nil {
			t.Errorf("gcc under the profile: %v\n%s", err, out)
		} else if out, err := underProfile(t, profile, nil, filepath.Join(dir, "hello")); err != nil || out != "hello\n" {
			t.Errorf("compiled program under the profile: %v %q", err, out)
		}
	}

	// The same run with mount taken out of the profile fails: the run
	// above passed because the profile allows what the sandbox needs.
	bad := profileWithout(t, dir, "mount")
	if out, err := underProfile(t, bad, env, docket, "exec", "--json", "--", "/bin/true"); err == nil && strings.Contains(out, `"status":"OK"`) && strings.Contains(out, `"level":"full"`) {
		t.Errorf("docket exec ran at level full without mount in the profile: %s", out)
	}
}
