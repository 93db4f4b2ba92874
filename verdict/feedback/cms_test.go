package feedback

import (
	"strings"
	"testing"
)

func TestParseCMS(t *testing.T) {
	for _, c := range []struct {
		stdout, stderr string
		want           CMS
		err            string
	}{
		{"1.0\n", "translate:success\n", CMS{Outcome: 1, Text: "Output is correct"}, ""},
		{"0.5", "translate:partial", CMS{Outcome: 0.5, Text: "Output is partially correct"}, ""},
		{" 0 \n", "translate:wrong\nADMIN_MESSAGE: line 3 differs\nADMIN_MESSAGE: twice\n", CMS{Text: "Output isn't correct", Admin: "line 3 differs twice"}, ""},
		{"1\n", "Well done\n", CMS{Outcome: 1, Text: "Well done"}, ""},
		{"0\n", "translate:bogus\n", CMS{Text: "translate:bogus"}, ""},
		{"", "x", CMS{}, "is not a number"},
		{"yes\n", "", CMS{}, "is not a number"},
		{"nan\n", "", CMS{}, "is not a number"},
		{"1.5\n", "", CMS{}, "outside [0, 1]"},
		{"-0.1\n", "", CMS{}, "outside [0, 1]"},
	} {
		got, err := ParseCMS([]byte(c.stdout), []byte(c.stderr))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want an error saying %q", c.stdout, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q %q: %+v %v, want %+v", c.stdout, c.stderr, got, err, c.want)
		}
	}
}

func FuzzParseCMS(f *testing.F) {
	f.Add([]byte("0.5\n"), []byte("translate:partial\nADMIN_MESSAGE: x\n"))
	f.Add([]byte("1e-300"), []byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, stdout, stderr []byte) {
		c, err := ParseCMS(stdout, stderr)
		if err != nil {
			return
		}
		if !(c.Outcome >= 0 && c.Outcome <= 1) || len(c.Text) > 4<<10 || len(c.Admin) > 4<<10 || !utf8Valid(c.Text) {
			t.Fatalf("%+v", c)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }

// A GroupThreshold task's comparator reports raw outcomes: any finite
// number, with its text as ParseCMS reads it; not a number is still an
// error.
func TestParseCMSRaw(t *testing.T) {
	for _, c := range []struct {
		stdout string
		want   float64
		err    bool
	}{{"1.5\n", 1.5, false}, {"-0.1\n", -0.1, false}, {"1e12", 1e12, false}, {"0.25\n2\n", 0.25, false},
		{"inf\n", 0, true}, {"nan\n", 0, true}, {"", 0, true}} {
		got, err := ParseCMSRaw([]byte(c.stdout), []byte("close enough\n"))
		if c.err {
			if err == nil {
				t.Errorf("%q: %+v, want an error", c.stdout, got)
			}
			continue
		}
		if err != nil || got.Outcome != c.want || got.Text != "close enough" {
			t.Errorf("%q: %+v %v, want outcome %g", c.stdout, got, err, c.want)
		}
	}
}
