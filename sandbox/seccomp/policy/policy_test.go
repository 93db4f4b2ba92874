package policy

import (
	"github.com/docketjudge/docket/sandbox/seccomp"
	"slices"
	"testing"

	libseccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
)

func TestPoliciesAssemble(t *testing.T) {
	for _, single := range []bool{false, true} {
		for _, nonet := range []bool{false, true} {
			opts := seccomp.Options{SingleProcess: single, NoNetwork: nonet}
			progs, err := seccomp.Build(opts)
			if err != nil {
				t.Fatalf("%+v: %v", opts, err)
			}
			// One program: the clone rules (the allowlist of flags
			// always, no fork in a single-process run) in front of the
			// base, each a filter of its own in Policies.
			if len(progs) != 1 {
				t.Errorf("%+v: %d filters, want 1", opts, len(progs))
			}
			want := 2
			if single {
				want = 3
			}
			if n := len(Policies(opts)); n != want {
				t.Errorf("%+v: %d policies, want %d", opts, n, want)
			}
			again, _ := seccomp.Build(opts)
			if &again[0][0] != &progs[0][0] {
				t.Errorf("%+v: filters were assembled twice", opts)
			}
		}
	}
}

// The base filter is an allowlist: anything not x86_64 (int 0x80) gets
// the default action, which must be a kill.
func TestBaseIsAllowlist(t *testing.T) {
	pols := Policies(seccomp.Options{SingleProcess: true, NoNetwork: true})
	if pols[0].DefaultAction != libseccomp.ActionKillProcess {
		t.Fatalf("base default action %v, want kill_process", pols[0].DefaultAction)
	}
	for i, p := range pols[1:] {
		// go-seccomp-bpf v1.6.0 bug: a conditional group must be a
		// filter's last group.
		for j, g := range p.Syscalls {
			if len(g.NamesWithCondtions) > 0 && j != len(p.Syscalls)-1 {
				t.Errorf("filter %d: conditional group %d is not last", i+1, j)
			}
		}
	}
	for _, n := range slices.Concat(Killed, NotImplemented, Refused) {
		if _, ok := arch.X86_64.SyscallNames[n]; !ok {
			t.Errorf("%s is not an x86_64 system call", n)
		}
	}
}
