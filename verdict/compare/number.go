package compare

import (
	"math"
	"strconv"
	"unsafe"
)

// ParseNumber parses b as a floating-point number of the problem package
// format (2025-09, "General requirements"):
//
//	sign         [+-]
//	digit        [0123456789]
//	significand  ( {digit}* "." {digit}+ | {digit}+ "." | {digit}+ )
//	exponent     [Ee] {sign}? {digit}+
//	float        {sign}? {significand} {exponent}?
//
// to the nearest float64. The whole of b must match; no whitespace. A value
// that overflows float64 is not a number (ok is false); one that underflows
// is 0 or subnormal. It does not allocate.
func ParseNumber(b []byte) (v float64, ok bool) {
	if !numberSyntax(b) {
		return 0, false
	}
	if v, ok := fastNumber(b); ok {
		return v, true
	}
	// The grammar is a subset of what strconv accepts, so the only error left
	// is ErrRange: overflow gives ±Inf (rejected below), underflow gives 0
	// with a nil error. unsafe.String avoids a copy; the error, which would
	// hold the string, is dropped here.
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

func numberSyntax(b []byte) bool {
	i, n := 0, len(b)
	if i < n && (b[i] == '+' || b[i] == '-') {
		i++
	}
	intDigits := 0
	for i < n && isDigit(b[i]) {
		i++
		intDigits++
	}
	fracDigits := 0
	if i < n && b[i] == '.' {
		i++
		for i < n && isDigit(b[i]) {
			i++
			fracDigits++
		}
	}
	if intDigits == 0 && fracDigits == 0 {
		return false
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		expDigits := 0
		for i < n && isDigit(b[i]) {
			i++
			expDigits++
		}
		if expDigits == 0 {
			return false
		}
	}
	return i == n
}

func isDigit(c byte) bool { return c-'0' < 10 }

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// pow10 holds the powers of ten that are exact in float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastNumber converts a syntactically valid number whose significant digits
// fit in 2^53 and whose decimal exponent is at most 22 in magnitude: then
// mantissa and power of ten are exact float64 values and one IEEE multiply
// or divide rounds correctly (Clinger's fast path, as strconv does, without
// its generality). ok is false when the number is outside that range.
func fastNumber(b []byte) (v float64, ok bool) {
	i := 0
	neg := b[0] == '-'
	if b[0] == '+' || b[0] == '-' {
		i++
	}
	var m uint64
	nd, e := 0, 0
	for ; i < len(b) && isDigit(b[i]); i++ {
		if m == 0 && b[i] == '0' {
			continue
		}
		if nd == 19 {
			return 0, false
		}
		m = m*10 + uint64(b[i]-'0')
		nd++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && isDigit(b[i]); i++ {
			e--
			if m == 0 && b[i] == '0' {
				continue
			}
			if nd == 19 {
				return 0, false
			}
			m = m*10 + uint64(b[i]-'0')
			nd++
		}
	}
	if i < len(b) { // exponent
		i++
		eneg := b[i] == '-'
		if b[i] == '+' || b[i] == '-' {
			i++
		}
		x := 0
		for ; i < len(b); i++ {
			if x > 1000 {
				return 0, false
			}
			x = x*10 + int(b[i]-'0')
		}
		if eneg {
			x = -x
		}
		e += x
	}
	switch {
	case m == 0:
		v = 0
	case m > 1<<53:
		return 0, false
	case e == 0:
		v = float64(m)
	case 0 < e && e <= 22:
		v = float64(m) * pow10[e]
	case -22 <= e && e < 0:
		v = float64(m) / pow10[-e]
	default:
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}
