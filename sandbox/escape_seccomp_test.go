package sandbox_test

// The allowed set, measured as an attacker would: every system call that
// Docker's default seccomp profile denies, made with zero arguments inside
// a run. A test table names the ones that reach the kernel; a new one
// reaching it, or a listed one refused, fails.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/sandbox/seccomp"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// dockerDenied are the x86_64 system calls that Docker's default seccomp
// profile (moby/profiles, as vendored by moby/moby in May 2026) refuses a
// container with Docker's default capabilities: every call of the
// architecture outside its unconditional allow list (ptrace and
// process_vm_* are allowed there from Linux 4.8; clone, socket and
// personality only with some arguments). Then memfd_secret,
// sched_setattr and ioprio_set, which older versions of the profile
// refused and a judge has no use for.
var dockerDenied = []string{
	"socket", "clone", "syslog", "uselib", "personality", "ustat", "sysfs", "vhangup", "pivot_root",
	"_sysctl", "chroot", "acct", "settimeofday", "mount", "umount2", "swapon", "swapoff", "reboot",
	"sethostname", "setdomainname", "iopl", "ioperm", "create_module", "init_module", "delete_module",
	"get_kernel_syms", "query_module", "quotactl", "nfsservctl", "getpmsg", "putpmsg", "afs_syscall",
	"tuxcall", "security", "lookup_dcookie", "clock_settime", "vserver", "mbind", "set_mempolicy",
	"get_mempolicy", "kexec_load", "add_key", "request_key", "keyctl", "migrate_pages", "unshare",
	"move_pages", "perf_event_open", "fanotify_init", "open_by_handle_at", "setns", "kcmp",
	"finit_module", "kexec_file_load", "bpf", "userfaultfd", "io_uring_setup", "io_uring_enter",
	"io_uring_register", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "clone3",
	"pidfd_getfd", "process_madvise", "mount_setattr", "quotactl_fd", "set_mempolicy_home_node",
	"lsm_get_self_attr", "lsm_set_self_attr", "lsm_list_modules", "open_tree_attr",
	"memfd_secret", "sched_setattr", "ioprio_set",
}

// personalityArgs are personality(2)'s arguments probed beyond zero: the
// query and PER_LINUX pass (reachingDenied says why), the rest must not.
// (<linux/personality.h>: PER_LINUX32 8, PER_BSD 6, ADDR_NO_RANDOMIZE
// 0x40000, READ_IMPLIES_EXEC 0x400000).
var personalityArgs = []uint64{0xffffffff, 0xffffffff_ffffffff, 8, 6, 0x40000, 0x400000, 0x1_00000000}

// reachingDenied are the probed calls (name, or name(arg0) for
// personality) that a multi-process run without network lets through to
// the kernel, each with the reason it stays: docs/sandbox.md names the
// same.
var reachingDenied = map[string]string{
	"clone":                           "fork, threads and posix_spawn of every runtime; flags outside seccomp.CloneAllowed are EPERM",
	"personality":                     "personality(PER_LINUX) sets what every process has: a no-op kept for programs that reset it",
	"personality(0xffffffff)":         "the query of the current persona (glibc's and util-linux's)",
	"personality(0xffffffffffffffff)": "the same query, -1 passed as a long",
}

func TestDockerDeniedCalls(t *testing.T) {
	sl := testSlot(t)
	opts := seccomp.Options{NoNetwork: true} // the run's kind below
	progs, err := seccomp.Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	probes := deniedProbes(t)
	bin := hostile(t, "denied")
	cmd := sl.Command("./denied", probes...)
	cmd.Box = boxWith(t, sl, bin)
	cmd.Limits = sandbox.Limits{Processes: 8, CPUTime: scaled(5 * time.Second)}
	res := run(t, cmd)
	if res.Status != sandbox.OK {
		t.Fatalf("status %s (%s) %s\nstdout: %s\nstderr: %s", res.Status, res.Source, res.Error, res.Stdout, res.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	if len(lines) != len(probes) {
		t.Fatalf("%d results for %d probes:\n%s", len(lines), len(probes), res.Stdout)
	}
	var reached []string
	var table strings.Builder
	for _, line := range lines {
		key, seen, verdict := checkProbe(t, progs, line)
		fmt.Fprintf(&table, "%-32s %-14s %s\n", key, verdictName(verdict), seen)
		if verdict == unix.SECCOMP_RET_ALLOW {
			reached = append(reached, key)
		}
	}
	t.Logf("call, filter's verdict, what the call did:\n%s", table.String())
	sort.Strings(reached)
	var want []string
	for k := range reachingDenied {
		want = append(want, k)
	}
	sort.Strings(want)
	if strings.Join(reached, " ") != strings.Join(want, " ") {
		t.Errorf("%d of %d probes reach the kernel: %v\nwant %d: %v", len(reached), len(probes), reached, len(want), want)
	}
	assertClean(t, sl)
}

// deniedProbes are denied.c's arguments: each denied call with zero
// arguments, and personality with personalityArgs.
func deniedProbes(t *testing.T) []string {
	var out []string
	for _, name := range dockerDenied {
		nr, ok := arch.X86_64.SyscallNames[name]
		if !ok {
			t.Fatalf("no x86_64 number for %s", name)
		}
		out = append(out, fmt.Sprintf("%s:%d:0", name, nr))
	}
	for _, a := range personalityArgs {
		out = append(out, fmt.Sprintf("personality:%d:%x", unix.SYS_PERSONALITY, a))
	}
	return out
}

// checkProbe parses one line of denied.c ("NAME ARG0 what value") and
// checks it against the filter's verdict for the call: a killed call died
// of SIGSYS, a refused one failed with the filter's errno, an allowed one
// did what the kernel does. It returns the probe's key, what it did and
// the verdict.
func checkProbe(t *testing.T, progs seccomp.Programs, line string) (string, string, uint32) {
	t.Helper()
	f := strings.Fields(line)
	if len(f) != 4 {
		t.Fatalf("bad probe line %q", line)
	}
	nr := uint32(arch.X86_64.SyscallNames[f[0]])
	arg, err1 := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
	val, err2 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("bad probe line %q", line)
	}
	key := f[0]
	if arg != 0 {
		key = fmt.Sprintf("%s(%#x)", f[0], arg)
	}
	verdict := filterVerdict(t, progs, nr, arg)
	seen := f[2] + " " + f[3]
	switch action := verdict & unix.SECCOMP_RET_ACTION_FULL; {
	case action == unix.SECCOMP_RET_KILL_PROCESS:
		if f[2] != "signal" || val != int64(unix.SIGSYS) {
			t.Errorf("%s: the filter kills it, but it did %s", key, seen)
		}
	case action == unix.SECCOMP_RET_ERRNO:
		if f[2] != "errno" || val != int64(verdict&unix.SECCOMP_RET_DATA) {
			t.Errorf("%s: the filter refuses it with errno %d, but it did %s", key, verdict&unix.SECCOMP_RET_DATA, seen)
		}
	case f[2] == "signal":
		t.Errorf("%s: the filter allows it, but it did %s", key, seen)
	}
	if f[2] == "errno" {
		seen = "errno " + unix.ErrnoName(unix.Errno(val))
	}
	return key, seen, verdict
}

// filterVerdict runs the filters a run loads in the x/net/bpf VM for an
// x86_64 call, as the kernel stacks them (the most restrictive action).
func filterVerdict(t *testing.T, progs seccomp.Programs, nr uint32, arg0 uint64) uint32 {
	t.Helper()
	data := make([]byte, 64) // struct seccomp_data, each word big-endian at its little-endian offset
	putBE := func(off int, v uint32) {
		data[off], data[off+1], data[off+2], data[off+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	putBE(0, nr)
	putBE(4, unix.AUDIT_ARCH_X86_64)
	putBE(16, uint32(arg0))
	putBE(20, uint32(arg0>>32))
	verdict := uint32(unix.SECCOMP_RET_ALLOW)
	for _, p := range progs {
		raw := make([]bpf.RawInstruction, len(p))
		for i, in := range p {
			raw[i] = bpf.RawInstruction{Op: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
		}
		insts, ok := bpf.Disassemble(raw)
		if !ok {
			t.Fatal("a filter does not disassemble")
		}
		vm, err := bpf.NewVM(insts)
		if err != nil {
			t.Fatal(err)
		}
		r, err := vm.Run(data)
		if err != nil {
			t.Fatal(err)
		}
		if int32(uint32(r)&unix.SECCOMP_RET_ACTION_FULL) < int32(verdict&unix.SECCOMP_RET_ACTION_FULL) {
			verdict = uint32(r)
		}
	}
	return verdict
}

func verdictName(v uint32) string {
	switch v & unix.SECCOMP_RET_ACTION_FULL {
	case unix.SECCOMP_RET_ALLOW:
		return "allow"
	case unix.SECCOMP_RET_KILL_PROCESS:
		return "kill"
	case unix.SECCOMP_RET_ERRNO:
		return "errno " + unix.ErrnoName(unix.Errno(v&unix.SECCOMP_RET_DATA))
	}
	return fmt.Sprintf("%#x", v)
}
