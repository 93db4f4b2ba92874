package compare

import (
	"io"
	"sync"
)

// bufSize is each input's buffer: the longest token that is compared in
// place (longer ones are compared in streaming fashion, and are never
// numbers).
const bufSize = 64 << 10

// isSpace is C's isspace in the "C" locale, the specification's whitespace.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// reader is a minimal bufio.Reader with the operations the comparison needs
// and direct access to its buffer. Bytes before r are consumed; buf[r:w] is
// available. Filling moves the available bytes to the front, so slices of
// buf are valid only until the next fill of the same reader.
type reader struct {
	src  io.Reader
	buf  []byte
	r, w int
	base int64 // offset in the input of buf[0]
	eof  bool  // src said io.EOF
	err  error // src failed otherwise (sticky)
	line int   // line of buf[r], from 1
}

// bufs recycles buffers between comparisons.
var bufs = sync.Pool{New: func() any { return new([bufSize]byte) }}

func newReader(src io.Reader) *reader {
	return &reader{src: src, buf: bufs.Get().(*[bufSize]byte)[:], line: 1}
}

// release returns the buffer; rd must not be used after.
func (rd *reader) release() {
	bufs.Put((*[bufSize]byte)(rd.buf))
	rd.buf = nil
}

// offset is the input offset of the next unconsumed byte.
func (rd *reader) offset() int64 { return rd.base + int64(rd.r) }

// total is the number of bytes read from the input so far.
func (rd *reader) total() int64 { return rd.base + int64(rd.w) }

// fill moves the available bytes to the front and reads once more. It
// reports whether new bytes arrived; false means end of input, an error, or a
// full buffer.
func (rd *reader) fill() bool {
	if rd.eof || rd.err != nil {
		return false
	}
	if rd.r > 0 {
		copy(rd.buf, rd.buf[rd.r:rd.w])
		rd.w -= rd.r
		rd.base += int64(rd.r)
		rd.r = 0
	}
	if rd.w == len(rd.buf) {
		return false
	}
	for range 100 {
		n, err := rd.src.Read(rd.buf[rd.w:])
		if n < 0 || n > len(rd.buf)-rd.w {
			rd.err = io.ErrShortBuffer // a broken Reader; do not trust n
			return false
		}
		rd.w += n
		if err != nil {
			if err == io.EOF {
				rd.eof = true
			} else {
				rd.err = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	rd.err = io.ErrNoProgress
	return false
}

// peek returns the next byte without consuming it; ok is false at the end
// of input (or on error).
func (rd *reader) peek() (c byte, ok bool) {
	if rd.r == rd.w && !rd.fill() {
		return 0, false
	}
	return rd.buf[rd.r], true
}

// skipSpace consumes whitespace, counting lines.
func (rd *reader) skipSpace() {
	for {
		for rd.r < rd.w {
			c := rd.buf[rd.r]
			if !isSpace[c] {
				return
			}
			if c == '\n' {
				rd.line++
			}
			rd.r++
		}
		if !rd.fill() {
			return
		}
	}
}

// tokenLen makes the token at r (which must not be whitespace) available
// in whole and returns its length without consuming it: buf[r:r+n]. ok is
// false if it does not fit in the buffer; then buf[r:w] is its beginning.
// n is 0 only at the end of input.
func (rd *reader) tokenLen() (n int, ok bool) {
	i := rd.r
	for {
		buf := rd.buf[:rd.w]
		for i < len(buf) && !isSpace[buf[i]] {
			i++
		}
		if i < rd.w || rd.eof || rd.err != nil {
			return i - rd.r, true
		}
		if rd.r == 0 && rd.w == len(rd.buf) {
			return i, false
		}
		off := i - rd.r
		rd.fill()
		i = rd.r + off
	}
}

// skipToken consumes a token of any length.
func (rd *reader) skipToken() {
	for {
		for rd.r < rd.w && !isSpace[rd.buf[rd.r]] {
			rd.r++
		}
		if rd.r < rd.w || !rd.fill() {
			return
		}
	}
}

// ensure tries to have at least n bytes available (fewer at the end of
// input).
func (rd *reader) ensure(n int) {
	for rd.w-rd.r < n && rd.fill() {
	}
}
