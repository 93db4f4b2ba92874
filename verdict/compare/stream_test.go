package compare

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// repeatReader yields pattern repeated to n bytes, then suffix.
type repeatReader struct {
	pattern string
	n, off  int64
	suffix  string
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		if r.suffix == "" {
			return 0, io.EOF
		}
		k := copy(p, r.suffix)
		r.suffix = r.suffix[k:]
		return k, nil
	}
	k := 0
	for k < len(p) && r.off < r.n {
		i := int(r.off % int64(len(r.pattern)))
		c := copy(p[k:], r.pattern[i:])
		if rem := r.n - r.off; int64(c) > rem {
			c = int(rem)
		}
		k += c
		r.off += int64(c)
	}
	return k, nil
}

// A 150 MB output compares in bounded memory, on every path.
func TestHugeOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("150 MB")
	}
	const lines = 150 << 20 / 23
	const size = lines * 23
	ans := "123456789 -42 7.5 word\n"     // 23 bytes
	team := "123456789\t-42\t7.50\tWORD " // same tokens, other whitespace and a different number
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, c := range []struct {
		name      string
		team, ans io.Reader
		opt       Options
		ok        bool
		msg       string
	}{
		{"identical", &repeatReader{pattern: ans, n: size}, &repeatReader{pattern: ans, n: size}, Options{}, true, ""},
		{"tokens", &repeatReader{pattern: team, n: lines * 24}, &repeatReader{pattern: ans, n: size}, Options{HasFloat: true, FloatAbs: 1e-9, FloatRel: -1}, true, ""},
		{"extra at the end", &repeatReader{pattern: ans, n: size, suffix: "x"}, &repeatReader{pattern: ans, n: size}, Options{}, false,
			"line 6838540: team output has extra data after the answer: x"},
		{"ended early", &repeatReader{pattern: ans, n: size - 23}, &repeatReader{pattern: ans, n: size}, Options{}, false,
			"team output ended early: expected 4 more tokens, the next is 123456789 (answer line 6838539)"},
	} {
		got, err := Compare(c.team, c.ans, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if got.Accepted != c.ok || !strings.Contains(got.Message, c.msg) {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 4<<20 {
		t.Errorf("allocated %d bytes for 4 × 150 MB", grown)
	}
}
