package policy

import (
	"github.com/docketjudge/docket/sandbox/seccomp"
	"testing"

	libseccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
)

// The pre-filter with a run's delta stacked on it decides every call as
// the run's own filter does: every call number of x86_64, i386 and x32,
// foreign architectures, clone with each flag alone, the runtimes' flag
// sets and random flags, for every kind of run. The combination is the
// kernel's (stackVerdict), not the Stacked that built the delta.
func TestDeltaStacksToRun(t *testing.T) {
	pre, err := seccomp.PreFilter()
	if err != nil {
		t.Fatal(err)
	}
	args := cloneArgs(17, 100)
	for _, opts := range allOptions() {
		run, err := seccomp.Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		delta, err := seccomp.Delta(opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(delta) != 1 || len(delta[0]) >= len(run[0]) {
			t.Errorf("%+v: the delta (%d programs, %d instructions) is no smaller than the run's filter (%d)", opts, len(delta), len(delta[0]), len(run[0]))
		}
		stacked := seccomp.Programs{pre, delta[0]}
		for _, a := range []uint32{auditX86_64, auditI386, 0, auditX86_64 + 1, 0xffffffff} {
			for nr := uint32(0); nr < 1100; nr++ {
				for _, n := range []uint32{nr, 0x40000000 | nr, 0xffffffff - nr} {
					check := []uint64{0, 0xffffffff_ffffffff}
					if nr == nrClone || nr == i386Clone {
						check = args
					}
					for _, arg := range check {
						if got, want := stackVerdict(t, stacked, a, n, arg), stackVerdict(t, run, a, n, arg); got != want {
							t.Fatalf("%+v arch %#x nr %#x arg %#x: pre-filter and delta %#x, the run's filter %#x", opts, a, n, arg, got, want)
						}
					}
				}
			}
		}
	}
}

// The pre-filter lets the helper's calls through (it makes them under
// it), and every run's filter refuses each of them: a call no run refuses
// has no business in seccomp.HelperCalls, which loosen the helper's filter.
func TestPreFilterHelperCalls(t *testing.T) {
	pre, err := seccomp.PreFilter()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range seccomp.HelperCalls {
		nr, ok := arch.X86_64.SyscallNames[name]
		if !ok {
			t.Fatalf("%s: not an x86_64 system call", name)
		}
		if v := stackVerdict(t, seccomp.Programs{pre}, auditX86_64, uint32(nr), 0); v != vAllow {
			t.Errorf("%s: the pre-filter answers %#x, want allow", name, v)
		}
		for _, opts := range allOptions() {
			run, _ := seccomp.Build(opts)
			if v := stackVerdict(t, run, auditX86_64, uint32(nr), 0); v == uint32(libseccomp.ActionAllow) {
				t.Errorf("%s: allowed by the filter of %+v runs", name, opts)
			}
		}
	}
}
