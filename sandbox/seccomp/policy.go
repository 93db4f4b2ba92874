// Package seccomp builds the system-call filters of a sandboxed run with
// elastic/go-seccomp-bpf and installs them in the sandbox helper.
//
// The filters of every kind of run are assembled in advance (a generated
// table, checked against the assembler by a test); the parent sends the
// raw BPF to the helper, which only has to call seccomp(2): the helper
// stays small and assembles nothing between its setup and execve.
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
// hand-written clone check (clonecheck.go) that the tests hold to the
// stacked filters' verdicts.
package seccomp

import (
	"fmt"
	"sort"
	"sync"
	"syscall"

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
	"move_mount", "open_tree", "mount_setattr",
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

// NotImplemented lists probing calls that fail with ENOSYS, so runtimes
// fall back (glibc's clone3 to clone, whose flags the filter can check;
// liburing users to plain read/write).
var NotImplemented = []string{"clone3", "io_uring_setup", "io_uring_enter", "io_uring_register"}

// CloneAllowed are the only clone(2) flags a run may pass: what glibc
// (pthread_create, fork, posix_spawn, vfork), the Go runtime and os/exec,
// the JVM, node/libuv, CPython and Rust's std use to make threads and
// child processes. clone with any other bit fails with EPERM. Left out on
// purpose:
//   - every CLONE_NEW* flag: a new user namespace holds every capability,
//     and with Cmd.Network it reaches the host's nf_tables (unshare and
//     setns are killed, clone3 is ENOSYS, so clone is the last way in);
//   - CLONE_PARENT (a child outside the caller's tree, under the run's init),
//     CLONE_PTRACE and CLONE_UNTRACED (tracing), CLONE_IO and the ignored
//     CLONE_DETACHED: no runtime above uses them;
//   - bits 32-63: clone(2) ignores them (clone3's CLONE_CLEAR_SIGHAND and
//     CLONE_INTO_CGROUP live there), so no program has a reason to set them.
//
// CSIGNAL, the low byte, is the exit signal, whatever its value. It is
// why CLONE_NEWTIME (0x80) cannot be asked for through clone(2) at all:
// the kernel reads that bit as part of the exit signal (the time namespace
// is only reachable through unshare and clone3).
const CloneAllowed = unix.CSIGNAL | unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES |
	unix.CLONE_SIGHAND | unix.CLONE_PIDFD | unix.CLONE_VFORK | unix.CLONE_THREAD |
	unix.CLONE_SYSVSEM | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID |
	unix.CLONE_CHILD_CLEARTID | unix.CLONE_CHILD_SETTID

// Options choose the filters of one kind of run.
type Options struct {
	// SingleProcess refuses fork, vfork and non-thread clone with EPERM;
	// threads (clone with CLONE_THREAD) still work.
	SingleProcess bool
	// NoNetwork refuses socket(2) with EACCES. socketpair stays allowed:
	// it connects a process only to itself.
	NoNetwork bool
}

// Programs is a stack of assembled filters, installed in order by
// package load in the helper.
type Programs = load.Programs

var (
	cacheMu sync.Mutex
	cache   = map[Options]Programs{}
)

// Build returns the filters for opts. Every Options has its filters
// assembled in advance (programs_table.go, checked against Assemble by
// TestProgramTable): assembling takes about 1 ms, a tenth of a one-shot
// command such as docket-exec. Anything else is assembled once and cached.
func Build(opts Options) (Programs, error) {
	if p, ok := assembled[opts]; ok {
		return p, nil
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if p, ok := cache[opts]; ok {
		return p, nil
	}
	progs, err := Assemble(opts)
	if err != nil {
		return nil, err
	}
	cache[opts] = progs
	return progs, nil
}

// Assemble turns the filters for opts into raw BPF: one program, the
// base allowlist (Policies' first filter) compacted, with the clone rules
// in front (withCloneCheck).
func Assemble(opts Options) (Programs, error) {
	raw, err := compactBase(basePolicy(denials(opts)))
	if err != nil {
		return nil, err
	}
	return Programs{toProgram(withCloneCheck(raw, opts.SingleProcess))}, nil
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
func Policies(opts Options) []libseccomp.Policy {
	policies := []libseccomp.Policy{basePolicy(denials(opts)), cloneRule(libseccomp.BitsSet, ^uint64(CloneAllowed))}
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
func denials(opts Options) []denial {
	d := []denial{{libseccomp.ActionKillProcess, Killed}, {errno(unix.ENOSYS), NotImplemented}}
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
