package overshoot

import (
	"errors"
	"testing"
	"time"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		text string
		tl   time.Duration
		want time.Duration
	}{
		{"1s|10%", 5 * time.Second, time.Second},         // DOMjudge's default: 1 s beats 0.5 s
		{"1s|10%", 20 * time.Second, 2 * time.Second},    // 10% beats 1 s
		{"1s|10%", 500 * time.Millisecond, time.Second},  // a short limit still gets 1 s
		{"1s&10%", 20 * time.Second, time.Second},        // the smaller
		{"2s+50%", 4 * time.Second, 4 * time.Second},     // the sum
		{"3s", 10 * time.Second, 3 * time.Second},        // absolute
		{"25%", 2 * time.Second, 500 * time.Millisecond}, // relative
		{" 0s ", time.Second, 0},                         // no margin at all
		{"1s | 10%", 30 * time.Second, 3 * time.Second},  // spaces around the operator
	} {
		o, err := Parse(tc.text)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.text, err)
			continue
		}
		if got := o.Of(tc.tl); got != tc.want {
			t.Errorf("%q of %v = %v, want %v", tc.text, tc.tl, got, tc.want)
		}
		if got := o.Wall(tc.tl); got != tc.tl+tc.want {
			t.Errorf("%q: wall of %v = %v, want %v", tc.text, tc.tl, got, tc.tl+tc.want)
		}
	}
}

// The zero value is "not set" and acts as the default.
func TestZeroIsDefault(t *testing.T) {
	var o Overshoot
	if !o.IsZero() || o.Or(Default).String() != DefaultText {
		t.Fatalf("zero value: IsZero %v, Or(Default) %q", o.IsZero(), o.Or(Default).String())
	}
	if got := o.Wall(5 * time.Second); got != 6*time.Second {
		t.Errorf("zero value: wall of 5s = %v, want 6s (tl + max(1s, 10%%))", got)
	}
	set := MustParse("3s")
	if set.Or(Default).String() != "3s" {
		t.Errorf("a set overshoot gave way to the default")
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{
		"", "1", "s", "%", "10", "1m", "1.5s", "-1s", "+1s", "1s|", "|10%",
		"1s|2s|3s", "1s*2s", "1 s", "0x10s", "3601s", "1001%", "99999999999999999999s",
	} {
		_, err := Parse(s)
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, want an error wrapping ErrSyntax", s, err)
		}
	}
}

// envconfig reads DOCKET_WALL_OVERSHOOT through Decode.
func TestDecode(t *testing.T) {
	var o Overshoot
	if err := o.Decode("2s+5%"); err != nil || o.String() != "2s+5%" {
		t.Fatalf("Decode: %v, %q", err, o.String())
	}
	if err := o.Decode("soon"); !errors.Is(err, ErrSyntax) || o.String() != "2s+5%" {
		t.Errorf("Decode(soon): %v, left %q; want ErrSyntax and the old value", err, o.String())
	}
	if err := o.Decode(" "); err != nil || !o.IsZero() {
		t.Errorf("Decode of a blank value: %v, %q; want it unset (the default applies)", err, o.String())
	}
}
