// Package termsafe keeps what a submission wrote from acting on the
// terminal that shows it. A compile log echoes source lines, a checker's
// feedback and a program's stderr are the program's own bytes, and a
// package's file names are its author's: an escape sequence among them
// would retitle the operator's window, set its clipboard or clear its
// screen. Text escapes, for text a person reads; JSON escapes inside a
// JSON document, keeping its meaning.
//
// It must not import any other package of docket's.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Text is s with every rune a terminal would act on or not show as
// itself escaped: C0 controls but newline and tab (so carriage return,
// backspace and ESC), DEL, C1 controls (0x80-0x9f, which some terminals
// take as CSI and OSC), other non-printing runes (bidirectional
// overrides, zero-width characters), and bytes that are not UTF-8. A
// rune below 0x100 and a stray byte are written \xNN, others \u{NNNN}.
func Text(s string) string {
	if clean(s, true) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case safe(r, true):
			b.WriteString(s[i : i+n])
		case r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			fmt.Fprintf(&b, "\\u{%04x}", r)
		}
		i += n
	}
	return b.String()
}

// JSON escapes, in a JSON document, what encoding/json leaves raw and a
// terminal would act on: DEL, C1 controls and other non-printing runes,
// as \uNNNN (a surrogate pair beyond the BMP). encoding/json already
// escapes C0 controls and writes only valid UTF-8, and such runes can
// only occur inside strings, where the escape means the same rune: the
// document decodes to the same value.
func JSON(b []byte) []byte {
	if clean(string(b), false) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = append(out, `\ufffd`...)
		case safe(r, false):
			out = append(out, b[i:i+n]...)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
	}
	return out
}

// safe: a rune shown as itself. In text, newline and tab; in JSON, the
// C0 controls are encoding/json's to escape (a raw one would be invalid
// JSON anyway), so only what it leaves raw is judged here.
func safe(r rune, text bool) bool {
	if r < 0x20 {
		return r == '\n' || r == '\t' || !text
	}
	return unicode.IsPrint(r)
}

// clean: nothing in s to escape.
func clean(s string, text bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !safe(r, text) {
			return false
		}
	}
	return true
}

// Writer escapes with Text every write to w. Each write is escaped on its
// own: a rune split across two writes is escaped as its bytes, which
// fmt's one write per call never does.
func Writer(w io.Writer) io.Writer { return textWriter{w} }

type textWriter struct{ w io.Writer }

func (t textWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(t.w, Text(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// JSONWriter escapes with JSON every write to w: a JSON document, or a
// log of one JSON object per write (zerolog's).
func JSONWriter(w io.Writer) io.Writer { return jsonWriter{w} }

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(b []byte) (int, error) {
	if _, err := j.w.Write(JSON(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}
