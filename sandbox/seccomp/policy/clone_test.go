package policy

import (
	"encoding/binary"
	"fmt"
	"github.com/docketjudge/docket/sandbox/seccomp"
	"math/rand"
	"testing"

	libseccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

const (
	auditX86_64 = 0xC000003E
	auditI386   = 0x40000003
	nrClone     = 56
	nrClone3    = 435
	nrUnshare   = 272
	nrWrite     = 1
	i386Clone   = 120
)

var (
	vAllow = uint32(libseccomp.ActionAllow)
	vKill  = uint32(libseccomp.ActionKillProcess)
	vEPERM = uint32(errno(unix.EPERM))
	vNOSYS = uint32(errno(unix.ENOSYS))
)

// stackVerdict runs every filter of progs, as seccomp.Build hands them to the
// helper, in the x/net/bpf VM and combines their verdicts as the kernel
// does: the most recently installed filter first, and a later one's
// verdict replaces it only when its action is strictly more restrictive
// (a smaller signed action value: kill < errno < allow).
func stackVerdict(t *testing.T, progs seccomp.Programs, arch, nr uint32, arg0 uint64) uint32 {
	t.Helper()
	data := seccompData(arch, nr, arg0)
	verdict := vAllow
	for i := len(progs) - 1; i >= 0; i-- {
		raw := make([]bpf.RawInstruction, len(progs[i]))
		for j, in := range progs[i] {
			raw[j] = bpf.RawInstruction{Op: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
		}
		insts, ok := bpf.Disassemble(raw)
		if !ok {
			t.Fatalf("filter %d does not disassemble", i)
		}
		vm, err := bpf.NewVM(insts)
		if err != nil {
			t.Fatalf("filter %d: %v", i, err)
		}
		r, err := vm.Run(data)
		if err != nil {
			t.Fatalf("filter %d: %v", i, err)
		}
		if int32(uint32(r)&0xffff0000) < int32(verdict&0xffff0000) {
			verdict = uint32(r)
		}
	}
	return verdict
}

// seccompData lays out struct seccomp_data for the VM. The kernel loads
// its 32-bit words in native (little-endian) order, the VM in big-endian:
// each word goes at its little-endian offset, written big-endian, which is
// what the filters' loads of the low and high halves of an argument
// expect.
func seccompData(arch, nr uint32, arg0 uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	binary.BigEndian.PutUint32(b[16:], uint32(arg0))
	binary.BigEndian.PutUint32(b[20:], uint32(arg0>>32))
	return b
}

func allOptions() []seccomp.Options {
	var out []seccomp.Options
	for _, single := range []bool{false, true} {
		for _, nonet := range []bool{false, true} {
			out = append(out, seccomp.Options{SingleProcess: single, NoNetwork: nonet})
		}
	}
	return out
}

// forbiddenClone names every flag that must never pass clone, independent
// of seccomp.CloneAllowed (so a flag slipped into the allowlist fails here).
var forbiddenClone = map[string]uint64{
	"CLONE_NEWNS": unix.CLONE_NEWNS, "CLONE_NEWUTS": unix.CLONE_NEWUTS, "CLONE_NEWIPC": unix.CLONE_NEWIPC,
	"CLONE_NEWUSER": unix.CLONE_NEWUSER, "CLONE_NEWPID": unix.CLONE_NEWPID, "CLONE_NEWNET": unix.CLONE_NEWNET,
	"CLONE_NEWCGROUP": unix.CLONE_NEWCGROUP, "CLONE_PARENT": unix.CLONE_PARENT, "CLONE_PTRACE": unix.CLONE_PTRACE,
	"CLONE_UNTRACED": unix.CLONE_UNTRACED, "CLONE_IO": unix.CLONE_IO, "CLONE_DETACHED": unix.CLONE_DETACHED,
	"CLONE_CLEAR_SIGHAND": unix.CLONE_CLEAR_SIGHAND, "CLONE_INTO_CGROUP": unix.CLONE_INTO_CGROUP,
	"bit 40": 1 << 40, "bit 63": 1 << 63, "high half": 0xffffffff_00000000,
	"every namespace": unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
		unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP,
}

// What the runtimes pass to clone (see seccomp.CloneAllowed).
const (
	pthreadFlags = unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD |
		unix.CLONE_SYSVSEM | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID | unix.CLONE_CHILD_CLEARTID
	goThreadFlags = unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_SYSVSEM | unix.CLONE_THREAD
	forkFlags     = unix.CLONE_CHILD_SETTID | unix.CLONE_CHILD_CLEARTID | uint64(unix.SIGCHLD)
	spawnFlags    = unix.CLONE_VM | unix.CLONE_VFORK | uint64(unix.SIGCHLD)
	goExecFlags   = unix.CLONE_VM | unix.CLONE_VFORK | unix.CLONE_PIDFD | uint64(unix.SIGCHLD)
)

// cloneArgs are clone flag words to check a filter with: none, the
// runtimes' sets, every bit alone and beside fork's and a thread's flags,
// and n random words of each kind (seeded).
func cloneArgs(seed int64, n int) []uint64 {
	rng := rand.New(rand.NewSource(seed))
	args := []uint64{0, forkFlags, pthreadFlags, goThreadFlags, spawnFlags, goExecFlags, 0xffffffff_ffffffff}
	for bit := 0; bit < 64; bit++ {
		args = append(args, 1<<bit, uint64(1)<<bit|forkFlags, uint64(1)<<bit|pthreadFlags)
	}
	for i := 0; i < n; i++ {
		args = append(args, rng.Uint64(), rng.Uint64()&0xffffffff, rng.Uint64()&seccomp.CloneAllowed)
	}
	return args
}

// Every forbidden flag fails with EPERM in every kind of run: alone, with
// fork's flags and with a thread's (a forbidden bit must not hide behind
// allowed ones).
func TestCloneForbiddenFlags(t *testing.T) {
	for _, opts := range allOptions() {
		progs, err := seccomp.Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		for name, flag := range forbiddenClone {
			for _, with := range []uint64{0, forkFlags, pthreadFlags} {
				if got := stackVerdict(t, progs, auditX86_64, nrClone, flag|with); got != vEPERM {
					t.Errorf("%+v: clone(%s|%#x) = %#x, want EPERM", opts, name, with, got)
				}
			}
		}
	}
}

// Threads always pass; fork, posix_spawn and os/exec pass in a
// multi-process run and get EPERM in a single-process one. The exit
// signal byte is free (0x80 there is an exit signal, not CLONE_NEWTIME).
func TestCloneAllowedFlags(t *testing.T) {
	for _, opts := range allOptions() {
		progs, err := seccomp.Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		procVerdict := vAllow
		if opts.SingleProcess {
			procVerdict = vEPERM
		}
		for _, c := range []struct {
			name  string
			flags uint64
			want  uint32
		}{
			{"pthread_create", pthreadFlags, vAllow},
			{"Go runtime thread", goThreadFlags, vAllow},
			{"fork", forkFlags, procVerdict},
			{"posix_spawn", spawnFlags, procVerdict},
			{"os/exec with pidfd", goExecFlags, procVerdict},
			{"exit signal 0x80", 0x80, procVerdict},
			{"exit signal 0xff", 0xff, procVerdict},
			{"every allowed flag", seccomp.CloneAllowed, vAllow},
		} {
			if got := stackVerdict(t, progs, auditX86_64, nrClone, c.flags); got != c.want {
				t.Errorf("%+v: clone(%s = %#x) = %#x, want %#x", opts, c.name, c.flags, got, c.want)
			}
		}
	}
}

// Random flag words against the rule stated in Go: EPERM when any bit is
// outside seccomp.CloneAllowed, or when a single-process run asks for anything but
// a thread.
func TestCloneRandomFlags(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for _, opts := range allOptions() {
		progs, err := seccomp.Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3000; i++ {
			flags := rng.Uint64()
			switch i % 3 {
			case 1: // mostly allowed bits, sometimes one more
				flags &= seccomp.CloneAllowed | 1<<uint(rng.Intn(64))
			case 2:
				flags &= seccomp.CloneAllowed
			}
			want := vAllow
			if flags&^uint64(seccomp.CloneAllowed) != 0 || (opts.SingleProcess && flags&unix.CLONE_THREAD == 0) {
				want = vEPERM
			}
			if got := stackVerdict(t, progs, auditX86_64, nrClone, flags); got != want {
				t.Fatalf("%+v: clone(%#x) = %#x, want %#x", opts, flags, got, want)
			}
		}
	}
}

// The clone filters change nothing else: the i386 entry is killed
// whatever the flags, x32 and clone3 stay ENOSYS, unshare is killed, other
// calls with the same argument bits pass.
func TestCloneRuleLeavesTheRest(t *testing.T) {
	for _, opts := range allOptions() {
		progs, err := seccomp.Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			arch, nr uint32
			arg      uint64
			want     uint32
		}{
			{auditI386, i386Clone, unix.CLONE_NEWUSER, vKill},
			{auditI386, i386Clone, forkFlags, vKill},
			{auditI386, nrClone, pthreadFlags, vKill},
			{auditX86_64, 0x40000000 | nrClone, unix.CLONE_NEWUSER, vNOSYS},
			{auditX86_64, nrClone3, 0, vNOSYS},
			{auditX86_64, nrUnshare, unix.CLONE_NEWUSER, vKill},
			{auditX86_64, nrWrite, unix.CLONE_NEWUSER, vAllow},
			{auditX86_64, nrWrite, 0xffffffff_ffffffff, vAllow},
		} {
			if got := stackVerdict(t, progs, c.arch, c.nr, c.arg); got != c.want {
				t.Errorf("%+v: arch %#x nr %#x arg %#x: %#x, want %#x", opts, c.arch, c.nr, c.arg, got, c.want)
			}
		}
	}
}

// Each conditional rule of Policies is alone in its filter, with
// DefaultAction Allow: the form that is immune to go-seccomp-bpf v1.6.0's
// accumulator bug, in which assembleStacked (the reference for the merged
// program) assembles them.
func TestConditionalRulesStandAlone(t *testing.T) {
	for _, opts := range allOptions() {
		for i, p := range Policies(opts)[1:] {
			name := fmt.Sprintf("%+v filter %d", opts, i+1)
			if p.DefaultAction != libseccomp.ActionAllow {
				t.Errorf("%s: default action %v, want allow", name, p.DefaultAction)
			}
			if len(p.Syscalls) != 1 || len(p.Syscalls[0].Names) != 0 || len(p.Syscalls[0].NamesWithCondtions) != 1 {
				t.Errorf("%s: not a single conditional rule: %+v", name, p.Syscalls)
			}
		}
	}
}

// assembleStacked assembles each of Policies' filters on its own, as a
// stack of programs: what the single program of Assemble must decide
// alike.
func assembleStacked(opts seccomp.Options) (seccomp.Programs, error) {
	var progs seccomp.Programs
	for _, pol := range Policies(opts) {
		raw, err := assembleRaw(pol)
		if err != nil {
			return nil, err
		}
		progs = append(progs, toProgram(raw))
	}
	return progs, nil
}

// The single program Assemble makes decides every call as the three
// filters it replaces, stacked as the kernel stacks them: every system
// call number of x86_64 and i386 (and x32's), clone with each flag alone,
// the runtimes' flag sets, and random flags.
func TestMergedSameVerdicts(t *testing.T) {
	args := cloneArgs(14, 200)
	for _, opts := range allOptions() {
		merged, err := Assemble(opts)
		if err != nil {
			t.Fatal(err)
		}
		stacked, err := assembleStacked(opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(merged) != 1 || len(stacked) < 2 {
			t.Fatalf("%+v: %d merged programs, %d stacked", opts, len(merged), len(stacked))
		}
		for _, arch := range []uint32{auditX86_64, auditI386, 0} {
			for nr := uint32(0); nr < 520; nr++ {
				for _, n := range []uint32{nr, 0x40000000 | nr} {
					check := []uint64{0, 0xffffffff_ffffffff}
					if nr == nrClone || nr == i386Clone {
						check = args
					}
					for _, a := range check {
						if m, s := stackVerdict(t, merged, arch, n, a), stackVerdict(t, stacked, arch, n, a); m != s {
							t.Fatalf("%+v arch %#x nr %#x arg %#x: merged %#x, stacked %#x", opts, arch, n, a, m, s)
						}
					}
				}
			}
		}
	}
}
