package compare

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

type ccase struct {
	name       string
	flags      string // validator flags, or "exact"
	team, ans  string
	ok         bool
	msg        string // substring of the message
	msgExactly bool   // msg is the whole message
}

func opts(t testing.TB, flags string) Options {
	t.Helper()
	if flags == "exact" {
		return Options{Exact: true}
	}
	o, err := ParseFlags(strings.Fields(flags))
	if err != nil {
		t.Fatalf("ParseFlags(%q): %v", flags, err)
	}
	return o
}

var cases = []ccase{
	// Tokens, whitespace, case (spec "Output parsing", "Comparing string tokens").
	{name: "simple ac", team: "hello world\n", ans: "hello world\n", ok: true},
	{name: "simple wa", team: "hello there\n", ans: "hello world\n", msg: "line 1: expected world, got there", msgExactly: true},
	{name: "any whitespace", team: " A  B \t\n", ans: "A B", ok: true},
	{name: "newline for space", team: "A\nB\n", ans: "A B\n", ok: true},
	{name: "cr lf", team: "A\r\nB\r\n", ans: "A\nB\n", ok: true},
	{name: "vt ff", team: "A\vB\fC", ans: "A B C", ok: true},
	{name: "nul is not space", team: "A\x00", ans: "A", msg: `expected A, got "A\x00"`},
	{name: "nul inside token", team: "a\x00c", ans: "a\x00b", msg: `expected "a\x00b", got "a\x00c"`},
	{name: "case ignored", team: "HeLLo", ans: "hello", ok: true},
	{name: "case sensitive ac", flags: "case_sensitive", team: "Hello", ans: "Hello", ok: true},
	{name: "case sensitive wa", flags: "case_sensitive", team: "hello", ans: "Hello", msg: "line 1: expected Hello, got hello", msgExactly: true},
	{name: "ascii fold only", team: "É", ans: "é", msg: `expected "é", got "É"`},
	{name: "fold is not unicode fold", team: "\u212a", ans: "k", msg: "expected k"},
	{name: "fold length", team: "abcd", ans: "ABC", msg: "expected ABC, got abcd"},

	// Missing and extra tokens.
	{name: "extra token", team: "A B X", ans: "A B", msg: "line 1: team output has extra data after the answer: X", msgExactly: true},
	{name: "extra token later line", team: "A B\n\n\n\n \n\n X", ans: "A B\n", msg: "line 7 (answer line 2): team output has extra data after the answer: X", msgExactly: true},
	{name: "extra before", team: "X A B", ans: "A B", msg: "expected A, got X"},
	{name: "ended early", team: "Hello \n", ans: "Hello World!\n", msg: "team output ended early: expected 1 more token, the next is World! (answer line 1)", msgExactly: true},
	{name: "ended early many", team: "1\n2\n", ans: "1\n2\n3\n4 5\n6\n", msg: "team output ended early: expected 4 more tokens, the next is 3 (answer line 3)", msgExactly: true},
	{name: "empty", team: "", ans: "Hello World!\n", msg: "team output is empty: expected 2 tokens, the next is Hello (answer line 1)", msgExactly: true},
	{name: "only whitespace", team: " \n    \n\n", ans: "Hello World!\n", msg: "team output has only whitespace: expected 2 tokens"},
	{name: "both empty", team: "", ans: "", ok: true},
	{name: "whitespace for empty", team: " \t\n\t\n \t", ans: "", ok: true},
	{name: "token for empty", team: "0", ans: "", msg: "extra data after the answer: 0"},
	{name: "empty answer, empty team, space sensitive", flags: "space_change_sensitive", team: "", ans: "", ok: true},

	// Line numbers.
	{name: "line 3", team: "1\n2\n41\n", ans: "1\n2\n42\n", msg: "line 3: expected 42, got 41", msgExactly: true},
	{name: "answer line differs", team: "1 2\n3\n", ans: "1\n2\n4\n", msg: "line 2 (answer line 3): expected 4, got 3", msgExactly: true},

	// Whitespace sensitivity (spec "Whitespace sensitivity"; problemtools test_space_sensitive_*).
	{name: "space sensitive ac", flags: "space_change_sensitive", team: "hello\n world\n", ans: "hello\n world\n", ok: true},
	{name: "space sensitive missing space", flags: "space_change_sensitive", team: "hello\nworld\n", ans: "hello\n world\n", msg: "line 2: whitespace differs: expected space, got world", msgExactly: true},
	{name: "space sensitive extra space", flags: "space_change_sensitive", team: "hello\n world\n", ans: "hello\nworld\n", msg: "line 2: whitespace differs: expected world, got space", msgExactly: true},
	{name: "space sensitive two spaces", flags: "space_change_sensitive", team: "a  b", ans: "a b", msg: "line 1: whitespace differs: expected b, got space"},
	{name: "space sensitive tab", flags: "space_change_sensitive", team: "a\tb", ans: "a b", msg: "expected space, got tab"},
	{name: "space sensitive crlf", flags: "space_change_sensitive", team: "a\r\n", ans: "a\n", msg: "expected newline, got carriage return"},
	{name: "space sensitive no final newline", flags: "space_change_sensitive", team: "a", ans: "a\n", msg: "line 1: whitespace differs: expected newline, got end of output", msgExactly: true},
	{name: "space sensitive extra final newline", flags: "space_change_sensitive", team: "a\n\n", ans: "a\n", msg: "line 2: whitespace differs: expected end of output, got newline", msgExactly: true},
	{name: "space sensitive leading space", flags: "space_change_sensitive", team: " a", ans: "a", msg: "expected a, got space"},
	{name: "space sensitive only whitespace vs empty", flags: "space_change_sensitive", team: " ", ans: "", msg: "expected end of output, got space"},
	{name: "space sensitive still folds case", flags: "space_change_sensitive", team: "A b\n", ans: "a B\n", ok: true},
	{name: "space sensitive tokens", flags: "space_change_sensitive", team: "a c\n", ans: "a b\n", msg: "expected b, got c"},
	{name: "space sensitive ended early", flags: "space_change_sensitive", team: "a", ans: "ab", msg: "expected ab, got a"},

	// Numbers (spec "Comparing floating-point tokens"; problemtools test_float_*).
	{name: "abs tol ac", flags: "float_absolute_tolerance 0.5", team: "1.4\n", ans: "1\n", ok: true},
	{name: "abs tol wa", flags: "float_absolute_tolerance 0.1", team: "1.4\n", ans: "1\n", msg: "line 1: expected 1, got 1.4: absolute error 0.4 > 0.1", msgExactly: true},
	{name: "rel tol ac", flags: "float_relative_tolerance 0.1", team: "105\n", ans: "100\n", ok: true},
	{name: "rel tol wa", flags: "float_relative_tolerance 0.01", team: "105\n", ans: "100\n", msg: "line 1: expected 100, got 105: relative error 0.05 > 0.01", msgExactly: true},
	{name: "rel tol zero answer", flags: "float_relative_tolerance 0.01", team: "1\n", ans: "0\n", msg: "relative error undefined (answer is 0)"},
	{name: "rel tol zero answer exact", flags: "float_relative_tolerance 0.01", team: "0.000\n", ans: "0\n", ok: true},
	{name: "tolerance ac", flags: "float_tolerance 0.5", team: "1.1\n", ans: "1\n", ok: true},
	{name: "tolerance boundary", flags: "float_tolerance 0.5", team: "1.5\n", ans: "1\n", ok: true},
	{name: "tolerance wa", flags: "float_tolerance 0.5", team: "1.50001\n", ans: "1\n", msg: "absolute error 0.5 > 0.5, relative error 0.5 > 0.5"},
	{name: "either tolerance: abs", flags: "float_absolute_tolerance 1 float_relative_tolerance 0", team: "100.9", ans: "100", ok: true},
	{name: "either tolerance: rel", flags: "float_absolute_tolerance 0 float_relative_tolerance 0.01", team: "100.9", ans: "100", ok: true},
	{name: "both tolerances fail", flags: "float_absolute_tolerance 0.5 float_relative_tolerance 0.001", team: "101", ans: "100", msg: "absolute error 1 > 0.5, relative error 0.01 > 0.001"},
	{name: "zero tolerance value equality", flags: "float_tolerance 0", team: "1.00 2.5e0", ans: "1 2.5", ok: true},
	{name: "spec example", flags: "float_relative_tolerance 1e-9", team: "3.14000000e-2", ans: "0.0314", ok: true},
	{name: "integers are numbers", flags: "float_tolerance 1e-6", team: "1.0000001", ans: "1", ok: true},
	{name: "no tolerance: strings", team: "1.0", ans: "1", msg: "expected 1, got 1.0"},
	{name: "not a number", flags: "float_tolerance 1e-6", team: "abc", ans: "1", msg: "line 1: expected a number close to 1, got abc", msgExactly: true},
	{name: "team overflow is not a number", flags: "float_tolerance 1e-6", team: "1e400", ans: "1e300", msg: "expected a number close to 1e300, got 1e400"},
	{name: "team inf is not a number", flags: "float_tolerance 1e-6", team: "inf", ans: "1", msg: "expected a number"},
	{name: "answer inf is a string", flags: "float_tolerance 0.5", team: "0\n", ans: "inf\n", msg: "line 1: expected inf, got 0", msgExactly: true},
	{name: "answer inf string folds", flags: "float_tolerance 0.5", team: "INF", ans: "inf", ok: true},
	{name: "answer word with tolerance", flags: "float_tolerance 1e-6", team: "PI is 3.1400001", ans: "pi IS 3.14", ok: true},
	{name: "combined flags ac", flags: "case_sensitive space_change_sensitive float_tolerance 0.5", team: "PI is 3.14", ans: "PI is 3.14", ok: true},
	{name: "combined flags wa", flags: "case_sensitive space_change_sensitive float_tolerance 0.5", team: "PI is 2.0", ans: "PI is 1.0", msg: "line 1: expected 1.0, got 2.0: absolute error 1 > 0.5, relative error 1 > 0.5", msgExactly: true},
	{name: "hex answer is a string", flags: "float_tolerance 0.5", team: "16", ans: "0x10", msg: "expected 0x10, got 16"},
	{name: "hex team is not a number", flags: "float_tolerance 0.5", team: "0x10", ans: "16", msg: "expected a number close to 16, got 0x10"},
	{name: "underflow is zero", flags: "float_absolute_tolerance 1e-9", team: "1e-400", ans: "0", ok: true},
	{name: "huge difference", flags: "float_tolerance 1e-6", team: "-1e308", ans: "1e308", msg: "absolute error +Inf"},
	{name: "signs and forms", flags: "float_tolerance 1e-9", team: "+1. -.5 5E-1 1e+0", ans: "1 -0.5 .5 1.", ok: true},
	{name: "negative zero", flags: "float_tolerance 0", team: "-0", ans: "0.0", ok: true},

	// Exact.
	{name: "exact ac", flags: "exact", team: "a b\n", ans: "a b\n", ok: true},
	{name: "exact missing newline", flags: "exact", team: "a b", ans: "a b\n", msg: `line 1: team output ended early after 3 bytes, expected "\n"`, msgExactly: true},
	{name: "exact extra newline", flags: "exact", team: "a\n\n", ans: "a\n", msg: `line 2: team output has extra data after the answer's 2 bytes: "\n"`, msgExactly: true},
	{name: "exact space", flags: "exact", team: "x\na  b\n", ans: "x\na b\n", msg: `line 2: byte 5 differs: expected "b\n", got " b\n"`, msgExactly: true},
	{name: "exact case", flags: "exact", team: "A", ans: "a", msg: "byte 1 differs"},
	{name: "exact empty", flags: "exact", team: "", ans: "", ok: true},
	{name: "exact ignores tolerance", flags: "exact", team: "1.0", ans: "1", msg: `extra data after the answer's 1 bytes: ".0"`},

	// Long tokens in messages.
	{name: "long token window", team: strings.Repeat("a", 500) + "X" + strings.Repeat("a", 500), ans: strings.Repeat("a", 1001),
		msg: "line 1: expected ...aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..., got ...aaaaaaaaaaXaaaaaaaaaaaaaaaaaaa...", msgExactly: true},
	{name: "long token early diff", team: "aaaaAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", ans: "aaaaaAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", flags: "case_sensitive",
		msg: "line 1: expected aaaaaAaaaaaaaaaaaaaaaaaaaaaaaa..., got aaaaAaaaaaaaaaaaaaaaaaaaaaaaaa...", msgExactly: true},
	{name: "long extra", team: "x " + strings.Repeat("y", 100), ans: "x", msg: "extra data after the answer: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy..."},
	{name: "utf8 not cut", team: strings.Repeat("€", 40), ans: "x", msg: `expected x, got "` + strings.Repeat("€", 10) + `"...`},
}

func TestCompare(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := opts(t, tc.flags)
			for _, rd := range readers {
				got, err := Compare(rd.wrap(strings.NewReader(tc.team)), rd.wrap(strings.NewReader(tc.ans)), o)
				if err != nil {
					t.Fatalf("%s: %v", rd.name, err)
				}
				checkOutcome(t, rd.name, tc, got)
			}
		})
	}
}

func checkOutcome(t *testing.T, how string, tc ccase, got Outcome) {
	t.Helper()
	if got.Accepted != tc.ok {
		t.Fatalf("%s: accepted = %v, want %v (message %q)", how, got.Accepted, tc.ok, got.Message)
	}
	if tc.ok {
		if got.Message != "" {
			t.Errorf("%s: accepted with message %q", how, got.Message)
		}
		return
	}
	if tc.msgExactly && got.Message != tc.msg || !strings.Contains(got.Message, tc.msg) {
		t.Errorf("%s: message\n  %q\nwant\n  %q", how, got.Message, tc.msg)
	}
	if strings.ContainsAny(got.Message, "\n\r") {
		t.Errorf("%s: message has a line break: %q", how, got.Message)
	}
}

var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"whole", func(r io.Reader) io.Reader { return r }},
	{"one byte", iotest.OneByteReader},
	{"half", iotest.HalfReader},
	{"data+EOF", iotest.DataErrReader},
}

// Tokens longer than the buffer take the streaming path.
func TestLongTokens(t *testing.T) {
	big := strings.Repeat("a", 3*bufSize+17)
	bigDiff := big[:2*bufSize+5] + "b" + big[2*bufSize+6:]
	cases := []ccase{
		{name: "long equal", team: "x " + big + " y\n", ans: "x\n" + big + "\ny", ok: true},
		{name: "long fold", team: strings.ToUpper(big), ans: big, ok: true},
		{name: "long case sensitive", flags: "case_sensitive", team: strings.ToUpper(big), ans: big, msg: "long tokens differ at byte 1: expected aaaaaaaaaa"},
		{name: "long differ", team: bigDiff, ans: big, msg: "line 1: long tokens differ at byte 131078: expected ...aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..., got ...aaaaabaaaaaaaaaaaaaaaaaaaaaaaa..."},
		{name: "long team longer", team: big + "a", ans: big, msg: "long tokens differ at byte 196626: expected the end of the token, got ...a"},
		{name: "long answer longer", team: big, ans: big + "a z", msg: "long tokens differ at byte 196626: expected ...a, got the end of the token"},
		{name: "long vs short", team: "aaa", ans: big, msg: "long tokens differ at byte 4: expected ...aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..., got the end of the token"},
		{name: "short vs long", team: big, ans: "aab", msg: "line 1: long tokens differ at byte 3: expected aab, got aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...", msgExactly: true},
		{name: "long then more", team: big + " 1 2", ans: big + " 1 3", msg: "line 1: expected 3, got 2", msgExactly: true},
		{name: "long space sensitive", flags: "space_change_sensitive", team: big + "\n", ans: big + "\n", ok: true},
		{name: "long team vs number", flags: "float_tolerance 1e-6", team: "1" + strings.Repeat("0", bufSize+10), ans: "1", msg: "expected a number close to 1, got 100000000000000000000000000000..."},
		{name: "long number-like answer is a string", flags: "float_tolerance 1e-6", team: "1", ans: "1" + strings.Repeat("0", bufSize+10), msg: "long tokens differ at byte 2"},
		{name: "long exact", flags: "exact", team: big + "b", ans: big + "a", msg: "byte 196626 differs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := opts(t, tc.flags)
			for _, rd := range readers[:2] {
				got, err := Compare(rd.wrap(strings.NewReader(tc.team)), rd.wrap(strings.NewReader(tc.ans)), o)
				if err != nil {
					t.Fatal(err)
				}
				// The streaming messages show what the buffer holds, which
				// depends on the reads: check the one whole-read message.
				if rd.name != "whole" {
					tc.msg, tc.msgExactly = "", false
				}
				checkOutcome(t, rd.name, tc, got)
			}
		})
	}
}

// Identical and near-identical large outputs cross buffer boundaries in
// the identical-bytes skip.
func TestSkipIdentical(t *testing.T) {
	var ans bytes.Buffer
	for i := range 200000 {
		ans.WriteString(strings.Repeat("7", i%13+1))
		if i%10 == 9 {
			ans.WriteByte('\n')
		} else {
			ans.WriteByte(' ')
		}
	}
	a := ans.Bytes()
	flagsList := []string{"", "case_sensitive", "space_change_sensitive", "float_tolerance 1e-9", "exact"}
	for _, flags := range flagsList {
		o := opts(t, flags)
		if got := CompareBytes(a, a, o); !got.Accepted {
			t.Errorf("%q: identical rejected: %s", flags, got.Message)
		}
		// A change far in, after many buffers.
		for _, pos := range []int{len(a) / 2, len(a) - 2, bufSize - 1, bufSize, 3*bufSize + 1} {
			team := bytes.Clone(a)
			if team[pos] == ' ' || team[pos] == '\n' {
				pos++
			}
			team[pos] = '8'
			got := CompareBytes(team, a, o)
			if got.Accepted {
				t.Errorf("%q: change at %d accepted", flags, pos)
				continue
			}
			line := 1 + bytes.Count(a[:pos], []byte("\n"))
			if !strings.HasPrefix(got.Message, "line "+strconv.Itoa(line)+":") {
				t.Errorf("%q: change at %d (line %d): %s", flags, pos, line, got.Message)
			}
			one, _ := Compare(iotest.OneByteReader(bytes.NewReader(team)), iotest.HalfReader(bytes.NewReader(a)), o)
			if one != got {
				t.Errorf("%q: change at %d: one-byte reads give %+v, whole %+v", flags, pos, one, got)
			}
		}
	}
	// Whitespace changed everywhere: default accepts, the others do not.
	team := bytes.ReplaceAll(a, []byte(" "), []byte("\n"))
	if got := CompareBytes(team, a, Options{}); !got.Accepted {
		t.Errorf("whitespace change rejected: %s", got.Message)
	}
	if got := CompareBytes(team, a, Options{SpaceChangeSensitive: true}); got.Accepted || !strings.HasPrefix(got.Message, "line 1: whitespace differs: expected space, got newline") {
		t.Errorf("space sensitive: %+v", got)
	}
}

func TestReadErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, o := range []Options{{}, {Exact: true}, {SpaceChangeSensitive: true}} {
		_, err := Compare(io.MultiReader(strings.NewReader("1 2 "), iotest.ErrReader(boom)), strings.NewReader("1 2 3"), o)
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "team output") {
			t.Errorf("%+v: team error: %v", o, err)
		}
		_, err = Compare(strings.NewReader("1 2 3"), io.MultiReader(strings.NewReader("1 2"), iotest.ErrReader(boom)), o)
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "answer") {
			t.Errorf("%+v: answer error: %v", o, err)
		}
	}
	// A reader that never makes progress.
	_, err := Compare(zeroReader{}, strings.NewReader("1"), Options{})
	if !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("no progress: %v", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

// Compare must not allocate per token.
func TestAllocs(t *testing.T) {
	var a, b bytes.Buffer
	for i := range 20000 {
		a.WriteString(strconv.Itoa(i) + ".5\n")
		b.WriteString(strconv.Itoa(i) + ".50 ")
	}
	spaced := bytes.ReplaceAll(a.Bytes(), []byte("\n"), []byte(" "))
	for flags, team := range map[string][]byte{"": spaced, "float_tolerance 1e-6": b.Bytes(), "space_change_sensitive": a.Bytes()} {
		o := opts(t, flags)
		if got := CompareBytes(team, a.Bytes(), o); !got.Accepted {
			t.Fatalf("%q: %s", flags, got.Message)
		}
		allocs := testing.AllocsPerRun(5, func() {
			CompareBytes(team, a.Bytes(), o)
		})
		if allocs > 10 {
			t.Errorf("%q: %v allocations for 20000 tokens", flags, allocs)
		}
	}
}
