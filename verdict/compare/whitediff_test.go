package compare

import "testing"

// CMS's white-diff, case by case as cms/grading/steps/whitediff.py
// decides them.
func TestWhiteDiff(t *testing.T) {
	opt := Options{WhiteDiff: true}
	for _, c := range []struct {
		team, ans string
		ok        bool
		msg       string
	}{
		{"1 2\n3\n", "1 2\n3\n", true, ""},
		{"  1\t\t2  \r\n3", "1 2\n3\n", true, ""},
		{"1 2\n3\n\n \n", "1 2\n3\n", true, ""},
		{"1 2\n3\n", "1 2\n3\n\n\n", true, ""},
		{"", "", true, ""},
		{"1\n2\n", "1 2\n", false, "Expected `1 2`, found `1` on line 1"},
		{"1 2\n", "1\n2\n", false, "Expected `1`, found `1 2` on line 1"},
		{"1\n2\n", "1\n", false, "Contestant output too long"},
		{"1\n", "1\n2\n", false, "Contestant output too short"},
		{"", "5\n", false, "Contestant output too short"},
		{"A\n", "a\n", false, "Expected `a`, found `A` on line 1"},
		{"1.0\n", "1\n", false, "Expected `1`, found `1.0` on line 1"},
		{"\u00a0x\n", "x\n", false, "Expected `x`, found `\u00a0x` on line 1"},
	} {
		o := CompareBytes([]byte(c.team), []byte(c.ans), opt)
		if o.Accepted != c.ok || o.Message != c.msg {
			t.Errorf("team %q answer %q: %+v, want %v %q", c.team, c.ans, o, c.ok, c.msg)
		}
	}
	if o, err := ParseFlags([]string{"white_diff"}); err != nil || !o.WhiteDiff {
		t.Errorf("ParseFlags(white_diff): %+v %v", o, err)
	}
}
