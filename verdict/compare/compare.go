package compare

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Outcome is the judgement of one output.
type Outcome struct {
	Accepted bool
	// Message says why not, for the judges: one line, short. Empty when
	// accepted.
	Message string
}

// Compare judges team output against the judge answer. It reads both to the
// end at most, in bounded memory; an error is a failure to read either
// input (the Outcome is then meaningless), never a wrong answer.
func Compare(team io.Reader, answer io.Reader, opt Options) (Outcome, error) {
	if opt.WhiteDiff && !opt.Exact {
		return whiteDiff(team, answer)
	}
	c := &comparer{
		t:      newReader(team),
		j:      newReader(answer),
		opt:    opt,
		fold:   !opt.CaseSensitive,
		floats: opt.floats(),
	}
	defer c.t.release()
	defer c.j.release()
	var o Outcome
	if opt.Exact {
		o = c.exact()
	} else {
		o = c.tokens()
	}
	if err := c.t.err; err != nil {
		return Outcome{}, fmt.Errorf("compare: reading team output: %w", err)
	}
	if err := c.j.err; err != nil {
		return Outcome{}, fmt.Errorf("compare: reading answer: %w", err)
	}
	return o, nil
}

// CompareBytes is Compare on two byte slices.
func CompareBytes(team, answer []byte, opt Options) Outcome {
	o, _ := Compare(bytes.NewReader(team), bytes.NewReader(answer), opt)
	return o
}

var accepted = Outcome{Accepted: true}

type comparer struct {
	t, j    *reader // team output, judge answer
	opt     Options
	fold    bool // ASCII case-insensitive
	floats  bool // numbers compare with tolerance
	matched bool // a team token was matched
	cool    int  // tokens to compare before trying skipIdentical again
}

const (
	// skipIdentical is worth it when it skips this much; after a shorter
	// skip it rests for coolTokens tokens.
	fastMin    = 4 << 10
	fastWorth  = 256
	coolTokens = 32
)

// tokens is the Kattis comparison.
func (c *comparer) tokens() Outcome {
	j, t := c.j, c.t
	for {
		if c.opt.SpaceChangeSensitive {
			if o, bad := c.matchSpace(); bad {
				return o
			}
		} else {
			j.skipSpace()
			t.skipSpace()
		}
		// Both are now at a token or at the end.
		if c.cool > 0 {
			c.cool--
		} else if c.skipIdentical() {
			continue
		}
		jn, jok := j.tokenLen()
		if jn == 0 {
			if _, ok := t.peek(); ok {
				return c.extra()
			}
			return accepted
		}
		tn, tok := t.tokenLen()
		if tn == 0 {
			return c.endedEarly()
		}
		if !jok || !tok {
			// A token longer than the buffer: never a number.
			if c.floats && jok {
				if _, num := ParseNumber(j.buf[j.r : j.r+jn]); num {
					return c.wrong("expected a number close to %s, got %s",
						window(j.buf[j.r:j.r+jn], 0, 0, false), window(t.buf[t.r:t.w], 0, 0, true))
				}
			}
			if o, bad := c.streamToken(); bad {
				return o
			}
			c.matched = true
			continue
		}
		J, T := j.buf[j.r:j.r+jn], t.buf[t.r:t.r+tn]
		if !bytes.Equal(J, T) {
			if a, num := c.number(J); num {
				if o, bad := c.numbers(J, T, a); bad {
					return o
				}
			} else if !c.fold || !equalFold(J, T) {
				d := commonFold(J, T, c.fold)
				return c.wrong("expected %s, got %s", window(J, d, 0, false), window(T, d, 0, false))
			}
		}
		j.r += jn
		t.r += tn
		c.matched = true
	}
}

func (c *comparer) number(J []byte) (float64, bool) {
	if !c.floats {
		return 0, false
	}
	return ParseNumber(J)
}

// numbers compares team token T with the answer's number a (token J).
func (c *comparer) numbers(J, T []byte, a float64) (Outcome, bool) {
	s, ok := ParseNumber(T)
	if !ok {
		return c.wrong("expected a number close to %s, got %s", window(J, 0, 0, false), window(T, 0, 0, false)), true
	}
	d := math.Abs(s - a)
	abs, rel := c.opt.FloatAbs, c.opt.FloatRel
	if d <= abs || d <= rel*math.Abs(a) {
		return Outcome{}, false
	}
	var why []string
	if abs >= 0 {
		why = append(why, fmt.Sprintf("absolute error %.3g > %.3g", d, abs))
	}
	if rel >= 0 {
		if a == 0 {
			why = append(why, "relative error undefined (answer is 0)")
		} else {
			why = append(why, fmt.Sprintf("relative error %.3g > %.3g", d/math.Abs(a), rel))
		}
	}
	return c.wrong("expected %s, got %s: %s", window(J, 0, 0, false), window(T, 0, 0, false), strings.Join(why, ", ")), true
}

// skipIdentical consumes the longest stretch, ending in whitespace, where
// both inputs are byte-identical: whatever the options, identical bytes
// hold identical tokens and whitespace, and a token equal to itself is
// accepted. Both inputs must be at a token or at the end, in step.
func (c *comparer) skipIdentical() bool {
	j, t := c.j, c.t
	if j.w-j.r < fastMin {
		j.ensure(fastMin)
	}
	if t.w-t.r < fastMin {
		t.ensure(fastMin)
	}
	a, b := j.buf[j.r:j.w], t.buf[t.r:t.w]
	n := min(len(a), len(b))
	k := commonPrefix(a[:n], b[:n])
	if !(k == len(a) && k == len(b) && j.eof && t.eof) {
		// The last token may go on differently past the identical bytes.
		for k > 0 && !isSpace[a[k-1]] {
			k--
		}
	}
	if k < fastWorth {
		c.cool = coolTokens
	}
	if k == 0 {
		return false
	}
	nl := bytes.Count(a[:k], newline)
	j.line += nl
	t.line += nl
	j.r += k
	t.r += k
	c.matched = true
	return true
}

var newline = []byte{'\n'}

// matchSpace matches whitespace byte for byte (space_change_sensitive).
func (c *comparer) matchSpace() (Outcome, bool) {
	j, t := c.j, c.t
	for {
		cj, ok := j.peek()
		if !ok || !isSpace[cj] {
			break
		}
		ct, ok := t.peek()
		if !ok || ct != cj {
			return c.wrong("whitespace differs: expected %s, got %s", describe(cj), c.next(t)), true
		}
		j.r++
		t.r++
		if cj == '\n' {
			j.line++
			t.line++
		}
	}
	if ct, ok := t.peek(); ok && isSpace[ct] {
		return c.wrong("whitespace differs: expected %s, got %s", c.next(j), describe(ct)), true
	}
	return Outcome{}, false
}

// next describes what comes next in rd.
func (c *comparer) next(rd *reader) string {
	ch, ok := rd.peek()
	switch {
	case !ok:
		return "end of output"
	case isSpace[ch]:
		return describe(ch)
	}
	rd.tokenLen()
	return window(rd.buf[rd.r:rd.w], 0, 0, !rd.eof)
}

func describe(ch byte) string {
	switch ch {
	case ' ':
		return "space"
	case '\n':
		return "newline"
	case '\t':
		return "tab"
	case '\r':
		return "carriage return"
	case '\v':
		return "vertical tab"
	case '\f':
		return "form feed"
	}
	return strconv.QuoteToASCII(string(ch))
}

// streamToken compares two tokens at least one of which is longer than the
// buffer, a buffer at a time.
func (c *comparer) streamToken() (Outcome, bool) {
	j, t := c.j, c.t
	var d int64 // bytes of both tokens found equal
	for {
		if j.r == j.w {
			j.fill()
		}
		if t.r == t.w {
			t.fill()
		}
		a, b := j.buf[j.r:j.w], t.buf[t.r:t.w]
		aEnd := len(a) == 0 || isSpace[a[0]]
		bEnd := len(b) == 0 || isSpace[b[0]]
		if aEnd || bEnd {
			if aEnd && bEnd {
				return Outcome{}, false
			}
			return c.streamMismatch(a, b, 0, d), true
		}
		n := min(len(a), len(b))
		i := 0
		for i < n {
			ca, cb := a[i], b[i]
			if isSpace[ca] || isSpace[cb] || (ca != cb && (!c.fold || lower[ca] != lower[cb])) {
				break
			}
			i++
		}
		if i < n {
			if isSpace[a[i]] && isSpace[b[i]] {
				j.r += i
				t.r += i
				return Outcome{}, false
			}
			return c.streamMismatch(a, b, i, d), true
		}
		j.r += n
		t.r += n
		d += int64(n)
	}
}

func (c *comparer) streamMismatch(a, b []byte, i int, d int64) Outcome {
	desc := func(x []byte, eof bool) string {
		if i >= len(x) || isSpace[x[i]] {
			return "the end of the token"
		}
		return window(x, i, d, !eof)
	}
	return c.wrong("long tokens differ at byte %d: expected %s, got %s",
		d+int64(i)+1, desc(a, c.j.eof), desc(b, c.t.eof))
}

// extra: the answer ended, the team output did not.
func (c *comparer) extra() Outcome {
	t := c.t
	t.tokenLen() // the whole token, if it fits, whatever the reads
	return c.wrong("team output has extra data after the answer: %s", window(t.buf[t.r:t.w], 0, 0, !t.eof))
}

// endedEarly: the team output ended, the answer did not.
func (c *comparer) endedEarly() Outcome {
	j, t := c.j, c.t
	next := window(j.buf[j.r:j.w], 0, 0, !j.eof)
	line := j.line
	n := 0
	for {
		if _, ok := j.peek(); !ok {
			break
		}
		n++
		j.skipToken()
		j.skipSpace()
	}
	what := "team output ended early"
	more := " more"
	switch {
	case t.total() == 0:
		what, more = "team output is empty", ""
	case !c.matched:
		what, more = "team output has only whitespace", ""
	}
	s := "s"
	if n == 1 {
		s = ""
	}
	return Outcome{Message: fmt.Sprintf("%s: expected %d%s token%s, the next is %s (answer line %d)", what, n, more, s, next, line)}
}

// wrong is a wrong answer at the current position.
func (c *comparer) wrong(format string, args ...any) Outcome {
	at := "line " + strconv.Itoa(c.t.line)
	if c.j.line != c.t.line {
		at += " (answer line " + strconv.Itoa(c.j.line) + ")"
	}
	return Outcome{Message: at + ": " + fmt.Sprintf(format, args...)}
}

// exact compares byte for byte.
func (c *comparer) exact() Outcome {
	j, t := c.j, c.t
	for {
		if j.r == j.w {
			j.fill()
		}
		if t.r == t.w {
			t.fill()
		}
		a, b := j.buf[j.r:j.w], t.buf[t.r:t.w]
		switch {
		case len(a) == 0 && len(b) == 0:
			return accepted
		case len(a) == 0:
			return Outcome{Message: fmt.Sprintf("line %d: team output has extra data after the answer's %d bytes: %s",
				t.line, j.offset(), c.quoteNext(t))}
		case len(b) == 0:
			return Outcome{Message: fmt.Sprintf("line %d: team output ended early after %d bytes, expected %s",
				t.line, t.offset(), c.quoteNext(j))}
		}
		n := min(len(a), len(b))
		m := commonPrefix(a[:n], b[:n])
		nl := bytes.Count(a[:m], newline)
		j.line += nl
		t.line += nl
		j.r += m
		t.r += m
		if m < n {
			return Outcome{Message: fmt.Sprintf("line %d: byte %d differs: expected %s, got %s",
				t.line, t.offset()+1, c.quoteNext(j), c.quoteNext(t))}
		}
	}
}

// quoteNext quotes the next few bytes of rd.
func (c *comparer) quoteNext(rd *reader) string {
	rd.ensure(quoteMax + 4)
	return quoteSome(rd.buf[rd.r:rd.w])
}

// quoteSome quotes the first few bytes of b.
const quoteMax = 16

func quoteSome(b []byte) string {
	if len(b) <= quoteMax {
		return strconv.Quote(string(b))
	}
	end := quoteMax
	for end < len(b) && end < quoteMax+3 && !utf8.RuneStart(b[end]) {
		end++
	}
	return strconv.Quote(string(b[:end])) + "..."
}

// window shows a token around index at of b, for a message. b holds the
// token from token offset off and may run past it (up to whitespace) or be
// cut short by the buffer (then more says whether the token may go on).
// Long tokens show at most about 30 bytes, with "..." for the rest.
func window(b []byte, at int, off int64, more bool) string {
	const before, width, slack = 10, 30, 5
	end := 0
	for end < len(b) && !isSpace[b[end]] {
		end++
	}
	if end < len(b) {
		more = false // the token ends inside b
	}
	b = b[:end]
	at = min(at, len(b))
	start := 0
	if at > before+slack {
		start = at - before
		for start < at && !utf8.RuneStart(b[start]) {
			start++
		}
	}
	stop := len(b)
	if stop-start > width+slack {
		stop = start + width
		for stop < len(b) && stop < start+width+3 && !utf8.RuneStart(b[stop]) {
			stop++
		}
	}
	s := show(b[start:stop])
	if off+int64(start) > 0 {
		s = "..." + s
	}
	if stop < len(b) || more {
		s += "..."
	}
	return s
}

// show prints a token bare when it is plain printable ASCII, quoted
// otherwise.
func show(b []byte) string {
	for _, ch := range b {
		if ch <= ' ' || ch >= 0x7f || ch == '"' || ch == '\\' {
			return strconv.Quote(string(b))
		}
	}
	if len(b) == 0 {
		return `""`
	}
	return string(b)
}

// commonPrefix is the length of the common prefix of a and b, which have
// the same length.
func commonPrefix(a, b []byte) int {
	const block = 1024
	i := 0
	for len(a)-i >= block && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for len(a)-i >= 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
		i += 8
	}
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i
}

// commonFold is the length of the common prefix of a and b, up to ASCII
// case if fold.
func commonFold(a, b []byte, fold bool) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && (a[i] == b[i] || fold && lower[a[i]] == lower[b[i]]) {
		i++
	}
	return i
}

func equalFold(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if lower[a[i]] != lower[b[i]] {
			return false
		}
	}
	return true
}

// lower maps A-Z to a-z and every other byte to itself.
var lower = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()
