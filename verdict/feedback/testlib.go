package feedback

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/docketjudge/docket/verdict/compare"
)

// MaxTestlibMessage caps Testlib.Message.
const MaxTestlibMessage = 4 << 10

// TestlibVerdict is a testlib outcome.
type TestlibVerdict int

// The outcomes, by testlib's exit codes.
const (
	OK               TestlibVerdict = iota // exit 0
	WA                                     // exit 1, wrong answer
	PE                                     // exit 2, wrong output format
	Fail                                   // exit 3: the checker failed; a judge error
	Dirt                                   // exit 4: extra data (older testlib); treat as PE
	Points                                 // exit 7: Points holds the points
	UnexpectedEOF                          // exit 8 (ENABLE_UNEXPECTED_EOF); treat as PE
	PartiallyCorrect                       // _pc(k): Points holds k
)

var verdictNames = [...]string{
	OK: "ok", WA: "wrong answer", PE: "wrong output format", Fail: "fail", Dirt: "dirt",
	Points: "points", UnexpectedEOF: "unexpected eof", PartiallyCorrect: "partially correct",
}

// String is the outcome's name, for messages ("wrong answer").
func (v TestlibVerdict) String() string {
	if v >= 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "TestlibVerdict(" + strconv.Itoa(int(v)) + ")"
}

// Canonical folds the presentation-error variants, Dirt and
// UnexpectedEOF, into PE.
func (v TestlibVerdict) Canonical() TestlibVerdict {
	if v == Dirt || v == UnexpectedEOF {
		return PE
	}
	return v
}

// Testlib is a testlib checker's or interactor's judgement.
type Testlib struct {
	Verdict TestlibVerdict
	Points  *float64 // Points: the points; PartiallyCorrect: k; else nil
	Message string   // without the verdict prefix; valid UTF-8, at most 4 KiB
}

// exitVerdicts maps testlib's standard exit codes.
var exitVerdicts = map[int]TestlibVerdict{0: OK, 1: WA, 2: PE, 3: Fail, 4: Dirt, 7: Points, 8: UnexpectedEOF}

// pcBases are the PC_BASE_EXIT_CODE values builds use: 0 (standard), 16
// (TResult _partially, used by some forks), 50 (TESTSYS).
var pcBases = []int{0, 16, 50}

// ParseTestlib interprets a testlib program's exit code and its output: its
// stderr, or the contents of its result file. An unknown exit code gives
// Verdict Fail and an error; so does a points verdict without a number.
func ParseTestlib(exitCode int, output []byte) (Testlib, error) {
	text := clean(output)
	v, known := exitVerdicts[exitCode]
	lines := strings.Split(text, "\n")

	// The verdict line: the first line if it has a prefix that agrees with
	// the exit code, else the last line that does.
	at, p := -1, prefix{}
	if q, ok := parsePrefix(lines[0]); ok && q.agrees(exitCode, v, known) {
		at, p = 0, q
	} else {
		for i := len(lines) - 1; i > 0; i-- {
			if q, ok := parsePrefix(lines[i]); ok && q.agrees(exitCode, v, known) {
				at, p = i, q
				break
			}
		}
	}
	msg := text
	if at >= 0 {
		msg = strings.TrimSpace(strings.Join(lines[at:], "\n")[p.len:])
	}

	res := Testlib{Verdict: v}
	if at >= 0 && p.verdict == PartiallyCorrect && v != Points {
		k := float64(p.k)
		res.Verdict, res.Points = PartiallyCorrect, &k
	}
	var err error
	switch {
	case res.Verdict == PartiallyCorrect:
	case !known:
		res.Verdict = Fail
		err = fmt.Errorf("testlib: unknown exit code %d (known: 0 ok, 1 wrong answer, 2 wrong output format, 3 fail, 4 dirt, 7 points, 8 unexpected eof, k partially correct with a \"partially correct (k)\" message)", exitCode)
	case v == Points:
		if at >= 0 && p.verdict == PartiallyCorrect {
			k := float64(p.k)
			res.Points = &k
			break
		}
		// "points " was stripped, or this is the result file: the points come
		// first.
		word, rest, _ := strings.Cut(msg, " ")
		word = strings.TrimSpace(word)
		if x, ok := compare.ParseNumber([]byte(word)); ok {
			res.Points = &x
			msg = strings.TrimSpace(rest)
		} else {
			err = fmt.Errorf("testlib: exit code 7 (points) without a number of points in %q", firstWords(msg))
		}
	}
	res.Message = message([]byte(msg), false, MaxTestlibMessage)
	return res, err
}

// prefix is a recognised verdict prefix at the start of a line.
type prefix struct {
	verdict TestlibVerdict
	k       int // partially correct (k)
	len     int // bytes, including the space after it
}

var prefixes = []struct {
	text string
	v    TestlibVerdict
}{
	{"ok", OK},
	{"wrong answer", WA},
	{"wrong output format", PE},
	{"FAIL", Fail},
	{"points", Points},
	{"unexpected eof", UnexpectedEOF},
}

func parsePrefix(line string) (prefix, bool) {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(line, p.text); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return prefix{verdict: p.v, len: len(p.text)}, true
		}
	}
	const pc = "partially correct ("
	if rest, ok := strings.CutPrefix(line, pc); ok {
		n := 0
		for n < len(rest) && n < 10 && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n > 0 && n < len(rest) && rest[n] == ')' && (n+1 == len(rest) || rest[n+1] == ' ' || rest[n+1] == '\t') {
			k, err := strconv.Atoi(rest[:n])
			if err == nil {
				return prefix{verdict: PartiallyCorrect, k: k, len: len(pc) + n + 1}, true
			}
		}
	}
	return prefix{}, false
}

// agrees reports whether the prefix fits the exit code.
func (p prefix) agrees(exitCode int, v TestlibVerdict, known bool) bool {
	if p.verdict == PartiallyCorrect {
		for _, base := range pcBases {
			if (base+p.k)%256 == exitCode {
				return true
			}
		}
		return known && v == Points
	}
	if !known {
		return false
	}
	switch v {
	case PE, Dirt:
		return p.verdict == PE
	default:
		return p.verdict == v
	}
}

// clean removes ANSI escape sequences and testlib's "See file to check exit
// message" trailer, and trims whitespace.
func clean(b []byte) string {
	if bytes.IndexByte(b, 0x1b) >= 0 {
		b = stripANSI(b)
	}
	s := strings.TrimSpace(string(b))
	s = strings.TrimSuffix(s, "See file to check exit message")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimSpace(s)
}

// stripANSI removes CSI sequences: ESC [ parameters final-byte.
func stripANSI(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '[' {
			j := i + 2
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x3f { // parameter and intermediate bytes
				j++
			}
			if j < len(b) && b[j] >= 0x40 && b[j] <= 0x7e {
				i = j
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

func firstWords(s string) string {
	if len(s) > 60 {
		return cutUTF8(s, 60) + "..."
	}
	return s
}
