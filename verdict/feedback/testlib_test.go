package feedback

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func pts(v float64) *float64 { return &v }

func TestParseTestlib(t *testing.T) {
	cases := []struct {
		name   string
		code   int
		out    string
		v      TestlibVerdict
		points *float64
		msg    string
		err    string // substring; "" for none
	}{
		{"ok", 0, "ok 5 tokens\n", OK, nil, "5 tokens", ""},
		{"ok bare", 0, "ok\n", OK, nil, "", ""},
		{"ok silent", 0, "", OK, nil, "", ""},
		{"wa", 1, "wrong answer expected 5, found 6\n", WA, nil, "expected 5, found 6", ""},
		{"pe", 2, "wrong output format Expected integer, but \"x\" found\n", PE, nil, "Expected integer, but \"x\" found", ""},
		{"dirt as pe (current testlib)", 2, "wrong output format Extra information in the output file\n", PE, nil, "Extra information in the output file", ""},
		{"fail", 3, "FAIL Answer file is wrong: expected 3 tokens\n", Fail, nil, "Answer file is wrong: expected 3 tokens", ""},
		{"fail bare", 3, "FAIL", Fail, nil, "", ""},
		{"dirt (older testlib)", 4, "wrong output format Extra information in the output file\n", Dirt, nil, "Extra information in the output file", ""},
		{"points", 7, "points 12.50 good job\n", Points, pts(12.5), "good job", ""},
		{"points int", 7, "points 3\n", Points, pts(3), "", ""},
		{"points result file", 7, "12.5 partial\n", Points, pts(12.5), "partial", ""},
		{"points as partially correct", 7, "partially correct (40) well\n", Points, pts(40), "well", ""},
		{"points_info", 7, "points points_info=a,b done\n", Points, nil, "points_info=a,b done", "without a number of points"},
		{"points nothing", 7, "", Points, nil, "", "without a number of points"},
		{"unexpected eof", 8, "unexpected eof Unexpected end of file - int32 expected\n", UnexpectedEOF, nil, "Unexpected end of file - int32 expected", ""},
		{"pc base 0", 1, "partially correct (1) half right\n", PartiallyCorrect, pts(1), "half right", ""},
		{"pc 0", 0, "partially correct (0) \n", PartiallyCorrect, pts(0), "", ""},
		{"pc base 0, code 5", 5, "partially correct (5) x\n", PartiallyCorrect, pts(5), "x", ""},
		{"pc base 16", 17, "partially correct (1) x\n", PartiallyCorrect, pts(1), "x", ""},
		{"pc base 50 (TESTSYS)", 60, "partially correct (10) x\n", PartiallyCorrect, pts(10), "x", ""},
		{"pc mod 256", 44, "partially correct (300) x\n", PartiallyCorrect, pts(300), "x", ""},
		{"pc disagrees with exit code", 1, "partially correct (5) x\n", WA, nil, "partially correct (5) x", ""},
		{"pc without the prefix", 17, "x\n", Fail, nil, "x", "unknown exit code 17"},
		{"unknown exit code", 42, "whatever\n", Fail, nil, "whatever", "unknown exit code 42"},
		{"killed", -1, "", Fail, nil, "", "unknown exit code -1"},
		{"prefix disagrees", 1, "ok looks fine\n", WA, nil, "ok looks fine", ""},
		{"not a prefix", 0, "okay\n", OK, nil, "okay", ""},
		{"result file wa", 1, "expected 5, found 6", WA, nil, "expected 5, found 6", ""},
		{"debug lines first", 1, "debug: n=5\nread 3 numbers\nwrong answer 3rd differs\n", WA, nil, "3rd differs", ""},
		{"multi-line message", 1, "wrong answer line one\nline two\n", WA, nil, "line one\nline two", ""},
		{"colours", 1, "\x1b[1;31mwrong answer \x1b[0m1st lines differ\x1b[0m\n", WA, nil, "1st lines differ", ""},
		{"result file trailer", 0, "ok fine\nSee file to check exit message\n", OK, nil, "fine", ""},
		{"crlf", 1, "wrong answer a\r\nb\r\n", WA, nil, "a\nb", ""},
		{"invalid utf-8", 1, "wrong answer \xff\xfe!", WA, nil, "\uFFFD!", ""},
		{"tab", 0, "ok\tfine", OK, nil, "fine", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseTestlib(c.code, []byte(c.out))
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("error %v, want %q", err, c.err)
			}
			if got.Verdict != c.v {
				t.Errorf("verdict %v, want %v", got.Verdict, c.v)
			}
			if (got.Points == nil) != (c.points == nil) || got.Points != nil && *got.Points != *c.points {
				t.Errorf("points %v, want %v", fmtPts(got.Points), fmtPts(c.points))
			}
			if got.Message != c.msg {
				t.Errorf("message %q, want %q", got.Message, c.msg)
			}
		})
	}
}

func fmtPts(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestParseTestlibLong(t *testing.T) {
	got, err := ParseTestlib(1, []byte("wrong answer "+strings.Repeat("é", 10000)))
	if err != nil || got.Verdict != WA {
		t.Fatal(got, err)
	}
	if len(got.Message) > MaxTestlibMessage || !utf8.ValidString(got.Message) || !strings.HasSuffix(got.Message, "…[truncated]") {
		t.Errorf("message of %d bytes, valid %v", len(got.Message), utf8.ValidString(got.Message))
	}
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[TestlibVerdict]string{OK: "ok", WA: "wrong answer", PE: "wrong output format", Fail: "fail",
		Dirt: "dirt", Points: "points", UnexpectedEOF: "unexpected eof", PartiallyCorrect: "partially correct", 99: "TestlibVerdict(99)", -1: "TestlibVerdict(-1)"} {
		if v.String() != want {
			t.Errorf("%d: %q", int(v), v.String())
		}
	}
	for v, want := range map[TestlibVerdict]TestlibVerdict{Dirt: PE, UnexpectedEOF: PE, PE: PE, OK: OK, WA: WA, Points: Points} {
		if v.Canonical() != want {
			t.Errorf("%v.Canonical() = %v", v, v.Canonical())
		}
	}
}

func FuzzParseTestlib(f *testing.F) {
	for _, s := range []struct {
		code int
		out  string
	}{
		{0, "ok 5 tokens\n"}, {1, "wrong answer x"}, {2, "wrong output format"}, {3, "FAIL x"}, {4, ""},
		{7, "points 12.5 ok"}, {7, "partially correct (3) x"}, {8, "unexpected eof x"}, {17, "partially correct (1) x"},
		{1, "debug\nwrong answer x\nSee file to check exit message"}, {1, "\x1b[1;31mwrong answer\x1b[0m x"}, {255, "\xff"},
	} {
		f.Add(s.code, []byte(s.out))
	}
	f.Fuzz(func(t *testing.T, code int, out []byte) {
		got, err := ParseTestlib(code, out)
		if got.Verdict < OK || got.Verdict > PartiallyCorrect {
			t.Fatalf("verdict %d", got.Verdict)
		}
		if len(got.Message) > MaxTestlibMessage || !utf8.ValidString(got.Message) {
			t.Fatalf("message: %d bytes, valid %v", len(got.Message), utf8.ValidString(got.Message))
		}
		switch got.Verdict {
		case PartiallyCorrect:
			if got.Points == nil || *got.Points < 0 || *got.Points != math.Trunc(*got.Points) || err != nil {
				t.Fatalf("partially correct: %v, %v", fmtPts(got.Points), err)
			}
		case Points:
			if code != 7 || (got.Points == nil) != (err != nil) || got.Points != nil && (math.IsInf(*got.Points, 0) || math.IsNaN(*got.Points)) {
				t.Fatalf("points: %v, %v (exit %d)", fmtPts(got.Points), err, code)
			}
		default:
			if got.Points != nil {
				t.Fatalf("%v with points %v", got.Verdict, *got.Points)
			}
			if _, known := exitVerdicts[code]; known != (err == nil) {
				t.Fatalf("exit %d: error %v", code, err)
			}
			if want := exitVerdicts[code]; err == nil && got.Verdict != want {
				t.Fatalf("exit %d: verdict %v", code, got.Verdict)
			}
		}
	})
}
