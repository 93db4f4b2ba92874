package verdict

import (
	"strings"
	"testing"
)

// The excerpt keeps the first and the last half of what was written, in
// whatever pieces it came, and says where it cut.
func TestStderrExcerpt(t *testing.T) {
	long := "Traceback (most recent call last):\n" + strings.Repeat("  File \"/box/main.py\", line 3, in f\n", 40) + "RecursionError: maximum recursion depth exceeded\n"
	for _, tc := range []struct {
		name   string
		pieces []string
		want   func(string) bool
	}{
		{"short, whole", []string{"Exception in thread \"main\" java.lang.", "ArithmeticException: / by zero\n"},
			func(s string) bool {
				return s == "Exception in thread \"main\" java.lang.ArithmeticException: / by zero\n"
			}},
		{"long, one write", []string{long}, func(s string) bool {
			return strings.HasPrefix(s, "Traceback") && strings.HasSuffix(s, "RecursionError: maximum recursion depth exceeded\n") &&
				strings.Contains(s, stderrElision) && len(s) == StderrExcerptBytes+len(stderrElision)
		}},
		{"long, byte by byte", strings.Split(long, ""), func(s string) bool {
			return strings.HasPrefix(s, "Traceback") && strings.HasSuffix(s, "exceeded\n") && len(s) == StderrExcerptBytes+len(stderrElision)
		}},
		{"exactly the bound", []string{strings.Repeat("x", StderrExcerptBytes)}, func(s string) bool { return s == strings.Repeat("x", StderrExcerptBytes) }},
		{"not UTF-8", []string{"bad \xff byte"}, func(s string) bool { return s == "bad \uFFFD byte" }},
	} {
		var h stderrHead
		for _, p := range tc.pieces {
			if n, err := h.Write([]byte(p)); n != len(p) || err != nil {
				t.Fatalf("%s: Write = %d, %v", tc.name, n, err)
			}
		}
		if got := h.String(); !tc.want(got) {
			t.Errorf("%s: excerpt %q", tc.name, got)
		}
	}
	var h stderrHead
	h.Write([]byte("noise"))
	if withStderr(TestResult{Verdict: AC}, &h).StderrExcerpt != "" || withStderr(TestResult{Verdict: RE}, &h).StderrExcerpt != "noise" {
		t.Error("the excerpt belongs to failed runs only")
	}
}
