package policy

import (
	"github.com/docketjudge/docket/sandbox/seccomp"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// withArgChecks puts the rules on arguments in front of the compacted base
// filter, as one program: the clone rules (Policies' second and third
// filters: clone's flags outside seccomp.CloneAllowed, and for a
// single-process run clone without CLONE_THREAD, both EPERM) and the
// personality rule (seccomp.PersonalityAllowed, EPERM for any other
// argument). Each filter a run loads costs the kernel a validation, a JIT
// compilation and a pass over every system call number for its action
// cache: one filter instead of three saves two of each on every run. The
// rules are written here by hand rather than by go-seccomp-bpf (whose
// v1.6.0 mishandles a conditional rule that is not alone in its filter);
// the tests hold the merged program to the verdicts of the filters it
// replaces, call by call (TestMergedSameVerdicts), and the personality
// rule to seccomp.PersonalityAllowed (TestPersonalityArgs).
//
// The prefix decides only clone and personality on x86_64, and only to
// refuse them: every other call, every other architecture and every call
// it lets through fall into the base filter, unchanged, which allows
// both.
func withArgChecks(base []bpf.RawInstruction, single bool) []bpf.RawInstruction {
	const (
		offArg0Lo = 16 // struct seccomp_data: args[0], little-endian
		offArg0Hi = 20
		persona   = 10 // the personality rule's first instruction
		eperm     = 17
		prefixLen = 18 // the instructions below; the base starts here
	)
	// jump is the offset from instruction i to instruction to.
	jump := func(i, to int) uint8 { return uint8(to - i - 1) }
	forbidden := ^uint64(seccomp.CloneAllowed)
	p := []bpf.RawInstruction{
		0: {Op: ldAbsW, K: offArch},
		1: {Op: jeqK, K: unix.AUDIT_ARCH_X86_64, Jf: jump(1, prefixLen)},
		2: {Op: ldAbsW, K: offNR},
		3: {Op: jeqK, K: unix.SYS_PERSONALITY, Jt: jump(3, persona)},
		4: {Op: jeqK, K: unix.SYS_CLONE, Jf: jump(4, prefixLen)},
		5: {Op: ldAbsW, K: offArg0Hi},
		6: {Op: jsetK, K: uint32(forbidden >> 32), Jt: jump(6, eperm)},
		7: {Op: ldAbsW, K: offArg0Lo},
		8: {Op: jsetK, K: uint32(forbidden), Jt: jump(8, eperm)},
		9: {Op: ja, K: uint32(jump(9, prefixLen))},
		// personality: the high half 0 with the low 0 or all ones, or
		// all 64 bits ones (-1 passed as a long).
		10: {Op: ldAbsW, K: offArg0Hi},
		11: {Op: jeqK, K: 0, Jt: jump(11, 13), Jf: jump(11, 12)},
		12: {Op: jeqK, K: 0xffffffff, Jt: jump(12, 15), Jf: jump(12, eperm)},
		13: {Op: ldAbsW, K: offArg0Lo},
		14: {Op: jeqK, K: seccomp.PersonalityAllowed[0], Jt: jump(14, prefixLen), Jf: jump(14, 16)},
		15: {Op: ldAbsW, K: offArg0Lo},
		16: {Op: jeqK, K: seccomp.PersonalityAllowed[1], Jt: jump(16, prefixLen), Jf: jump(16, eperm)},
		17: {Op: retK, K: uint32(errno(unix.EPERM))},
	}
	if single {
		// A child process (no CLONE_THREAD) is refused; a thread goes on.
		p[9] = bpf.RawInstruction{Op: jsetK, K: unix.CLONE_THREAD, Jt: jump(9, prefixLen), Jf: jump(9, eperm)}
	}
	return append(p, base...)
}
