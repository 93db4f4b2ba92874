package policy

import (
	"sort"

	"golang.org/x/net/bpf"
)

// compact rewrites a filter whose verdict depends only on the architecture
// and the system call number (the base allowlist) as a binary search over
// ranges of numbers, and returns it with ok = true; any other filter comes
// back unchanged with ok = false.
//
// Why: go-seccomp-bpf emits one comparison per system call, a chain of
// almost 400 instructions. Installing it costs the kernel about 0.3 ms per
// run (it validates and JIT-compiles the program and, for its action
// cache, runs it for every system call number of every architecture); the
// search tree of about 120 instructions costs a sixth of that and decides
// any call in about seven comparisons.
//
// The rewrite is exact, and checked: both programs compare the number and
// the architecture only with constants, so each is constant between
// consecutive "breakpoints" (every constant k of the original, and k+1 for
// equality and greater-than tests). compact runs both programs at every
// pair of breakpoints and returns the original if any verdict differs.
func compact(prog []bpf.RawInstruction) ([]bpf.RawInstruction, bool) {
	archPts, nrPts, ok := breakpoints(prog)
	if !ok {
		return prog, false
	}
	out, ok := byVerdicts(archPts, nrPts, func(a, n uint32) (uint32, bool) { return run(prog, a, n) })
	if !ok || len(out) >= len(prog) {
		return prog, false
	}
	for _, a := range archPts {
		for _, n := range nrPts {
			want, _ := run(prog, a, n)
			got, ok := run(out, a, n)
			if !ok || got != want {
				return prog, false
			}
		}
	}
	return out, true
}

// byVerdicts is a search program that returns verdict(arch, nr), which
// must be constant between consecutive breakpoints: the architecture
// first, one leaf per range of architecture values, each either a
// verdict or a search over the call number. It fails where verdict does,
// or past the kernel's length limit.
func byVerdicts(archPts, nrPts []uint32, verdict func(arch, nr uint32) (uint32, bool)) ([]bpf.RawInstruction, bool) {
	var archRanges []span
	leaves := map[uint32][]bpf.RawInstruction{}
	for i, a := range archPts {
		verdicts := make([]uint32, len(nrPts))
		for j, n := range nrPts {
			v, ok := verdict(a, n)
			if !ok {
				return nil, false
			}
			verdicts[j] = v
		}
		leaf := []bpf.RawInstruction{{Op: ldAbsW, K: offNR}}
		leaf = append(leaf, tree(merge(nrPts, verdicts))...)
		if all(verdicts, verdicts[0]) {
			leaf = []bpf.RawInstruction{{Op: retK, K: verdicts[0]}}
		}
		// Adjacent architecture ranges with the same code share a leaf.
		key := uint32(i)
		if n := len(archRanges); n > 0 && same(leaves[archRanges[n-1].verdict], leaf) {
			continue
		}
		leaves[key] = leaf
		archRanges = append(archRanges, span{start: a, verdict: key})
	}
	out := []bpf.RawInstruction{{Op: ldAbsW, K: offArch}}
	out = append(out, treeOf(archRanges, func(key uint32) []bpf.RawInstruction { return leaves[key] })...)
	return out, len(out) <= maxFilterLen
}

// Classic BPF opcodes of seccomp filters.
const (
	ldAbsW = 0x20 // BPF_LD | BPF_W | BPF_ABS
	ja     = 0x05 // BPF_JMP | BPF_JA
	jeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	jgtK   = 0x25
	jgeK   = 0x35
	jsetK  = 0x45
	retK   = 0x06 // BPF_RET | BPF_K

	offNR   = 0 // struct seccomp_data
	offArch = 4

	maxFilterLen = 4096 // BPF_MAXINSNS
)

const (
	srcNR   = 1
	srcArch = 2
)

// breakpoints collects, for the architecture and the number separately,
// the values at which the program's verdict may change. It fails for any
// instruction outside the subset above, a load of anything but the number
// or the architecture, a bit test, or a comparison of a register whose
// source is unknown.
func breakpoints(prog []bpf.RawInstruction) (arch, nr []uint32, ok bool) {
	n := len(prog)
	if n == 0 || prog[n-1].Op != retK {
		return nil, nil, false
	}
	src := make([]int, n+1) // what A may hold on entry to each instruction
	reached := make([]bool, n)
	reached[0] = true
	archSet := map[uint32]bool{0: true}
	nrSet := map[uint32]bool{0: true}
	add := func(s int, vals ...uint32) {
		for _, v := range vals {
			if s&srcNR != 0 {
				nrSet[v] = true
			}
			if s&srcArch != 0 {
				archSet[v] = true
			}
		}
	}
	flow := func(from, to int, s int) bool {
		if to <= from || to >= n {
			return false
		}
		reached[to] = true
		src[to] |= s
		return true
	}
	for pc, in := range prog {
		if !reached[pc] {
			continue
		}
		s := src[pc]
		switch in.Op {
		case ldAbsW:
			switch in.K {
			case offNR:
				s = srcNR
			case offArch:
				s = srcArch
			default:
				return nil, nil, false
			}
			if !flow(pc, pc+1, s) {
				return nil, nil, false
			}
		case ja:
			if !flow(pc, pc+1+int(in.K), s) {
				return nil, nil, false
			}
		case jeqK, jgtK, jgeK:
			if s == 0 {
				return nil, nil, false
			}
			switch in.Op {
			case jeqK:
				add(s, in.K, in.K+1)
			case jgtK:
				add(s, in.K+1)
			case jgeK:
				add(s, in.K)
			}
			if !flow(pc, pc+1+int(in.Jt), s) || !flow(pc, pc+1+int(in.Jf), s) {
				return nil, nil, false
			}
		case retK:
		default: // jsetK, arithmetic, X, scratch memory, RET A
			return nil, nil, false
		}
	}
	return sorted(archSet), sorted(nrSet), true
}

func sorted(set map[uint32]bool) []uint32 {
	out := make([]uint32, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// run interprets the subset of classic BPF that breakpoints accepts, as
// the kernel would for a call with this architecture and number.
func run(prog []bpf.RawInstruction, arch, nr uint32) (uint32, bool) {
	var a uint32
	for pc := 0; pc < len(prog); {
		in := prog[pc]
		switch in.Op {
		case ldAbsW:
			switch in.K {
			case offNR:
				a = nr
			case offArch:
				a = arch
			default:
				return 0, false
			}
			pc++
		case ja:
			pc += 1 + int(in.K)
		case jeqK, jgtK, jgeK, jsetK:
			var t bool
			switch in.Op {
			case jeqK:
				t = a == in.K
			case jgtK:
				t = a > in.K
			case jgeK:
				t = a >= in.K
			case jsetK:
				t = a&in.K != 0
			}
			if t {
				pc += 1 + int(in.Jt)
			} else {
				pc += 1 + int(in.Jf)
			}
		case retK:
			return in.K, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// span is a range of values [start, next span's start) with one verdict
// (or, for architectures, one leaf).
type span struct {
	start   uint32
	verdict uint32
}

// merge turns verdicts at sorted breakpoints into maximal spans.
func merge(pts, verdicts []uint32) []span {
	var out []span
	for i, p := range pts {
		if len(out) > 0 && out[len(out)-1].verdict == verdicts[i] {
			continue
		}
		out = append(out, span{start: p, verdict: verdicts[i]})
	}
	return out
}

// tree is a binary search over spans that returns each span's verdict;
// the value being searched is in A.
func tree(spans []span) []bpf.RawInstruction {
	return treeOf(spans, func(v uint32) []bpf.RawInstruction {
		return []bpf.RawInstruction{{Op: retK, K: v}}
	})
}

// treeOf searches spans (the first starts at 0) and runs leaf(verdict) for
// the one holding A. A node is "A >= start of the upper half": true jumps
// over the lower half's code, through a JA when that is too far for the
// 8-bit offset.
func treeOf(spans []span, leaf func(uint32) []bpf.RawInstruction) []bpf.RawInstruction {
	if len(spans) == 1 {
		return leaf(spans[0].verdict)
	}
	m := len(spans) / 2
	lo := treeOf(spans[:m], leaf)
	hi := treeOf(spans[m:], leaf)
	var out []bpf.RawInstruction
	if len(lo) <= 255 {
		out = append(out, bpf.RawInstruction{Op: jgeK, Jt: uint8(len(lo)), Jf: 0, K: spans[m].start})
	} else {
		out = append(out,
			bpf.RawInstruction{Op: jgeK, Jt: 0, Jf: 1, K: spans[m].start},
			bpf.RawInstruction{Op: ja, K: uint32(len(lo))})
	}
	out = append(out, lo...)
	return append(out, hi...)
}

func all(v []uint32, x uint32) bool {
	for _, y := range v {
		if y != x {
			return false
		}
	}
	return true
}

func same(a, b []bpf.RawInstruction) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
