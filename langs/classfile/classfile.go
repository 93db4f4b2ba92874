// Package classfile reads what docket needs from a JVM class file: the
// class's name and whether it has a main method the java launcher can
// start. Class files come from compiling a contestant's source, so every
// count and index is checked against the bytes there are: a malformed
// file is an error wrapping ErrMalformed, never a panic or a large
// allocation.
//
// It must not import any other package of docket's.
package classfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// ErrMalformed means the bytes are not a class file docket can read.
var ErrMalformed = errors.New("malformed class file")

// Class is what docket reads from a class file.
type Class struct {
	// Name is the binary name, with dots: "foo.Sol", "Outer$Inner".
	Name string
	// HasMain: a method public static void main(String[]).
	HasMain bool
}

// The launcher's entry method (JVMS §4.3.3 descriptor) and the access
// flags it needs.
const (
	mainName       = "main"
	mainDescriptor = "([Ljava/lang/String;)V"
	accPublic      = 0x0001
	accStatic      = 0x0008
	magic          = 0xCAFEBABE
)

// Constant pool tags (JVMS §4.4) and the size of each entry's body.
const (
	tagUtf8  = 1
	tagLong  = 5
	tagDbl   = 6
	tagClass = 7
)

var tagSize = map[byte]int{
	3: 4, 4: 4, tagLong: 8, tagDbl: 8, tagClass: 2, 8: 2, 9: 4, 10: 4, 11: 4,
	12: 4, 15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2,
}

// Parse reads a class file.
func Parse(b []byte) (*Class, error) {
	r := &reader{b: b}
	if r.u4() != magic {
		return nil, r.fail("no class file magic")
	}
	r.skip(4) // minor, major version
	pool, err := readPool(r)
	if err != nil {
		return nil, err
	}
	r.skip(2) // access flags
	name, err := pool.className(r.u2())
	if err != nil {
		return nil, err
	}
	r.skip(2) // super class
	r.skip(2 * int(r.u2()))
	if err := skipMembers(r); err != nil { // fields
		return nil, err
	}
	hasMain, err := findMain(r, pool)
	if err != nil {
		return nil, err
	}
	skipAttributes(r)
	if r.err == nil && r.off != len(b) {
		return nil, r.fail(fmt.Sprintf("%d bytes past the end", len(b)-r.off)) // the JVM refuses them too
	}
	if r.err != nil {
		return nil, r.err
	}
	return &Class{Name: strings.ReplaceAll(name, "/", "."), HasMain: hasMain}, nil
}

// pool is the constant pool: each entry's tag and body, by index.
type pool struct {
	tags   []byte
	bodies [][]byte
}

func readPool(r *reader) (*pool, error) {
	n := int(r.u2())
	p := &pool{tags: make([]byte, n), bodies: make([][]byte, n)}
	for i := 1; i < n; i++ {
		tag := r.u1()
		size, ok := tagSize[tag]
		if tag == tagUtf8 {
			size, ok = int(r.u2()), true
		}
		if !ok || r.err != nil {
			return nil, r.fail(fmt.Sprintf("constant %d has unknown tag %d", i, tag))
		}
		p.tags[i], p.bodies[i] = tag, r.bytes(size)
		if tag == tagLong || tag == tagDbl {
			i++ // takes two slots (JVMS §4.4.5)
		}
	}
	return p, r.err
}

func (p *pool) utf8(i uint16) (string, error) {
	if int(i) >= len(p.tags) || p.tags[i] != tagUtf8 {
		return "", fmt.Errorf("%w: constant %d is not a string", ErrMalformed, i)
	}
	return string(p.bodies[i]), nil
}

func (p *pool) className(i uint16) (string, error) {
	if int(i) >= len(p.tags) || p.tags[i] != tagClass {
		return "", fmt.Errorf("%w: constant %d is not a class", ErrMalformed, i)
	}
	return p.utf8(binary.BigEndian.Uint16(p.bodies[i]))
}

// skipMembers skips the fields (or methods) table.
func skipMembers(r *reader) error {
	for n := int(r.u2()); n > 0 && r.err == nil; n-- {
		r.skip(6) // access flags, name, descriptor
		skipAttributes(r)
	}
	return r.err
}

func skipAttributes(r *reader) {
	for n := int(r.u2()); n > 0 && r.err == nil; n-- {
		r.skip(2)
		r.skip(int(r.u4()))
	}
}

// findMain reads the methods table, looking for the launcher's main.
func findMain(r *reader, p *pool) (bool, error) {
	found := false
	for n := int(r.u2()); n > 0 && r.err == nil; n-- {
		flags, nameIdx, descIdx := r.u2(), r.u2(), r.u2()
		skipAttributes(r)
		if r.err != nil || flags&(accPublic|accStatic) != accPublic|accStatic {
			continue
		}
		name, err := p.utf8(nameIdx)
		if err != nil {
			return false, err
		}
		desc, err := p.utf8(descIdx)
		if err != nil {
			return false, err
		}
		found = found || name == mainName && desc == mainDescriptor
	}
	return found, r.err
}

// reader reads big-endian values; past the end it records an error and
// returns zeros, so that a parse checks r.err once per table.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		if r.err == nil {
			r.err = fmt.Errorf("%w: truncated at byte %d", ErrMalformed, r.off)
		}
		return nil
	}
	out := r.b[r.off : r.off+n]
	r.off += n
	return out
}

func (r *reader) skip(n int) { r.bytes(n) }

func (r *reader) u1() byte {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u2() uint16 {
	if b := r.bytes(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u4() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (r *reader) fail(msg string) error {
	if r.err != nil {
		return r.err
	}
	return fmt.Errorf("%w: %s", ErrMalformed, msg)
}
