package policy

import (
	"github.com/docketjudge/docket/sandbox/seccomp"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// withCloneCheck puts the clone rules (Policies' second and third filters:
// clone's flags outside seccomp.CloneAllowed, and for a single-process run clone
// without CLONE_THREAD, both EPERM) in front of the compacted base filter,
// as one program. Each filter a run loads costs the kernel a validation,
// a JIT compilation and a pass over every system call number for its
// action cache: one filter instead of three saves two of each on every
// run. The rules are written here by hand rather than by go-seccomp-bpf
// (whose v1.6.0 mishandles a conditional rule that is not alone in its
// filter); the tests hold the merged program to the verdicts of the three
// filters it replaces, call by call (TestMergedSameVerdicts).
//
// The prefix decides only clone on x86_64, and only to refuse it: every
// other call, every other architecture and every clone it lets through
// fall into the base filter, unchanged, which allows clone.
func withCloneCheck(base []bpf.RawInstruction, single bool) []bpf.RawInstruction {
	const (
		offArg0Lo = 16 // struct seccomp_data: args[0], little-endian
		offArg0Hi = 20
		prefixLen = 10 // the instructions below; the base starts here
		eperm     = prefixLen - 1
	)
	// jump is the offset from instruction i to instruction to.
	jump := func(i, to int) uint8 { return uint8(to - i - 1) }
	forbidden := ^uint64(seccomp.CloneAllowed)
	p := []bpf.RawInstruction{
		0: {Op: ldAbsW, K: offArch},
		1: {Op: jeqK, K: unix.AUDIT_ARCH_X86_64, Jf: jump(1, prefixLen)},
		2: {Op: ldAbsW, K: offNR},
		3: {Op: jeqK, K: unix.SYS_CLONE, Jf: jump(3, prefixLen)},
		4: {Op: ldAbsW, K: offArg0Hi},
		5: {Op: jsetK, K: uint32(forbidden >> 32), Jt: jump(5, eperm)},
		6: {Op: ldAbsW, K: offArg0Lo},
		7: {Op: jsetK, K: uint32(forbidden), Jt: jump(7, eperm)},
		8: {Op: ja, K: uint32(jump(8, prefixLen))},
		9: {Op: retK, K: uint32(errno(unix.EPERM))},
	}
	if single {
		// A child process (no CLONE_THREAD) is refused; a thread goes on.
		p[8] = bpf.RawInstruction{Op: jsetK, K: unix.CLONE_THREAD, Jt: jump(8, prefixLen), Jf: jump(8, eperm)}
	}
	return append(p, base...)
}
