package policy

import (
	"math/rand"
	"testing"

	"github.com/docketjudge/docket/sandbox/seccomp"
	"golang.org/x/sys/unix"
)

// personalityAllowed is the personality rule stated in Go: the low 32 bits
// are one of seccomp.PersonalityAllowed with the high half zero, or all 64
// bits are set.
func personalityAllowed(arg uint64) bool {
	if arg == ^uint64(0) {
		return true
	}
	return arg>>32 == 0 && (uint32(arg) == seccomp.PersonalityAllowed[0] || uint32(arg) == seccomp.PersonalityAllowed[1])
}

// personality(2) passes only with seccomp.PersonalityAllowed, in every kind
// of run, run's filter and pre-filter with delta alike; any other value,
// each bit alone and random ones, fails with EPERM. The i386 entry is
// killed whatever the argument.
func TestPersonalityArgs(t *testing.T) {
	// PER_LINUX32 8, PER_BSD 6, ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, MMAP_PAGE_ZERO
	args := []uint64{0, 0xffffffff, ^uint64(0), 8, 6, 0x40000, 0x400000,
		0x100000, 0x1_00000000, 0xffffffff_00000000, 0x1_ffffffff, 0xfffffffe}
	for bit := 0; bit < 64; bit++ {
		args = append(args, 1<<bit)
	}
	rng := rand.New(rand.NewSource(35))
	for i := 0; i < 500; i++ {
		args = append(args, rng.Uint64(), rng.Uint64()&0xffffffff)
	}
	pre, err := seccomp.PreFilter()
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range allOptions() {
		run, err := seccomp.Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		delta, err := seccomp.Delta(opts)
		if err != nil {
			t.Fatal(err)
		}
		stacked := append(seccomp.Programs{pre}, delta...)
		for _, a := range args {
			want := vEPERM
			if personalityAllowed(a) {
				want = vAllow
			}
			for name, progs := range map[string]seccomp.Programs{"run": run, "pre-filter and delta": stacked} {
				if got := stackVerdict(t, progs, auditX86_64, unix.SYS_PERSONALITY, a); got != want {
					t.Errorf("%+v %s: personality(%#x) = %#x, want %#x", opts, name, a, got, want)
				}
			}
			if got := stackVerdict(t, run, auditI386, unix.SYS_PERSONALITY, a); got != vKill {
				t.Errorf("%+v: i386 call %d (%#x) = %#x, want kill", opts, unix.SYS_PERSONALITY, a, got)
			}
		}
	}
}
