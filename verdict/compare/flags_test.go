package compare

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	good := []struct {
		flags []string
		want  Options
	}{
		{nil, Options{}},
		{[]string{}, Options{}},
		{[]string{"case_sensitive"}, Options{CaseSensitive: true}},
		{[]string{"space_change_sensitive", "case_sensitive"}, Options{CaseSensitive: true, SpaceChangeSensitive: true}},
		{[]string{"case_sensitive", "case_sensitive"}, Options{CaseSensitive: true}},
		{[]string{"float_tolerance", "1e-6"}, Options{HasFloat: true, FloatAbs: 1e-6, FloatRel: 1e-6}},
		{[]string{"float_tolerance 1e-6"}, Options{HasFloat: true, FloatAbs: 1e-6, FloatRel: 1e-6}},
		{[]string{" float_absolute_tolerance\t0.5 ", "case_sensitive"}, Options{CaseSensitive: true, HasFloat: true, FloatAbs: 0.5, FloatRel: -1}},
		{[]string{"float_relative_tolerance", ".001"}, Options{HasFloat: true, FloatAbs: -1, FloatRel: 0.001}},
		{[]string{"float_relative_tolerance", "1E-3", "float_absolute_tolerance", "2"}, Options{HasFloat: true, FloatAbs: 2, FloatRel: 0.001}},
		{[]string{"float_tolerance", "0"}, Options{HasFloat: true}},
		{[]string{"float_tolerance", "+0.5"}, Options{HasFloat: true, FloatAbs: 0.5, FloatRel: 0.5}},
	}
	for _, g := range good {
		got, err := ParseFlags(g.flags)
		if err != nil || got != g.want {
			t.Errorf("ParseFlags(%q) = %+v, %v; want %+v", g.flags, got, err, g.want)
		}
		// String renders flags that parse back to the same options.
		back, err := ParseFlags(strings.Fields(got.String()))
		if err != nil || back != got {
			t.Errorf("ParseFlags(%q).String() = %q parses to %+v, %v", g.flags, got.String(), back, err)
		}
	}
	bad := []struct {
		flags []string
		err   string
	}{
		{[]string{"bogus"}, `unknown validator flag "bogus"`},
		{[]string{"Case_Sensitive"}, "unknown validator flag"},
		{[]string{"exactly"}, "unknown validator flag"},
		{[]string{"float_tolerance"}, "float_tolerance needs a value"},
		{[]string{"case_sensitive", "float_absolute_tolerance"}, "needs a value"},
		{[]string{"float_tolerance", "x"}, `"x" is not a number`},
		{[]string{"float_tolerance", "1e-6x"}, "not a number"},
		{[]string{"float_tolerance", "nan"}, "not a number"},
		{[]string{"float_tolerance", "inf"}, "not a number"},
		{[]string{"float_tolerance", "1e999"}, "not a number"},
		{[]string{"float_tolerance", "0x1p-3"}, "not a number"},
		{[]string{"float_tolerance", "-1"}, "negative"},
		{[]string{"float_tolerance", "1", "float_tolerance", "1"}, "given twice"},
		{[]string{"float_absolute_tolerance", "1", "float_absolute_tolerance", "2"}, "given twice"},
		{[]string{"float_relative_tolerance", "1", "float_relative_tolerance", "2"}, "given twice"},
		{[]string{"float_tolerance", "1", "float_relative_tolerance", "2"}, "cannot be combined"},
		{[]string{"float_absolute_tolerance", "1", "float_tolerance", "2"}, "cannot be combined"},
		{[]string{"1e-6"}, "unknown validator flag"},
	}
	for _, b := range bad {
		got, err := ParseFlags(b.flags)
		if err == nil || !strings.Contains(err.Error(), b.err) {
			t.Errorf("ParseFlags(%q) = %+v, %v; want error containing %q", b.flags, got, err, b.err)
		}
	}
}

func TestOptionsFloats(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want bool
	}{
		{Options{}, false},
		{Options{FloatAbs: 1, FloatRel: 1}, false},
		{Options{HasFloat: true}, true},
		{Options{HasFloat: true, FloatAbs: -1, FloatRel: 0}, true},
		{Options{HasFloat: true, FloatAbs: -1, FloatRel: -1}, false},
		{Options{HasFloat: true, FloatAbs: math.NaN(), FloatRel: math.NaN()}, false},
	} {
		if got := c.o.floats(); got != c.want {
			t.Errorf("%+v.floats() = %v", c.o, got)
		}
	}
	// With both tolerances unset numbers are strings, as in problemtools.
	o := Options{HasFloat: true, FloatAbs: -1, FloatRel: -1}
	if got := CompareBytes([]byte("1.0"), []byte("1"), o); got.Accepted {
		t.Errorf("unset tolerances compared numerically")
	}
}

func TestParseNumber(t *testing.T) {
	good := map[string]float64{
		"0": 0, "1": 1, "-1": -1, "+1": 1, "1.": 1, ".5": 0.5, "-.5": -0.5, "1.5": 1.5,
		"1e5": 1e5, "1E+5": 1e5, "1.5e-3": 1.5e-3, "000": 0, "00.100": 0.1, "-0": 0,
		"1e-400": 0, "4.9e-324": 5e-324, "1.7976931348623157e308": math.MaxFloat64,
		"3.14000000e-2": 0.0314, "123456789012345678901234567890.123456789012345678901234567890": 123456789012345678901234567890.123456789012345678901234567890,
	}
	for s, want := range good {
		got, ok := ParseNumber([]byte(s))
		if !ok || got != want {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	bad := []string{"", ".", "+", "-", "+.", "e5", ".e5", "1e", "1e+", "1e-", "1.e", "0x10", "0x1p3", "inf", "-inf", "Inf",
		"infinity", "nan", "NaN", "1_0", "1_000.5", " 1", "1 ", "1.2.3", "--1", "+-1", "1e400", "-1e400", "1e5.5", "1ee5",
		"１", "1\x00", "1,5", "0b1", "1f", "1d"}
	for _, s := range bad {
		if got, ok := ParseNumber([]byte(s)); ok {
			t.Errorf("ParseNumber(%q) = %v, want not a number", s, got)
		}
	}
	// The fast path agrees with strconv to the bit, at its edges too.
	for _, s := range []string{"9007199254740992", "9007199254740993", "-9007199254740993", "1e22", "1e23", "1.5e22", "1e-22",
		"1e-23", "123456789012345678", "1234567890123456789", "12345678901234567890", "0.1", "0.3", "2.675", "1.0000000000000002",
		"0.000000000000000000000000000001", "100000000000000000000000", "00000000000000000000000000001.5", "1.00000000000000000000000",
		"4.35e-5", "-0.0", "123.456e-10", "5e-324", "1e1000000", "0e99999999999", "1e-99999999999"} {
		v, ok := ParseNumber([]byte(s))
		w, err := strconv.ParseFloat(s, 64)
		if ok != (err == nil) || ok && math.Float64bits(v) != math.Float64bits(w) {
			t.Errorf("ParseNumber(%q) = %v, %v; strconv %v, %v", s, v, ok, w, err)
		}
	}
	if n := testing.AllocsPerRun(100, func() { ParseNumber([]byte("12345.6789e-3")) }); n != 0 {
		t.Errorf("ParseNumber allocates %v", n)
	}
}

func TestExactFlag(t *testing.T) {
	opt, err := ParseFlags([]string{"exact"})
	if err != nil || !opt.Exact {
		t.Fatalf("exact: %+v %v", opt, err)
	}
	if o := CompareBytes([]byte("1 2\n"), []byte("1  2\n"), opt); o.Accepted {
		t.Error("exact comparison accepted different whitespace")
	}
	if o := CompareBytes([]byte("1 2\n"), []byte("1 2\n"), opt); !o.Accepted {
		t.Error("exact comparison rejected identical output")
	}
}
