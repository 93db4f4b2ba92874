package deploy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/elastic/go-seccomp-bpf/arch"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// The worker container's profile is decoded strictly into the OCI
// runtime-spec's LinuxSeccomp: the fields runc, crun, containerd (a
// Kubernetes Localhost profile) and CRI-O read, which Docker's
// security_opt seccomp=FILE also accepts. Docker-only extensions
// (includes/excludes by capability, comments) would not decode, and are
// not used, so one file serves every runtime.
func parseSeccomp(b []byte) (*specs.LinuxSeccomp, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p specs.LinuxSeccomp
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("seccomp profile: %w", err)
	}
	return &p, nil
}

// call is one syscall as a process makes it, for evaluating the profile.
type call struct {
	name string
	args [6]uint64
}

// verdict evaluates the profile for c the way libseccomp does for these
// rules: a rule matches when all its argument conditions hold; an
// allowing match wins (runc adds the rules in order, and for one syscall
// libseccomp takes the first action whose conditions match, the profile
// never mixing allow and deny conditions on one call).
func verdict(p *specs.LinuxSeccomp, c call) specs.LinuxSeccompAction {
	matched := p.DefaultAction
	for _, r := range p.Syscalls {
		if !slices.Contains(r.Names, c.name) {
			continue
		}
		ok := true
		for _, a := range r.Args {
			v := c.args[a.Index]
			switch a.Op {
			case specs.OpEqualTo:
				ok = ok && v == a.Value
			case specs.OpNotEqual:
				ok = ok && v != a.Value
			case specs.OpMaskedEqual:
				ok = ok && v&a.Value == a.ValueTwo
			default:
				ok = false // an operator this evaluator does not know: never counted as allowed
			}
		}
		if ok {
			if r.Action == specs.ActAllow {
				return r.Action
			}
			matched = r.Action
		}
	}
	return matched
}

// sandboxSyscalls lists the syscalls docket's sandbox makes itself, read
// from its sources so that a new call there needs the profile to follow:
// in sandbox/nsinit/*.c, calls of libc wrappers named like a syscall and
// SYS_* numbers; in sandbox/**.go (not tests), unix.Xxx calls whose snake
// case name is a syscall, and unix.SYS_*.
func sandboxSyscalls(t *testing.T) map[string]string {
	t.Helper()
	names := arch.X86_64.SyscallNames
	found := map[string]string{}
	note := func(name, where string) {
		if _, ok := names[name]; ok {
			if _, seen := found[name]; !seen {
				found[name] = where
			}
		}
	}
	cCall := regexp.MustCompile(`\b([a-z_][a-z0-9_]*)\s*\(`)
	sysNum := regexp.MustCompile(`\bSYS_([a-z0-9_]+)`)
	cFiles, _ := filepath.Glob(repoPath("sandbox/nsinit/*.c"))
	if len(cFiles) == 0 {
		t.Fatal("no sandbox/nsinit/*.c")
	}
	for _, f := range cFiles {
		b, _ := os.ReadFile(f)
		src := stripCComments(string(b))
		for _, m := range cCall.FindAllStringSubmatch(src, -1) {
			note(m[1], filepath.Base(f))
		}
		for _, m := range sysNum.FindAllStringSubmatch(src, -1) {
			note(m[1], filepath.Base(f))
		}
	}
	// Go wrappers whose name is not the syscall's.
	alias := map[string]string{"Unmount": "umount2", "Setrlimit": "prlimit64", "Prlimit": "prlimit64",
		"Socketpair": "socketpair", "Mkdev": "", "FsconfigSetString": "fsconfig", "FsconfigCreate": "fsconfig", "Open": "openat", "Stat": "newfstatat", "Lstat": "newfstatat", "Access": "faccessat"}
	goCall := regexp.MustCompile(`\bunix\.([A-Z][A-Za-z0-9]*)\(`)
	goSys := regexp.MustCompile(`\bunix\.SYS_([A-Z0-9_]+)`)
	err := filepath.WalkDir(repoPath("sandbox"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, m := range goCall.FindAllStringSubmatch(string(b), -1) {
			if a, ok := alias[m[1]]; ok {
				note(a, rel)
			} else {
				note(snake(m[1]), rel)
			}
		}
		for _, m := range goSys.FindAllStringSubmatch(string(b), -1) {
			note(strings.ToLower(m[1]), rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func stripCComments(s string) string {
	s = regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(s, "")
	return regexp.MustCompile(`//[^\n]*`).ReplaceAllString(s, "")
}

// snake turns a Go wrapper name into a syscall name: PivotRoot ->
// pivot_root, MountSetattr -> mount_setattr, CloseRange -> close_range.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Flags docket's sandbox creates processes with (zygote.c clone_allowed
// plus CLONE_PARENT; sandbox/cmd_spawn.go Cloneflags; nsinit.c's vfork-style
// clone of the target).
const sandboxCloneFlags = unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_PARENT | uint64(unix.SIGCHLD)

// forbidden are calls no judge container needs and that widen the
// kernel's attack surface or reach outside the container.
var forbidden = []string{"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise",
	"bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff",
	"io_uring_setup", "io_uring_enter", "io_uring_register", "open_by_handle_at", "fspick",
	"settimeofday", "clock_settime", "acct", "iopl", "ioperm", "syslog", "quotactl"}

// checkSeccomp checks names, the default, what the sandbox needs, what
// must stay forbidden, and the clone flag filter.
func checkSeccomp(p *specs.LinuxSeccomp, needs map[string]string) error {
	var ps problems
	if p.DefaultAction != specs.ActErrno || p.DefaultErrnoRet == nil || *p.DefaultErrnoRet != uint(unix.EPERM) {
		ps.addf("defaultAction %q (errno %v): want SCMP_ACT_ERRNO with EPERM, as Docker's default", p.DefaultAction, p.DefaultErrnoRet)
	}
	if !slices.Contains(p.Architectures, specs.ArchX86_64) {
		ps.addf("architectures %v lack SCMP_ARCH_X86_64", p.Architectures)
	}
	for i, r := range p.Syscalls {
		if len(r.Names) == 0 {
			ps.addf("rule %d names no syscall", i)
		}
		for _, n := range r.Names {
			if _, ok := arch.X86_64.SyscallNames[n]; !ok {
				ps.addf("rule %d: %q is not an amd64 syscall", i, n)
			}
		}
		switch r.Action {
		case specs.ActAllow, specs.ActErrno:
		default:
			ps.addf("rule %d: action %q (only allow and errno are used)", i, r.Action)
		}
	}
	for _, n := range sortedKeys(needs) {
		args := [6]uint64{}
		switch n {
		case "clone":
			args[0] = sandboxCloneFlags
		case "unshare":
			args[0] = unix.CLONE_NEWNS
		case "socket":
			args[0] = unix.AF_UNIX
		case "personality":
			continue // the sandbox does not call it
		case "clone3":
			// nsinit.c starts a cgroup v2 run's program with clone3 and
			// falls back to clone where it is refused, as here (ENOSYS:
			// checked below).
			continue
		case "fspick":
			// space_huge.go switches a space's huge pages off with it;
			// refused, as here (it stays forbidden, below), the space is
			// made again in small pages.
			continue
		}
		if v := verdict(p, call{n, args}); v != specs.ActAllow {
			ps.addf("the sandbox calls %s (%s) but the profile gives %s", n, needs[n], v)
		}
	}
	for _, n := range forbidden {
		if v := verdict(p, call{name: n}); v == specs.ActAllow {
			ps.addf("%s is allowed; no judge needs it", n)
		}
	}
	if v := verdict(p, call{"clone", [6]uint64{sandboxCloneFlags | unix.CLONE_NEWUSER}}); v == specs.ActAllow {
		ps.addf("clone with CLONE_NEWUSER is allowed: a box could map itself root in a new user namespace")
	}
	if v := verdict(p, call{"unshare", [6]uint64{unix.CLONE_NEWUSER}}); v == specs.ActAllow {
		ps.addf("unshare(CLONE_NEWUSER) is allowed")
	}
	// clone3 passes its flags in memory, out of seccomp's reach: it must
	// fail with ENOSYS so that glibc falls back to clone, which is checked.
	for _, r := range p.Syscalls {
		if slices.Contains(r.Names, "clone3") && (r.Action != specs.ActErrno || r.ErrnoRet == nil || *r.ErrnoRet != uint(unix.ENOSYS)) {
			ps.addf("clone3: want SCMP_ACT_ERRNO with ENOSYS, got %s", r.Action)
		}
	}
	if v := verdict(p, call{name: "clone3"}); v != specs.ActErrno {
		ps.addf("clone3 gets %s", v)
	}
	return ps.err()
}

func TestSeccompProfile(t *testing.T) {
	p, err := parseSeccomp(readRepo(t, "deploy/seccomp-worker.json"))
	if err != nil {
		t.Fatal(err)
	}
	needs := sandboxSyscalls(t)
	// The scan must see the calls that set the sandbox up, or it proves nothing.
	for _, n := range []string{"mount", "umount2", "pivot_root", "setns", "unshare", "clone", "sethostname", "chroot",
		"open_tree", "move_mount", "mount_setattr", "fsopen", "fsconfig", "fsmount", "seccomp", "prctl", "setresuid", "setgroups", "close_range", "mknod"} {
		if _, ok := needs[n]; !ok {
			t.Errorf("the source scan did not find %s; found %v", n, sortedKeys(needs))
		}
	}
	t.Logf("sandbox syscalls found in the sources: %d", len(needs))
	expectClean(t, "deploy/seccomp-worker.json", checkSeccomp(p, needs))
}

func TestSeccompChecksFail(t *testing.T) {
	orig := string(readRepo(t, "deploy/seccomp-worker.json"))
	needs := sandboxSyscalls(t)
	broken := func(old, new string) *specs.LinuxSeccomp {
		t.Helper()
		if !strings.Contains(orig, old) {
			t.Fatalf("profile no longer contains %q: update this test", old)
		}
		p, err := parseSeccomp([]byte(strings.Replace(orig, old, new, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	expectProblem(t, "unknown syscall", checkSeccomp(broken(`"accept4",`, `"accept4", "sys_frobnicate",`), needs), "sys_frobnicate")
	expectProblem(t, "pivot_root dropped", checkSeccomp(broken(`"pivot_root",`, ``), needs), "pivot_root")
	expectProblem(t, "ptrace allowed", checkSeccomp(broken(`"accept4",`, `"accept4", "ptrace",`), needs), "ptrace")
	expectProblem(t, "allow by default", checkSeccomp(broken(`"defaultAction": "SCMP_ACT_ERRNO"`, `"defaultAction": "SCMP_ACT_ALLOW"`), needs), "defaultAction")
	expectProblem(t, "user namespaces", checkSeccomp(broken(`"value": 268435456`, `"value": 0`), needs), "CLONE_NEWUSER")
	if _, err := parseSeccomp([]byte(strings.Replace(orig, `"names"`, `"comment": "x", "names"`, 1))); err == nil {
		t.Error("a Docker-only field decoded into the OCI type without error")
	}
}
