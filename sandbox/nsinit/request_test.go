package nsinit

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/rlimit"
	"github.com/docketjudge/docket/sandbox/seccomp/load"
	"golang.org/x/sys/unix"
)

// fullRequest uses every record kind.
func fullRequest() *Request {
	return &Request{
		Argv:      []string{"./a.out", "", "x y"},
		Env:       []string{"PATH=/usr/bin:/bin", "HOME=/box"},
		Dir:       "/box",
		Hostname:  "docket",
		UID:       61000,
		GID:       61001,
		CgroupFDs: 2,
		NetNS:     true,
		Rlimits:   []rlimit.Limit{{Resource: unix.RLIMIT_NOFILE, Cur: 64, Max: 64}, {Resource: unix.RLIMIT_STACK, Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}},
		Seccomp: load.Programs{
			{{Code: 0x20, K: 4}, {Code: 0x15, Jt: 1, Jf: 2, K: 0xc000003e}, {Code: 0x06, K: 0x7fff0000}},
			{},
			{{Code: 0x06, K: 0x80000000}},
		},
		Rootfs: &mount.Rootfs{
			MountPoint: "/run/docket/root",
			Binds: []mount.Bind{
				{Source: "/usr", Optional: true},
				{Source: "/srv/box", Target: "/box", Writable: true},
				{Source: "", Target: ""},
			},
			TmpSize:   -1,
			Proc:      true,
			DevByBind: true,
			Masks:     []string{"/usr/local/bin/docket"},
		},
	}
}

func encode(t testing.TB, req *Request) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteRequest(&buf, req); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if n := binary.LittleEndian.Uint32(b); int(n) != len(b)-4 {
		t.Fatalf("frame length %d, body %d bytes", n, len(b)-4)
	}
	return b
}

// normalize makes a request comparable with a decoded one: empty lists
// decode as nil.
func normalize(r *Request) *Request {
	c := *r
	if len(c.Env) == 0 {
		c.Env = nil
	}
	if len(c.Rlimits) == 0 {
		c.Rlimits = nil
	}
	if c.Rootfs != nil {
		fs := *c.Rootfs
		if len(fs.Binds) == 0 {
			fs.Binds = nil
		}
		if len(fs.Masks) == 0 {
			fs.Masks = nil
		}
		c.Rootfs = &fs
	}
	if c.Seccomp != nil {
		progs := load.Programs{}
		for _, p := range c.Seccomp {
			progs = append(progs, append(load.Program{}, p...))
		}
		c.Seccomp = progs
	}
	return &c
}

func TestRoundTrip(t *testing.T) {
	for _, req := range []*Request{
		fullRequest(),
		{Argv: []string{"true"}, UID: -1, GID: -1},
		{Argv: []string{"true"}, Seccomp: load.Programs{}, Rootfs: &mount.Rootfs{}},
	} {
		got, err := decodeRequest(encode(t, req)[4:])
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if want := normalize(req); !reflect.DeepEqual(got, want) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
		}
	}
}

func TestWriteRequestRejects(t *testing.T) {
	for name, req := range map[string]*Request{
		"resource": {Argv: []string{"x"}, Rlimits: []rlimit.Limit{{Resource: 1 << 40}}},
		"filter":   {Argv: []string{"x"}, Seccomp: load.Programs{make(load.Program, 1<<16)}},
		"size":     {Argv: []string{strings.Repeat("x", MaxRequest)}},
	} {
		if err := WriteRequest(&bytes.Buffer{}, req); err == nil {
			t.Errorf("%s: WriteRequest accepted it", name)
		}
	}
}

// record builds one raw record.
func record(tag byte, payload ...[]byte) []byte {
	p := bytes.Join(payload, nil)
	b := []byte{tag}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
	return append(b, p...)
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

var arg = record('A', []byte("true"))

// malformed lists requests each decoder must reject, with the message.
var malformed = []struct {
	name string
	body []byte
	want string
}{
	{"empty", nil, "empty argv"},
	{"no argv", record('E', []byte("A=b")), "empty argv"},
	{"short header", append(append([]byte{}, arg...), 'A', 1, 0), "record at byte 9: truncated header (3 bytes left)"},
	{"unknown tag", append(append([]byte{}, arg...), 'z', 0, 0, 0, 0), "record at byte 9: unknown tag 0x7a"},
	{"zero tag", []byte{0, 0, 0, 0, 0}, "record at byte 0: unknown tag 0x00"},
	{"overlong", []byte{'A', 9, 0, 0, 0, 'x'}, "record at byte 0 ('A'): length 9 exceeds the 1 bytes left"},
	{"huge length", []byte{'E', 0xff, 0xff, 0xff, 0xff}, "record at byte 0 ('E'): length 4294967295 exceeds the 0 bytes left"},
	{"NUL in argv", record('A', []byte("a\x00b")), "record at byte 0 ('A'): contains a NUL byte"},
	{"NUL in env", append(append([]byte{}, arg...), record('E', []byte("\x00"))...), "record at byte 9 ('E'): contains a NUL byte"},
	{"two dirs", bytes.Join([][]byte{arg, record('D', []byte("/a")), record('D', []byte("/b"))}, nil), "record at byte 16 ('D'): repeated"},
	{"two hosts", bytes.Join([][]byte{record('H'), record('H')}, nil), "record at byte 5 ('H'): repeated"},
	{"short ids", record('U', u64(1)), "record at byte 0 ('U'): length 8, want 16"},
	{"two ids", bytes.Join([][]byte{record('U', u64(1), u64(2)), record('U', u64(1), u64(2))}, nil), "record at byte 21 ('U'): repeated"},
	{"long rlimit", record('L', u32(1), u64(2), u64(3), []byte{0}), "record at byte 0 ('L'): length 21, want 20"},
	{"seccomp payload", record('S', []byte{1}), "record at byte 0 ('S'): length 1, want 0"},
	{"two seccomp", bytes.Join([][]byte{record('S'), record('S')}, nil), "record at byte 5 ('S'): repeated"},
	{"filter first", record('F', u64(6)), "record at byte 0 ('F'): before its 'S' record"},
	{"filter length", bytes.Join([][]byte{record('S'), record('F', u32(6))}, nil), "record at byte 5 ('F'): length 4 is not a multiple of 8"},
	{"filter size", bytes.Join([][]byte{record('S'), record('F', make([]byte, 8*65536))}, nil), "record at byte 5 ('F'): 65536 instructions, more than 65535"},
	{"short rootfs", record('R', u64(0)), "record at byte 0 ('R'): length 8, want at least 9"},
	{"rootfs flags", record('R', u64(0), []byte{32}), "record at byte 0 ('R'): unknown flags 0x20"},
	{"split without fds", record('R', u64(0), []byte{16}), "record at byte 0 ('R'): split space without its descriptors"},
	{"rootfs NUL", record('R', u64(0), []byte{1}, []byte("/r\x00")), "record at byte 0 ('R'): contains a NUL byte"},
	{"two rootfs", bytes.Join([][]byte{record('R', u64(0), []byte{0}), record('R', u64(0), []byte{0})}, nil), "record at byte 14 ('R'): repeated"},
	{"bind first", record('B', []byte{0}, u32(0)), "record at byte 0 ('B'): before its 'R' record"},
	{"mask first", record('M', []byte("/x")), "record at byte 0 ('M'): before its 'R' record"},
	{"short bind", bytes.Join([][]byte{record('R', u64(0), []byte{0}), record('B', []byte{0}, []byte{0, 0})}, nil), "record at byte 14 ('B'): length 3, want at least 5"},
	{"bind flags", bytes.Join([][]byte{record('R', u64(0), []byte{0}), record('B', []byte{8}, u32(0))}, nil), "record at byte 14 ('B'): unknown flags 0x08"},
	{"bind source", bytes.Join([][]byte{record('R', u64(0), []byte{0}), record('B', []byte{0}, u32(4), []byte("/us"))}, nil), "record at byte 14 ('B'): source length 4 exceeds the 3 bytes left"},
	{"bind NUL source", bytes.Join([][]byte{record('R', u64(0), []byte{0}), record('B', []byte{0}, u32(2), []byte("/\x00/b"))}, nil), "record at byte 14 ('B'): contains a NUL byte"},
	{"bind NUL target", bytes.Join([][]byte{record('R', u64(0), []byte{0}), record('B', []byte{0}, u32(2), []byte("/a/\x00"))}, nil), "record at byte 14 ('B'): contains a NUL byte"},
	{"netns payload", record('N', []byte{1}), "record at byte 0 ('N'): length 1, want 0"},
	{"two netns", bytes.Join([][]byte{record('N'), record('N')}, nil), "record at byte 5 ('N'): repeated"},
	{"into payload", record('C', []byte{1}), "record at byte 0 ('C'): length 1, want 0"},
	{"two into", bytes.Join([][]byte{arg, record('G', []byte{2}), record('C'), record('C')}, nil), "record at byte 20 ('C'): repeated"},
	{"into without a directory", bytes.Join([][]byte{arg, record('G', []byte{1}), record('C')}, nil), "cgroup into without a directory"},
	{"into without cgroups", bytes.Join([][]byte{arg, record('C')}, nil), "cgroup into without a directory"},
	{"mask NUL", bytes.Join([][]byte{record('R', u64(0), []byte{0}), record('M', []byte("\x00"))}, nil), "record at byte 14 ('M'): contains a NUL byte"},
}

func TestDecodeMalformed(t *testing.T) {
	for _, tc := range malformed {
		_, err := decodeRequest(tc.body)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// randomRequest builds a valid request from r, every field optional.
func randomRequest(r *rand.Rand) *Request {
	str := func() string {
		b := make([]byte, r.Intn(12))
		for i := range b {
			b[i] = byte(1 + r.Intn(255))
		}
		return string(b)
	}
	strs := func() []string {
		var s []string
		for i := r.Intn(4); i > 0; i-- {
			s = append(s, str())
		}
		return s
	}
	req := &Request{Argv: append([]string{str()}, strs()...), Env: strs(), UID: r.Intn(3) - 1, GID: r.Int(),
		CgroupFDs: r.Intn(MaxCgroupFDs + 1), NetNS: r.Intn(2) == 0}
	req.CgroupInto = req.CgroupFDs >= 2 && r.Intn(2) == 0
	if r.Intn(2) == 0 {
		req.Dir = str()
	}
	if r.Intn(2) == 0 {
		req.Hostname = str()
	}
	for i := r.Intn(3); i > 0; i-- {
		req.Rlimits = append(req.Rlimits, rlimit.Limit{Resource: int(int32(r.Uint32())), Cur: r.Uint64(), Max: r.Uint64()})
	}
	if r.Intn(2) == 0 {
		req.Seccomp = load.Programs{}
		for i := r.Intn(3); i > 0; i-- {
			p := make(load.Program, r.Intn(5))
			for j := range p {
				p[j] = unix.SockFilter{Code: uint16(r.Uint32()), Jt: uint8(r.Uint32()), Jf: uint8(r.Uint32()), K: r.Uint32()}
			}
			req.Seccomp = append(req.Seccomp, p)
		}
	}
	if r.Intn(2) == 0 {
		fs := &mount.Rootfs{MountPoint: str(), TmpSize: r.Int63() - r.Int63(), Proc: r.Intn(2) == 0, DevByBind: r.Intn(2) == 0, Template: r.Intn(2) == 0, FromFDs: r.Intn(2) == 0, Masks: strs()}
		fs.Split = fs.FromFDs && r.Intn(2) == 0
		for i := r.Intn(4); i > 0; i-- {
			fs.Binds = append(fs.Binds, mount.Bind{Source: str(), Target: str(), Writable: r.Intn(2) == 0, Optional: r.Intn(2) == 0})
		}
		req.Rootfs = fs
	}
	return req
}

// mutate corrupts an encoded body in one of several ways.
func mutate(r *rand.Rand, b []byte) []byte {
	b = append([]byte{}, b...)
	switch r.Intn(5) {
	case 0: // truncate
		return b[:r.Intn(len(b)+1)]
	case 1: // flip a byte
		if len(b) > 0 {
			b[r.Intn(len(b))] ^= byte(1 + r.Intn(255))
		}
	case 2: // random bytes in
		i := r.Intn(len(b) + 1)
		junk := make([]byte, 1+r.Intn(8))
		r.Read(junk)
		return append(b[:i], append(junk, b[i:]...)...)
	case 3: // a small value into some length field
		if len(b) >= 4 {
			i := r.Intn(len(b) - 3)
			binary.LittleEndian.PutUint32(b[i:], uint32(r.Intn(64)))
		}
	case 4: // a NUL somewhere
		if len(b) > 0 {
			b[r.Intn(len(b))] = 0
		}
	}
	return b
}

func TestRandomRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		req := randomRequest(r)
		got, err := decodeRequest(encode(t, req)[4:])
		if err != nil {
			t.Fatalf("decode %+v: %v", req, err)
		}
		if want := normalize(req); !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
		}
	}
}
