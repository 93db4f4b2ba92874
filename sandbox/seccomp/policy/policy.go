// Package policy assembles the system-call filters of sandboxed runs
// (package seccomp hands them out) with elastic/go-seccomp-bpf: what each
// kind of run refuses, compacted, behind a hand-written check of arguments, and
// the spares' pre-filter with each kind's delta over it. It runs in the
// tests, which generate seccomp's table (../programs_table.go) from it and
// hold the table to it, never in docket: the library's syscall tables
// alone cost a quarter of a millisecond to set up at every start.
//
// It must not import any of docket's packages but sandbox/seccomp and
// sandbox/seccomp/load; only tests import it (they generate the table).
//
// Layout, chosen around two facts of go-seccomp-bpf v1.6.0 (verified with
// real runs and an x/net/bpf simulation):
//   - go-seccomp-bpf v1.6.0 jumps to DefaultAction for a foreign
//     architecture, so a denylist (DefaultAction Allow) lets the i386
//     int 0x80 entry bypass every rule. The base filter is therefore an
//     allowlist: DefaultAction KillProcess, then an Allow group naming every
//     x86_64 system call that is not denied.
//   - v1.6.0 corrupts its accumulator after a conditional rule whose
//     argument test fails, so a filter may hold at most one conditional
//     group, as its last group, with DefaultAction Allow. Conditional rules
//     (clone's flags, clone without CLONE_THREAD) get their own policies,
//     each assembled (in the tests) as a filter stacked on the base; the
//     kernel would apply the most restrictive verdict of all filters.
//
// What a run loads is one program (Assemble): the compacted base behind a
// hand-written check of clone's and personality's arguments
// (argcheck.go) that the tests hold to the stacked filters' verdicts.
package policy

import (
	"fmt"
	"sort"
	"syscall"

	"github.com/docketjudge/docket/sandbox/seccomp"
	"github.com/docketjudge/docket/sandbox/seccomp/load"
	libseccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Killed lists calls no judged program needs, whose only use in a
// submission is an attack on the sandbox or the host. They kill the
// process (SIGSYS), which the sandbox reports as RE with verdict_source
// "seccomp".
var Killed = []string{
	// mounts and root changes
	"mount", "umount2", "pivot_root", "chroot", "fsopen", "fsmount", "fsconfig", "fspick",
	"move_mount", "open_tree", "open_tree_attr", "mount_setattr",
	// other processes' memory and fds
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "process_madvise", "kcmp",
	// kernel extension points
	"bpf", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"create_module", "perf_event_open", "userfaultfd", "fanotify_init", "lookup_dcookie",
	"nfsservctl", "uselib", "iopl", "ioperm", "syslog", "vhangup", "acct",
	// key management
	"add_key", "request_key", "keyctl",
	// namespaces
	"unshare", "setns",
	// file handles bypass path checks
	"open_by_handle_at", "name_to_handle_at",
	// machine state
	"reboot", "swapon", "swapoff", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"sethostname", "setdomainname", "quotactl", "quotactl_fd",
}

// NotImplemented lists calls that fail with ENOSYS, as on a kernel built
// without them, so runtimes fall back or do without: glibc's clone3 to
// clone, whose flags the filter can check; liburing users to plain
// read/write; libnuma and a JVM asked for NUMA to one node (a kernel
// without CONFIG_NUMA answers the NUMA calls so); memfd_secret's users to
// ordinary memory (a kernel without secretmem). No language of the
// catalog makes any of them but clone3 (strace of each toolchain and
// runtime). The LSM attribute calls and the obsolete ustat and sysfs
// tell a program about the host; the rest are calls the kernel does not
// implement on x86_64, answered here before they reach it.
var NotImplemented = []string{
	"clone3", "io_uring_setup", "io_uring_enter", "io_uring_register",
	"mbind", "set_mempolicy", "get_mempolicy", "migrate_pages", "move_pages", "set_mempolicy_home_node",
	"memfd_secret", "lsm_get_self_attr", "lsm_set_self_attr", "lsm_list_modules", "ustat", "sysfs",
	"_sysctl", "get_kernel_syms", "query_module", "getpmsg", "putpmsg", "afs_syscall", "tuxcall",
	"security", "vserver",
}

// Refused lists calls that fail with EPERM, the answer an unprivileged
// process gets for the uses that matter: scheduling attributes beyond
// sched_setscheduler's (deadline scheduling, utilization clamps) and I/O
// priorities. No language of the catalog makes them.
var Refused = []string{"sched_setattr", "ioprio_set"}

// Assemble turns the filters for opts into raw BPF: one program, the
// base allowlist (Policies' first filter) compacted, with the clone rules
// and personality rules in front (withArgChecks).
func Assemble(opts seccomp.Options) (seccomp.Programs, error) {
	raw, err := compactBase(basePolicy(denials(opts)))
	if err != nil {
		return nil, err
	}
	return seccomp.Programs{toProgram(withArgChecks(raw, opts.SingleProcess))}, nil
}

// compactBase assembles a base filter and compacts it: the same
// verdicts, far cheaper to install.
func compactBase(pol libseccomp.Policy) ([]bpf.RawInstruction, error) {
	raw, err := assembleRaw(pol)
	if err != nil {
		return nil, err
	}
	raw, ok := compact(raw)
	if !ok {
		return nil, fmt.Errorf("seccomp: the base filter does not compact")
	}
	return raw, nil
}

func assembleRaw(pol libseccomp.Policy) ([]bpf.RawInstruction, error) {
	insts, err := pol.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp: assemble: %w", err)
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, fmt.Errorf("seccomp: assemble bpf: %w", err)
	}
	return raw, nil
}

func toProgram(raw []bpf.RawInstruction) load.Program {
	prog := make(load.Program, len(raw))
	for i, ins := range raw {
		prog[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	return prog
}

func errno(e syscall.Errno) libseccomp.Action { return libseccomp.ActionErrno | libseccomp.Action(e) }

// Policies are the filters for opts, unassembled (for tests and dumps).
func Policies(opts seccomp.Options) []libseccomp.Policy {
	policies := []libseccomp.Policy{basePolicy(denials(opts)), cloneRule(libseccomp.BitsSet, ^uint64(seccomp.CloneAllowed))}
	if opts.SingleProcess {
		// fork, vfork and non-thread clone: EPERM; threads still work.
		policies = append(policies, cloneRule(libseccomp.BitsNotSet, unix.CLONE_THREAD))
	}
	return policies
}

// denial is a group of calls a base filter refuses, and how.
type denial struct {
	action libseccomp.Action
	names  []string
}

// denials are the calls the base filter for opts refuses.
func denials(opts seccomp.Options) []denial {
	d := []denial{{libseccomp.ActionKillProcess, Killed}, {errno(unix.ENOSYS), NotImplemented}, {errno(unix.EPERM), Refused}}
	if opts.SingleProcess {
		d = append(d, denial{errno(unix.EPERM), []string{"fork", "vfork"}})
	}
	if opts.NoNetwork {
		d = append(d, denial{errno(unix.EACCES), []string{"socket"}})
	}
	return d
}

// basePolicy is an allowlist: every x86_64 system call but the denied
// ones, which get their group's action; any other call, and every other
// architecture, kills the process.
func basePolicy(groups []denial) libseccomp.Policy {
	denied := map[string]bool{}
	base := libseccomp.Policy{DefaultAction: libseccomp.ActionKillProcess}
	for _, g := range groups {
		base.Syscalls = append(base.Syscalls, libseccomp.SyscallGroup{Action: g.action, Names: g.names})
		for _, n := range g.names {
			denied[n] = true
		}
	}
	var allowed []string
	for name := range arch.X86_64.SyscallNames {
		if !denied[name] {
			allowed = append(allowed, name)
		}
	}
	sort.Strings(allowed)
	base.Syscalls = append(base.Syscalls, libseccomp.SyscallGroup{Action: libseccomp.ActionAllow, Names: allowed})
	return base
}

// cloneRule is a filter of its own that refuses clone with EPERM when its
// flags (argument 0, all 64 bits) pass the test op against value, and
// allows everything else.
//
// How it holds despite the v1.6.0 accumulator bug: the rule is the
// filter's only group, so when the test fails nothing but the final
// "return DefaultAction" (Allow) follows, and Allow cannot widen anything:
// the base allowlist, a filter of its own, still decides every call (the
// kernel takes the most restrictive verdict). A foreign architecture
// (i386 int 0x80) gets Allow here too, for the same reason: the base kills
// it. The library tests a 64-bit argument in two 32-bit halves: BitsSet
// matches when the high half shares a bit with value's high half or the low
// half with value's low half, so with value ^CloneAllowed any bit outside
// the allowlist, bits 32-63 included, matches.
func cloneRule(op libseccomp.Operation, value uint64) libseccomp.Policy {
	return libseccomp.Policy{
		DefaultAction: libseccomp.ActionAllow,
		Syscalls: []libseccomp.SyscallGroup{{
			Action: errno(unix.EPERM),
			NamesWithCondtions: []libseccomp.NameWithConditions{{
				Name:       "clone",
				Conditions: libseccomp.ArgumentConditions{{Argument: 0, Operation: op, Value: value}},
			}},
		}},
	}
}
