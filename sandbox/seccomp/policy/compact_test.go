package policy

import (
	"github.com/docketjudge/docket/sandbox/seccomp"
	"math/rand"
	"testing"

	libseccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
)

// The compacted base filter gives the library's verdict for every
// architecture and call number: at every breakpoint (compact checks
// those itself), and at random values and every number up to 1024 for
// the architectures that matter.
func TestCompactSameVerdicts(t *testing.T) {
	for _, single := range []bool{false, true} {
		for _, nonet := range []bool{false, true} {
			opts := seccomp.Options{SingleProcess: single, NoNetwork: nonet}
			pols := Policies(opts)
			insts, err := pols[0].Assemble()
			if err != nil {
				t.Fatal(err)
			}
			orig, err := bpf.Assemble(insts)
			if err != nil {
				t.Fatal(err)
			}
			small, ok := compact(orig)
			if !ok {
				t.Fatalf("%+v: base filter not compacted", opts)
			}
			if len(small) > len(orig)/2 {
				t.Errorf("%+v: compacted to %d instructions from %d", opts, len(small), len(orig))
			}
			t.Logf("%+v: %d -> %d instructions", opts, len(orig), len(small))
			archs := []uint32{0xC000003E, 0x40000003, 0xC00000B7, 0, 0xffffffff}
			rng := rand.New(rand.NewSource(1))
			check := func(a, n uint32) {
				want, ok1 := run(orig, a, n)
				got, ok2 := run(small, a, n)
				if !ok1 || !ok2 || want != got {
					t.Fatalf("%+v: arch %#x nr %d: verdict %#x, want %#x", opts, a, n, got, want)
				}
			}
			for _, a := range archs {
				for n := uint32(0); n < 1024; n++ {
					check(a, n)
				}
				for _, n := range []uint32{0x3fffffff, 0x40000000, 0x40000001, 0x40000200, 0x7fffffff, 0x80000000, 0xffffffff} {
					check(a, n)
				}
			}
			for i := 0; i < 100000; i++ {
				check(rng.Uint32(), rng.Uint32())
				check(archs[0], rng.Uint32())
			}
			// What seccomp.Build hands out is the compacted filter behind the
			// clone check, as one program.
			progs, err := seccomp.Build(opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(progs) != 1 || len(progs[0]) != len(withArgChecks(small, single)) {
				t.Errorf("%+v: seccomp.Build hands out %d programs, the first of %d instructions; want one of %d", opts, len(progs), len(progs[0]), len(withArgChecks(small, single)))
			}
			// The clone rules test an argument: not compactable.
			for i := 1; i < len(pols); i++ {
				insts, _ := pols[i].Assemble()
				raw, _ := bpf.Assemble(insts)
				if _, ok := compact(raw); ok {
					t.Errorf("%+v: argument filter %d was compacted", opts, i)
				}
			}
		}
	}
}

// Spot checks of the verdicts themselves on the compacted filter.
func TestCompactVerdicts(t *testing.T) {
	progs, err := seccomp.Build(seccomp.Options{SingleProcess: true, NoNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	var raw []bpf.RawInstruction
	for _, in := range progs[0] {
		raw = append(raw, bpf.RawInstruction{Op: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K})
	}
	const x86 = 0xC000003E
	allow := uint32(libseccomp.ActionAllow)
	kill := uint32(libseccomp.ActionKillProcess)
	for _, c := range []struct {
		arch, nr uint32
		want     uint32
	}{
		{x86, 0, allow},                          // read
		{x86, 1, allow},                          // write
		{x86, 165, kill},                         // mount
		{x86, 272, kill},                         // unshare
		{x86, 57, uint32(errno(1))},              // fork: EPERM
		{x86, 41, uint32(errno(13))},             // socket: EACCES
		{x86, 435, uint32(errno(38))},            // clone3: ENOSYS
		{x86, 0x40000000 + 1, uint32(errno(38))}, // x32 write
		{0x40000003, 1, kill},                    // i386
		{x86, 100000, kill},                      // no such call
	} {
		if got, _ := run(raw, c.arch, c.nr); got != c.want {
			t.Errorf("arch %#x nr %d: %#x, want %#x", c.arch, c.nr, got, c.want)
		}
	}
}
