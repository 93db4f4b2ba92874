package compare

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// fuzzOptions derives Options from two fuzz values, tolerances included
// (negative and NaN ones too: Compare must cope with any Options).
func fuzzOptions(bits uint8, tol float64) Options {
	o := Options{
		CaseSensitive:        bits&1 != 0,
		SpaceChangeSensitive: bits&2 != 0,
		HasFloat:             bits&4 != 0,
		Exact:                bits&8 != 0,
	}
	switch (bits >> 4) & 3 {
	case 0:
		o.FloatAbs, o.FloatRel = tol, tol
	case 1:
		o.FloatAbs, o.FloatRel = tol, -1
	case 2:
		o.FloatAbs, o.FloatRel = -1, tol
	case 3:
		o.FloatAbs, o.FloatRel = tol, tol*tol
	}
	return o
}

func FuzzCompare(f *testing.F) {
	seeds := []struct {
		team, ans string
	}{
		{"hello world\n", "hello world\n"},
		{"1.4\n", "1\n"},
		{" A  B \t\n", "A B"},
		{"a\r\nb", "a\nb"},
		{"", "x"},
		{"x y", ""},
		{"PI is 3.14", "pi IS 3.1400001"},
		{"1e400 -0 .5 5.", "1e300 0 0.5 5"},
		{"\x00\xff\x80 é", "\x00\xff\x80 É"},
		{"1 2\n3\n", "1\n2\n4\n"},
	}
	for i, s := range seeds {
		f.Add([]byte(s.team), []byte(s.ans), uint8(i*37), 1e-6)
	}
	f.Add([]byte("1.5"), []byte("1"), uint8(4), 0.5)
	f.Add([]byte("1"), []byte("1"), uint8(4), math.NaN())
	f.Add([]byte("1"), []byte("1"), uint8(4), math.Inf(1))
	f.Add([]byte("0"), []byte("0"), uint8(4|0x30), -2.0)
	f.Fuzz(func(t *testing.T, team, ans []byte, bits uint8, tol float64) {
		o := fuzzOptions(bits, tol)
		// Anything equals itself, whatever the options.
		for _, x := range [][]byte{team, ans} {
			if got := CompareBytes(x, x, o); !got.Accepted {
				t.Fatalf("Compare(x, x, %+v) rejected %q: %s", o, x, got.Message)
			}
		}
		got, err := Compare(bytes.NewReader(team), bytes.NewReader(ans), o)
		if err != nil {
			t.Fatal(err)
		}
		if o.Exact && got.Accepted != bytes.Equal(team, ans) {
			t.Fatalf("exact: accepted %v for %q vs %q", got.Accepted, team, ans)
		}
		if want := reference(team, ans, o); got.Accepted != want {
			t.Fatalf("%+v: Compare(%q, %q) accepted %v, reference %v (%s)", o, team, ans, got.Accepted, want, got.Message)
		}
		if got.Accepted != (got.Message == "") {
			t.Fatalf("accepted %v with message %q", got.Accepted, got.Message)
		}
		if strings.ContainsAny(got.Message, "\r\n") || len(got.Message) > 400 {
			t.Fatalf("message not one short line: %q", got.Message)
		}
		// The reads do not matter, messages included.
		one, err := Compare(iotest.OneByteReader(bytes.NewReader(team)), iotest.HalfReader(bytes.NewReader(ans)), o)
		if err != nil || one != got {
			t.Fatalf("one-byte reads: %+v, %v; whole: %+v", one, err, got)
		}
		// Now and then, the same repeated past the buffer size, to cross
		// buffer boundaries (and take the long-token paths).
		if bits&0xc0 == 0xc0 && len(team) > 0 && len(ans) > 0 {
			bt := bytes.Repeat(team, bufSize/len(team)+2)
			ba := bytes.Repeat(ans, bufSize/len(ans)+2)
			big, err := Compare(iotest.HalfReader(bytes.NewReader(bt)), bytes.NewReader(ba), o)
			if err != nil {
				t.Fatal(err)
			}
			if want := reference(bt, ba, o); big.Accepted != want {
				t.Fatalf("%+v: repeated %q, %q: accepted %v, reference %v (%s)", o, team, ans, big.Accepted, want, big.Message)
			}
			if !CompareBytes(bt, bt, o).Accepted {
				t.Fatalf("%+v: repeated %q rejected against itself", o, team)
			}
		}
	})
}

// reference is the default output validator written plainly from the
// specification, on whole inputs.
func reference(team, ans []byte, o Options) bool {
	if o.Exact {
		return bytes.Equal(team, ans)
	}
	space := func(c byte) bool { return strings.IndexByte(" \t\n\v\f\r", c) >= 0 }
	var tt, at [][]byte
	if o.SpaceChangeSensitive {
		// Alternating runs of whitespace and tokens must match in kind and
		// whitespace runs byte for byte.
		tt, at = runs(team, space), runs(ans, space)
	} else {
		tt, at = fields(team, space), fields(ans, space)
	}
	if len(tt) != len(at) {
		return false
	}
	for i := range tt {
		x, y := tt[i], at[i]
		if space(y[0]) || space(x[0]) {
			if !bytes.Equal(x, y) {
				return false
			}
			continue
		}
		if !refToken(x, y, o) {
			return false
		}
	}
	return true
}

func refToken(team, ans []byte, o Options) bool {
	if bytes.Equal(team, ans) {
		return true
	}
	if o.HasFloat && (o.FloatAbs >= 0 || o.FloatRel >= 0) && len(ans) <= bufSize {
		if a, ok := ParseNumber(ans); ok {
			s, ok := ParseNumber(team)
			if !ok || len(team) > bufSize {
				return false
			}
			d := math.Abs(s - a)
			return d <= o.FloatAbs || d <= o.FloatRel*math.Abs(a)
		}
	}
	if o.CaseSensitive || len(team) != len(ans) {
		return false
	}
	for i := range team {
		x, y := team[i], ans[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func fields(b []byte, space func(byte) bool) [][]byte {
	var out [][]byte
	for _, r := range runs(b, space) {
		if !space(r[0]) {
			out = append(out, r)
		}
	}
	return out
}

func runs(b []byte, space func(byte) bool) [][]byte {
	var out [][]byte
	for i := 0; i < len(b); {
		j := i + 1
		for j < len(b) && space(b[j]) == space(b[i]) {
			j++
		}
		out = append(out, b[i:j])
		i = j
	}
	return out
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1", "-1.5e-3", ".5", "5.", "1e400", "0x10", "inf", "1_0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := ParseNumber(b)
		if numberSyntax(b) {
			// Where the grammar holds, the value is strconv's, to the bit.
			w, err := strconv.ParseFloat(string(b), 64)
			if (err == nil) != ok || ok && math.Float64bits(v) != math.Float64bits(w) {
				t.Fatalf("ParseNumber(%q) = %v, %v; strconv %v, %v", b, v, ok, w, err)
			}
		}
		if !ok {
			return
		}
		if math.IsInf(v, 0) || math.IsNaN(v) {
			t.Fatalf("ParseNumber(%q) = %v", b, v)
		}
		for _, c := range b {
			if !strings.ContainsRune("0123456789+-.eE", rune(c)) {
				t.Fatalf("ParseNumber(%q) accepted byte %q", b, c)
			}
		}
	})
}
