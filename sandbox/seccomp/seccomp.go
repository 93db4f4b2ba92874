// Package seccomp hands out the system-call filters of sandboxed runs,
// which the sandbox helper installs; Supported says whether the kernel
// takes them.
//
// It must not import any of docket's packages but sandbox/seccomp/load; in
// particular not seccomp/policy, whose assembler docket's binaries do not
// link.
//
// Every filter is assembled in advance, in the tests, by package policy
// (elastic/go-seccomp-bpf), into a generated table (programs_table.go)
// that a test holds to the assembler: the parent sends the raw BPF to the
// helper, which only has to call seccomp(2), and docket itself links no
// assembler, whose syscall tables alone took a quarter of a millisecond
// to set up at every start (a thirtieth of a one-off docket-exec).
package seccomp

import (
	"fmt"

	"github.com/docketjudge/docket/sandbox/seccomp/load"
	"golang.org/x/sys/unix"
)

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

// PersonalityAllowed are the only values of personality(2)'s argument a
// run may pass (its low 32 bits, with the high half zero, or all 64 bits
// set: -1 passed as a long); any other fails with EPERM. 0xffffffff is the
// query of the current persona; PER_LINUX (0) is what every process of a
// run has, so setting it changes nothing. Refused with the rest: the
// flags that switch off address-space randomization (ADDR_NO_RANDOMIZE),
// make every readable mapping executable (READ_IMPLIES_EXEC) or map page
// zero (MMAP_PAGE_ZERO), and the foreign personas. No language of the
// catalog calls personality at all (strace of each toolchain and runtime).
var PersonalityAllowed = [2]uint32{0, 0xffffffff}

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

// HelperCalls are the calls a spare helper makes after loading the
// pre-filter, or its target before the delta, that no run may make: the
// helper attaches the run's box and /tmp (move_mount; open_tree and
// umount2 where it splits the space itself), enters the slot's network
// namespace, sets the hostname, starts the target in its cgroup (clone3
// on cgroup v2); the target makes its cgroup namespace (unshare). mount
// is the helper's too should a step need it. The pre-filter allows them;
// every run's own filter refuses them.
var HelperCalls = []string{"mount", "umount2", "move_mount", "open_tree", "setns", "unshare", "sethostname", "clone3"}

// Build returns the filters of a run of opts.
func Build(opts Options) (Programs, error) {
	if p, ok := assembled[opts]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("seccomp: no filter for %+v", opts)
}

// PreFilter is the filter a spare helper loads before its run is known
// (policy's prefilter.go says why): stacked with Delta(opts), it gives
// every call the verdict Build(opts) gives it.
func PreFilter() (load.Program, error) { return preFilter, nil }

// Delta is the filter a run of opts loads over PreFilter.
func Delta(opts Options) (Programs, error) {
	if p, ok := deltas[opts]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("seccomp: no delta of the pre-filter for %+v", opts)
}
