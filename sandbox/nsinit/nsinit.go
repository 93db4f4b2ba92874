// Package nsinit is the sandbox helper: the side of the setup protocol
// that runs in the child, between clone and the target's execve.
//
// It must not import any of docket's packages but sandbox/mount,
// sandbox/rlimit and sandbox/seccomp/load, whose descriptions its request
// carries; in particular not package sandbox, which imports it.
//
// The parent starts the docket binary itself (/proc/self/exe) with argv[0]
// set to Arg0, already inside its new namespaces. The helper is C: a
// constructor in nsinit.c, run by the C library before the Go runtime
// starts, recognises Arg0, performs the whole setup and runs the target;
// it never returns into Go. A helper therefore costs an execve of the
// binary plus its setup system calls, not a Go runtime start and every
// package init of a large binary (about 2 ms per run). docket requires
// cgo for it: a build without cgo fails to compile (cgo_required.go).
//
// A helper can also come from the zygote (zygote.c, Zygote in zygote.go):
// a C process per Sandbox, started once like a helper with argv[0]
// ZygoteArg0, that holds template roots and forks helpers into fresh
// namespaces on a copy of one, ahead of their runs. Such a helper gets
// the run's space on fd 5 and a request whose root is a template root
// ('R' flags 4 and 8); everything else below is the same.
//
// Protocol over two inherited pipes, never through a file a target could
// read, and the run's cgroup files:
//
//	fd 3 (parent -> helper): 4-byte little-endian length, the encoded
//	                         Request (see "Wire format")
//	fd 4 (helper -> parent): 'R' and the CLOCK_MONOTONIC time in ns
//	                         (8 bytes, little-endian; ReadyStamp) once
//	                         the root and the hostname are built and the
//	                         program is found, just before the target is
//	                         forked, or 'E' +
//	                         message if that failed (the helper exits
//	                         127); after 'R', framed records (kind,
//	                         4-byte little-endian value): 'X', length,
//	                         message if the target's own setup (cgroup,
//	                         rlimits, uid, seccomp) or its execve failed;
//	                         then 'S', the target's wait status, when it
//	                         ends, and the CLOCK_MONOTONIC time PID 1
//	                         reaped it (TargetStatus, StatusStamp).
//	fd 6 on (parent -> target): Request.CgroupFDs cgroup join files,
//	                         opened for writing by the parent (with
//	                         Request.CgroupInto the last is the group's
//	                         directory, to start the target in); then,
//	                         with Request.NetNS, the network namespace the
//	                         helper enters.
//
// The helper stays as PID 1 of the run's pid namespace and forks the
// target right after 'R' (TargetIsChildOfInit): no round trip to the
// parent. The target's first step is to write "0" to each cgroup file, so
// it joins the run's cgroup alone: neither the helper's memory nor its
// setup time is charged to the run, and the helper is not one of the
// run's tasks.
//
// # Wire format
//
// The Request is a sequence of records, each a 1-byte tag, a 4-byte
// little-endian payload length and the payload. Integers are little-endian;
// strings are raw bytes and may not contain NUL. The helper's decoder
// (request.c) checks every length and rejects anything else; the tests
// hold it to decodeRequest here, message for message, on random and
// corrupted input.
//
//	'A' string            one argv element, in order (at least one)
//	'E' string            one environment entry, in order
//	'D' string            working directory (at most once; absent: none)
//	'H' string            hostname (at most once; absent: none)
//	'U' i64 uid, i64 gid  (at most once; absent: -1, -1)
//	'G' u8 n              the helper has n ≤ 4 cgroup join files from fd 6
//	                      on (at most once; absent: 0)
//	'C' (empty)           the last of the 'G' descriptors is the run group's
//	                      directory (cgroup v2): the target is started in
//	                      it (at most once; needs n ≥ 2)
//	'N' (empty)           the helper enters the network namespace on the
//	                      descriptor after the cgroup files, NetNSFD (at
//	                      most once; absent: none, or one it was made in)
//	'L' i32 resource, u64 cur, u64 max    one rlimit, applied in order
//	'S' (empty)           seccomp filters follow (at most once; absent: none)
//	'F' n × {u16 code, u8 jt, u8 jf, u32 k}
//	                      one filter, n ≤ 65535 (n = 0: skipped); after 'S'
//	'R' i64 tmp size, u8 flags (1 proc, 2 dev by bind, 4 template,
//	    8 fds, 16 split: needs 8), mount point
//	                      the new root (at most once; absent: none); with
//	                      flag 8 (what docket sends) the box and /tmp are
//	                      the directories box and tmp of the detached
//	                      tmpfs on fd 5, the run's bounded writable space
//	                      (tmp size is unused); with flag 4 (a helper from
//	                      the zygote, always with flag 8 and no bind) they
//	                      go onto the helper's copy of a template root
//	'B' u8 flags (1 writable, 2 optional), u32 source length, source,
//	    target            one bind, in order; after 'R'
//	'M' string            one mask; after 'R'
package nsinit

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/rlimit"
	"github.com/docketjudge/docket/sandbox/seccomp/load"
	"golang.org/x/sys/unix"
)

// Arg0 is the argv[0] that turns the docket binary into the helper.
const Arg0 = "docket-sandbox-init"

// ProbeArg0 makes the binary exit 0 at once: the namespace probe clones it
// with one flag set at a time.
const ProbeArg0 = "docket-sandbox-probe"

// ZygoteArg0 turns the binary into the zygote (zygote.c).
const ZygoteArg0 = "docket-sandbox-zygote"

// BoxDir is where the box is mounted; every template has it as an empty
// mount point (DK_BOX_DIR in nsinit.h).
const BoxDir = "/box"

// Message bytes on the status pipe.
const (
	Ready = 'R'
	// ReadyStamp is the length of the CLOCK_MONOTONIC time, in ns, that
	// follows Ready: when the target starts.
	ReadyStamp = 8
	SetupError = 'E'
	ExecError  = 'X'
	// TargetStatus follows Ready (TargetIsChildOfInit): the
	// target's wait status as a 4-byte little-endian value, then the
	// CLOCK_MONOTONIC time, in ns, that PID 1 reaped it (StatusStamp
	// bytes, little-endian).
	TargetStatus = 'S'
	StatusStamp  = 8
)

// StampAge is how long ago the helper took stamp, the CLOCK_MONOTONIC time
// (ns) that follows Ready or TargetStatus; ok is false when the stamp cannot be from this
// host's clock in the last minute.
func StampAge(stamp uint64) (age time.Duration, ok bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0, false
	}
	age = time.Duration(ts.Nano() - int64(stamp))
	return age, age >= 0 && age <= time.Minute
}

// MaxRequest bounds an encoded Request (DK_MAX_REQUEST in nsinit.h).
const MaxRequest = 16 << 20

// init is the backstop for a binary started with the helper's, the
// probe's or the zygote's argv[0]: the constructor in nsinit.c handles
// all three before the Go runtime starts and never returns, so reaching
// here means it did not run. The helper then fails its setup rather than
// start docket in the target's place.
func init() {
	switch os.Args[0] {
	case Arg0:
		os.NewFile(4, "status").Write([]byte("Ensinit: the C helper did not run (constructor not called)"))
		os.Exit(127)
	case ProbeArg0:
		os.Exit(0)
	case ZygoteArg0:
		os.Exit(127)
	}
}

// Request is everything the helper does, decided by the parent.
type Request struct {
	Argv     []string       `json:"argv"`
	Env      []string       `json:"env"`
	Dir      string         `json:"dir"`    // working directory inside the sandbox
	Rootfs   *mount.Rootfs  `json:"rootfs"` // nil: no new root (degraded level)
	Hostname string         `json:"host"`   // set when a new UTS namespace exists
	UID      int            `json:"uid"`    // -1: keep (user namespace)
	GID      int            `json:"gid"`
	Rlimits  []rlimit.Limit `json:"rlimits"`
	Seccomp  load.Programs  `json:"seccomp"` // nil: no filter (reported by the parent)
	// CgroupFDs is how many of the run's cgroup join files
	// (cgroup.JoinFiles), opened for writing, the helper has from
	// CgroupFD on: the target writes itself into each before it gives up
	// root.
	CgroupFDs int `json:"cgroup_fds"`
	// CgroupInto says the last of the CgroupFDs is the run group's
	// directory (cgroup v2), not a file to write: the helper starts the
	// target in the group (clone3 with CLONE_INTO_CGROUP), and the target
	// writes to the others only where the kernel refuses that. Either
	// way the target then unshares a cgroup namespace of its own, which
	// the helper does not have (cgroup.CloneDir says why).
	CgroupInto bool `json:"cgroup_into"`
	// NetNS says the helper has a network namespace to enter, on
	// NetNSFD(CgroupFDs), rather than one made for it.
	NetNS bool `json:"netns"`
}

// NetNSFD is where a helper with n cgroup join files finds the network
// namespace of Request.NetNS: right after them (dk_netns_fd in nsinit.h).
func NetNSFD(n int) int { return CgroupFD + n }

// CgroupFD is the first of a helper's cgroup join descriptors
// (DK_CGROUP_FD in nsinit.h); MaxCgroupFDs bounds how many (one per v1
// hierarchy: memory, pids, cpuacct, cpuset).
const (
	CgroupFD     = 6
	MaxCgroupFDs = 4
)

// Record tags (the same letters in nsinit.h).
const (
	tagArg     = 'A'
	tagEnv     = 'E'
	tagDir     = 'D'
	tagHost    = 'H'
	tagIDs     = 'U'
	tagRlimit  = 'L'
	tagSeccomp = 'S'
	tagFilter  = 'F'
	tagRootfs  = 'R'
	tagBind    = 'B'
	tagMask    = 'M'
	tagCgroups = 'G'
	tagNetNS   = 'N'
	tagInto    = 'C'
)

// Flag bits of the 'R' and 'B' records.
const (
	rootfsProc      = 1
	rootfsDevByBind = 2
	rootfsTemplate  = 4
	rootfsFDs       = 8
	rootfsSplit     = 16
	bindWritable    = 1
	bindOptional    = 2
)

const (
	maxFilterLen = math.MaxUint16 // sock_fprog.len is 16 bits
	insnSize     = 8              // sizeof(struct sock_filter)
	recordHeader = 5
)

// WriteRequest is the parent's half of the helper's request decoder: one
// write of the framed records.
func WriteRequest(w io.Writer, req *Request) error {
	b, err := encodeRequest(req)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// encodeRequest frames req as the helper's decoder reads it: a length,
// then one record per item, in the decoder's order.
func encodeRequest(req *Request) ([]byte, error) {
	e := &encoder{buf: make([]byte, 4, 4096)}
	for _, a := range req.Argv {
		e.str(tagArg, a)
	}
	for _, v := range req.Env {
		e.str(tagEnv, v)
	}
	if req.Dir != "" {
		e.str(tagDir, req.Dir)
	}
	if req.Hostname != "" {
		e.str(tagHost, req.Hostname)
	}
	e.record(tagIDs, 16)
	e.u64(uint64(int64(req.UID)))
	e.u64(uint64(int64(req.GID)))
	if req.CgroupFDs < 0 || req.CgroupFDs > MaxCgroupFDs {
		return nil, fmt.Errorf("nsinit: %d cgroup descriptors, at most %d", req.CgroupFDs, MaxCgroupFDs)
	}
	if req.CgroupFDs > 0 {
		e.record(tagCgroups, 1)
		e.buf = append(e.buf, byte(req.CgroupFDs))
	}
	if req.CgroupInto {
		if req.CgroupFDs < 2 {
			return nil, errors.New("nsinit: cgroup into without a directory")
		}
		e.record(tagInto, 0)
	}
	if req.NetNS {
		e.record(tagNetNS, 0)
	}
	if err := e.rlimits(req.Rlimits); err != nil {
		return nil, err
	}
	if err := e.seccomp(req.Seccomp); err != nil {
		return nil, err
	}
	if req.Rootfs != nil {
		e.rootfs(req.Rootfs)
	}
	if e.err != nil {
		return nil, e.err
	}
	n := len(e.buf) - 4
	if n > MaxRequest {
		return nil, fmt.Errorf("nsinit: request too large (%d bytes)", n)
	}
	binary.LittleEndian.PutUint32(e.buf[:4], uint32(n))
	return e.buf, nil
}

// rlimits writes one 'L' record per limit; a resource is 32 bits there.
func (e *encoder) rlimits(ls []rlimit.Limit) error {
	for _, l := range ls {
		if l.Resource < math.MinInt32 || l.Resource > math.MaxInt32 {
			return fmt.Errorf("nsinit: rlimit resource %d out of range", l.Resource)
		}
		e.record(tagRlimit, 20)
		e.u32(uint32(int32(l.Resource)))
		e.u64(l.Cur)
		e.u64(l.Max)
	}
	return nil
}

// seccomp writes the 'S' record (nil: no filter at all) and one 'F'
// record per program.
func (e *encoder) seccomp(progs load.Programs) error {
	if progs == nil {
		return nil
	}
	e.record(tagSeccomp, 0)
	for i, p := range progs {
		if len(p) > maxFilterLen {
			return fmt.Errorf("nsinit: seccomp filter %d has %d instructions, more than %d", i, len(p), maxFilterLen)
		}
		e.record(tagFilter, len(p)*insnSize)
		for _, in := range p {
			e.buf = binary.LittleEndian.AppendUint16(e.buf, in.Code)
			e.buf = append(e.buf, in.Jt, in.Jf)
			e.u32(in.K)
		}
	}
	return nil
}

// rootfs writes the 'R' record, then one 'B' per bind and one 'M' per mask.
func (e *encoder) rootfs(r *mount.Rootfs) {
	var flags byte
	if r.Proc {
		flags |= rootfsProc
	}
	if r.DevByBind {
		flags |= rootfsDevByBind
	}
	if r.Template {
		flags |= rootfsTemplate
	}
	if r.FromFDs {
		flags |= rootfsFDs
	}
	if r.Split {
		flags |= rootfsSplit
	}
	e.record(tagRootfs, 9+len(r.MountPoint))
	e.u64(uint64(r.TmpSize))
	e.buf = append(e.buf, flags)
	e.buf = append(e.buf, r.MountPoint...)
	for _, b := range r.Binds {
		flags = 0
		if b.Writable {
			flags |= bindWritable
		}
		if b.Optional {
			flags |= bindOptional
		}
		e.record(tagBind, 5+len(b.Source)+len(b.Target))
		e.buf = append(e.buf, flags)
		e.u32(uint32(len(b.Source)))
		e.buf = append(e.buf, b.Source...)
		e.buf = append(e.buf, b.Target...)
	}
	for _, m := range r.Masks {
		e.str(tagMask, m)
	}
}

type encoder struct {
	buf []byte
	err error
}

func (e *encoder) record(tag byte, n int) {
	if n > MaxRequest && e.err == nil {
		e.err = fmt.Errorf("nsinit: request too large (record '%c' of %d bytes)", tag, n)
	}
	e.buf = append(e.buf, tag)
	e.u32(uint32(n))
}

func (e *encoder) str(tag byte, s string) {
	e.record(tag, len(s))
	e.buf = append(e.buf, s...)
}

func (e *encoder) u32(v uint32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, v) }
func (e *encoder) u64(v uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, v) }

// decodeRequest parses the records of one Request: the wire format read
// in Go, which the tests hold the helper's decoder (dk_parse_request in
// request.c) to, check for check, in the same order, with the same
// messages (TestDecodersAgree, FuzzDecoders).
func decodeRequest(b []byte) (*Request, error) {
	req := &Request{UID: -1, GID: -1}
	var seenDir, seenHost, seenIDs, seenCgroups, seenNetNS, seenInto bool
	for off := 0; off < len(b); {
		left := len(b) - off
		if left < recordHeader {
			return nil, fmt.Errorf("record at byte %d: truncated header (%d bytes left)", off, left)
		}
		tag := b[off]
		if !knownTag(tag) {
			return nil, fmt.Errorf("record at byte %d: unknown tag 0x%02x", off, tag)
		}
		n := binary.LittleEndian.Uint32(b[off+1:])
		left -= recordHeader
		if uint64(n) > uint64(left) {
			return nil, fmt.Errorf("record at byte %d ('%c'): length %d exceeds the %d bytes left", off, tag, n, left)
		}
		p := b[off+recordHeader : off+recordHeader+int(n)]
		fail := func(format string, args ...any) error {
			return fmt.Errorf("record at byte %d ('%c'): %s", off, tag, fmt.Sprintf(format, args...))
		}
		str := func(s []byte) (string, error) {
			if bytes.IndexByte(s, 0) >= 0 {
				return "", fail("contains a NUL byte")
			}
			return string(s), nil
		}
		once := func(seen *bool) error {
			if *seen {
				return fail("repeated")
			}
			*seen = true
			return nil
		}
		exact := func(want int) error {
			if int(n) != want {
				return fail("length %d, want %d", n, want)
			}
			return nil
		}
		atLeast := func(want int) error {
			if int(n) < want {
				return fail("length %d, want at least %d", n, want)
			}
			return nil
		}
		after := func(ok bool, parent byte) error {
			if !ok {
				return fail("before its '%c' record", parent)
			}
			return nil
		}
		var err error
		switch tag {
		case tagArg, tagEnv:
			var s string
			if s, err = str(p); err == nil {
				if tag == tagArg {
					req.Argv = append(req.Argv, s)
				} else {
					req.Env = append(req.Env, s)
				}
			}
		case tagDir:
			if err = once(&seenDir); err == nil {
				req.Dir, err = str(p)
			}
		case tagHost:
			if err = once(&seenHost); err == nil {
				req.Hostname, err = str(p)
			}
		case tagIDs:
			if err = once(&seenIDs); err == nil {
				if err = exact(16); err == nil {
					req.UID = int(int64(binary.LittleEndian.Uint64(p)))
					req.GID = int(int64(binary.LittleEndian.Uint64(p[8:])))
				}
			}
		case tagCgroups:
			if err = once(&seenCgroups); err == nil {
				if err = exact(1); err == nil {
					if p[0] > MaxCgroupFDs {
						err = fail("%d cgroup descriptors, more than %d", p[0], MaxCgroupFDs)
					} else {
						req.CgroupFDs = int(p[0])
					}
				}
			}
		case tagNetNS:
			if err = once(&seenNetNS); err == nil {
				if err = exact(0); err == nil {
					req.NetNS = true
				}
			}
		case tagInto:
			if err = once(&seenInto); err == nil {
				if err = exact(0); err == nil {
					req.CgroupInto = true
				}
			}
		case tagRlimit:
			if err = exact(20); err == nil {
				req.Rlimits = append(req.Rlimits, rlimit.Limit{
					Resource: int(int32(binary.LittleEndian.Uint32(p))),
					Cur:      binary.LittleEndian.Uint64(p[4:]),
					Max:      binary.LittleEndian.Uint64(p[12:]),
				})
			}
		case tagSeccomp:
			seen := req.Seccomp != nil
			if err = once(&seen); err == nil {
				if err = exact(0); err == nil {
					req.Seccomp = load.Programs{}
				}
			}
		case tagFilter:
			if err = after(req.Seccomp != nil, tagSeccomp); err != nil {
				break
			}
			if n%insnSize != 0 {
				err = fail("length %d is not a multiple of %d", n, insnSize)
				break
			}
			if n/insnSize > maxFilterLen {
				err = fail("%d instructions, more than %d", n/insnSize, maxFilterLen)
				break
			}
			prog := make(load.Program, n/insnSize)
			for i := range prog {
				q := p[i*insnSize:]
				prog[i] = unix.SockFilter{Code: binary.LittleEndian.Uint16(q), Jt: q[2], Jf: q[3], K: binary.LittleEndian.Uint32(q[4:])}
			}
			req.Seccomp = append(req.Seccomp, prog)
		case tagRootfs:
			seen := req.Rootfs != nil
			if err = once(&seen); err != nil {
				break
			}
			if err = atLeast(9); err != nil {
				break
			}
			flags := p[8]
			if flags&^(rootfsProc|rootfsDevByBind|rootfsTemplate|rootfsFDs|rootfsSplit) != 0 {
				err = fail("unknown flags 0x%02x", flags)
				break
			}
			if flags&rootfsSplit != 0 && flags&rootfsFDs == 0 {
				err = fail("split space without its descriptors")
				break
			}
			r := &mount.Rootfs{
				TmpSize:   int64(binary.LittleEndian.Uint64(p)),
				Proc:      flags&rootfsProc != 0,
				DevByBind: flags&rootfsDevByBind != 0,
				Template:  flags&rootfsTemplate != 0,
				FromFDs:   flags&rootfsFDs != 0,
				Split:     flags&rootfsSplit != 0,
			}
			if r.MountPoint, err = str(p[9:]); err == nil {
				req.Rootfs = r
			}
		case tagBind:
			if err = after(req.Rootfs != nil, tagRootfs); err != nil {
				break
			}
			if err = atLeast(5); err != nil {
				break
			}
			flags := p[0]
			if flags&^(bindWritable|bindOptional) != 0 {
				err = fail("unknown flags 0x%02x", flags)
				break
			}
			sn := binary.LittleEndian.Uint32(p[1:])
			if uint64(sn) > uint64(n-5) {
				err = fail("source length %d exceeds the %d bytes left", sn, n-5)
				break
			}
			bd := mount.Bind{Writable: flags&bindWritable != 0, Optional: flags&bindOptional != 0}
			if bd.Source, err = str(p[5 : 5+sn]); err != nil {
				break
			}
			if bd.Target, err = str(p[5+sn:]); err != nil {
				break
			}
			req.Rootfs.Binds = append(req.Rootfs.Binds, bd)
		case tagMask:
			if err = after(req.Rootfs != nil, tagRootfs); err != nil {
				break
			}
			var s string
			if s, err = str(p); err == nil {
				req.Rootfs.Masks = append(req.Rootfs.Masks, s)
			}
		}
		if err != nil {
			return nil, err
		}
		off += recordHeader + int(n)
	}
	if len(req.Argv) == 0 {
		return nil, errors.New("empty argv")
	}
	if req.CgroupInto && req.CgroupFDs < 2 {
		return nil, errors.New("cgroup into without a directory")
	}
	return req, nil
}

func knownTag(t byte) bool {
	switch t {
	case tagArg, tagEnv, tagDir, tagHost, tagIDs, tagRlimit, tagSeccomp, tagFilter, tagRootfs, tagBind, tagMask, tagCgroups, tagNetNS, tagInto:
		return true
	}
	return false
}
