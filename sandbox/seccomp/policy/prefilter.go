package policy

import (
	"fmt"
	"slices"
	"sync"

	"github.com/docketjudge/docket/sandbox/seccomp"
	"github.com/docketjudge/docket/sandbox/seccomp/load"
	libseccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// A run's filter is loaded by its target, last of its setup, on the
// run's path: the kernel validates it, compiles it and runs it for every
// call number to fill its action cache, about a tenth of a short run.
// Most of that work can be done before the run is known. A spare helper
// (the zygote's, sandbox/nsinit/zygote.c) loads the pre-filter as soon as
// its root is ready: every run's filter, as loose as the loosest kind of
// run (processes, network) and looser still by seccomp.HelperCalls, which the
// helper and the target make after that point. The target then loads
// only the delta for its kind of run, a few dozen instructions that
// refuse what the pre-filter lets through and the run's own filter does
// not. The kernel applies both, the most restrictive verdict winning, so
// the run gets exactly its own filter's verdict for every call
// (TestDeltaStacksToRun), and the helper, PID 1 of the run, stays under
// the pre-filter until it exits.

// AssemblePreFilter is the filter a spare helper loads before its run is
// known (seccomp.PreFilter): stacked with AssembleDelta(opts) it is the
// filter of a run of opts.
func AssemblePreFilter() (load.Program, error) {
	raw, err := preBase()
	if err != nil {
		return nil, err
	}
	return toProgram(withArgChecks(raw, false)), nil
}

// preBase is the pre-filter's base, compacted, without the clone check:
// what AssemblePreFilter loads behind the clone check, and what
// AssembleDelta is taken against.
var preBase = sync.OnceValues(func() ([]bpf.RawInstruction, error) {
	return compactBase(basePolicy(preDenials()))
})

// preDenials are the loosest kind of run's denials (denials of the zero
// Options) but for seccomp.HelperCalls.
func preDenials() []denial {
	var out []denial
	for _, d := range denials(seccomp.Options{}) {
		names := slices.DeleteFunc(slices.Clone(d.names), func(n string) bool { return slices.Contains(seccomp.HelperCalls, n) })
		out = append(out, denial{d.action, names})
	}
	return out
}

// AssembleDelta is the filter a run of opts loads over the pre-filter
// (seccomp.Delta): the two stacked give every call the verdict
// Assemble(opts) gives it.
func AssembleDelta(opts seccomp.Options) (seccomp.Programs, error) {
	own, err := compactBase(basePolicy(denials(opts)))
	if err != nil {
		return nil, err
	}
	pre, err := preBase()
	if err != nil {
		return nil, err
	}
	d, ok := delta(own, pre)
	if !ok {
		return nil, fmt.Errorf("seccomp: no delta of the pre-filter for %+v", opts)
	}
	// The clone check is the run's own: the pre-filter's lets a process
	// be made, which a single-process run's refuses.
	return seccomp.Programs{toProgram(withArgChecks(d, opts.SingleProcess))}, nil
}

// delta is a filter that, stacked on pre, gives every call (architecture
// and number) the verdict of own, the run's filter: own's verdict where
// pre's differs, else Allow. Both must decide on the architecture and the
// number alone (compact's subset), and pre must be nowhere stricter than
// own, which no filter loaded after it could undo. Checked at every
// breakpoint of either.
func delta(own, pre []bpf.RawInstruction) ([]bpf.RawInstruction, bool) {
	oa, on, ok1 := breakpoints(own)
	pa, pn, ok2 := breakpoints(pre)
	if !ok1 || !ok2 {
		return nil, false
	}
	archPts, nrPts := union(oa, pa), union(on, pn)
	out, ok := byVerdicts(archPts, nrPts, func(a, n uint32) (uint32, bool) {
		vr, ok1 := run(own, a, n)
		vp, ok2 := run(pre, a, n)
		switch {
		case !ok1 || !ok2 || action(vp) < action(vr):
			return 0, false
		case vr == vp:
			return uint32(libseccomp.ActionAllow), true
		}
		return vr, true
	})
	if !ok {
		return nil, false
	}
	for _, a := range archPts {
		for _, n := range nrPts {
			want, _ := run(own, a, n)
			vp, _ := run(pre, a, n)
			vd, ok := run(out, a, n)
			if !ok || Stacked(vp, vd) != want {
				return nil, false
			}
		}
	}
	return out, true
}

// Stacked is the verdict of two stacked filters as the kernel combines
// them: the newer filter's, unless the older one's action is strictly
// more restrictive (kill < trap < errno < ... < allow, as signed values
// of the action bits); of two errno verdicts, the newer one's.
func Stacked(older, newer uint32) uint32 {
	if action(older) < action(newer) {
		return older
	}
	return newer
}

func action(v uint32) int32 { return int32(v & unix.SECCOMP_RET_ACTION_FULL) }

// union merges two sorted lists of breakpoints.
func union(a, b []uint32) []uint32 {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
