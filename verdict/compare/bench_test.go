package compare

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// tenMB is about 10 MB of integers, 10 a line.
func tenMB() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := 0; b.Len() < 10<<20; i++ {
		b.WriteString(strconv.FormatInt(r.Int64N(2_000_000_001)-1_000_000_000, 10))
		if i%10 == 9 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()
}

// BenchmarkCompare reports MB/s of team output on 10 MB of integers.
func BenchmarkCompare(b *testing.B) {
	ans := tenMB()
	spaced := bytes.ReplaceAll(ans, []byte("\n"), []byte(" "))
	// The same numbers as floats with a different formatting.
	var floatAns, floatTeam bytes.Buffer
	for i, f := range bytes.Fields(ans) {
		v, _ := strconv.ParseFloat(string(f), 64)
		floatAns.WriteString(strconv.FormatFloat(v/1000, 'f', 3, 64))
		floatTeam.WriteString(strconv.FormatFloat(v/1000*(1+1e-9), 'g', 12, 64))
		sep := byte(' ')
		if i%10 == 9 {
			sep = '\n'
		}
		floatAns.WriteByte(sep)
		floatTeam.WriteByte(sep)
	}
	for _, bc := range []struct {
		name      string
		team, ans []byte
		opt       Options
	}{
		{"identical", ans, ans, Options{}},
		{"identical/case_sensitive", ans, ans, Options{CaseSensitive: true}},
		{"identical/space_change_sensitive", ans, ans, Options{SpaceChangeSensitive: true}},
		{"identical/exact", ans, ans, Options{Exact: true}},
		{"whitespace-differs", spaced, ans, Options{}},
		{"floats/float_tolerance", floatTeam.Bytes(), floatAns.Bytes(), Options{HasFloat: true, FloatAbs: 1e-6, FloatRel: 1e-6}},
	} {
		if o := CompareBytes(bc.team, bc.ans, bc.opt); !o.Accepted {
			b.Fatalf("%s: %s", bc.name, o.Message)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.team)))
			b.ReportAllocs()
			for b.Loop() {
				CompareBytes(bc.team, bc.ans, bc.opt)
			}
		})
	}
}
