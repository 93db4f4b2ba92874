//go:build cgo

package nsinit

/*
#cgo CFLAGS: -O2 -std=gnu11 -Wall -Wextra -Wno-unused-parameter
#include <stdlib.h>
#include "nsinit.h"
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/rlimit"
	"github.com/docketjudge/docket/sandbox/seccomp/load"
	"golang.org/x/sys/unix"
)

// TargetIsChildOfInit is true: the C helper stays as PID 1 of the run's
// pid namespace and forks the target, which is PID 2. After Ready the
// status pipe carries framed records: ExecError with a 4-byte length and
// the message, then TargetStatus with the 4-byte wait status and the
// time PID 1 reaped the target (StatusStamp).
const TargetIsChildOfInit = true

// The C side's limits must be the Go side's.
var (
	_ [MaxTemplates - C.DK_MAX_TEMPLATES]byte
	_ [C.DK_MAX_TEMPLATES - MaxTemplates]byte
	_ [maxZygoteMessage - C.DK_ZYGOTE_MAX_MSG]byte
	_ [C.DK_ZYGOTE_MAX_MSG - maxZygoteMessage]byte
)

// boxDirC is DK_BOX_DIR, for the test that holds it to BoxDir.
var boxDirC = C.GoString(C.dk_box_dir())

// The C side's constants must be the Go side's.
var (
	_ [MaxRequest - C.DK_MAX_REQUEST]byte
	_ [C.DK_MAX_REQUEST - MaxRequest]byte
)

// decodeRequestC runs the C decoder (request.c) on b and converts its
// result back to a Request, for the tests that hold it to decodeRequest.
func decodeRequestC(b []byte) (*Request, error) {
	buf := C.CBytes(b)
	defer C.free(buf)
	var r C.struct_dk_request
	if C.dk_parse_request((*C.uchar)(buf), C.size_t(len(b)), &r) < 0 {
		msg := "out of memory"
		if C.dk_errmsg != nil {
			msg = C.GoString(C.dk_errmsg)
		}
		return nil, errors.New(msg)
	}
	defer C.dk_free_request(&r)
	strs := func(p **C.char, n C.size_t) []string {
		if n == 0 {
			return nil
		}
		out := make([]string, n)
		for i, s := range unsafe.Slice(p, n) {
			out[i] = C.GoString(s)
		}
		return out
	}
	req := &Request{
		Argv:       strs(r.argv, r.argc),
		Env:        strs(r.envp, r.envc),
		Dir:        C.GoString(r.dir),
		Hostname:   C.GoString(r.hostname),
		UID:        int(r.uid),
		GID:        int(r.gid),
		CgroupFDs:  int(r.ncgroup_fds),
		NetNS:      r.netns != 0,
		CgroupInto: r.cgroup_into != 0,
	}
	for _, l := range unsafe.Slice(r.rlimits, r.nrlimits) {
		req.Rlimits = append(req.Rlimits, rlimit.Limit{Resource: int(l.resource), Cur: uint64(l.cur), Max: uint64(l.max)})
	}
	if r.has_seccomp != 0 {
		req.Seccomp = load.Programs{}
		for _, fp := range unsafe.Slice(r.filters, r.nfilters) {
			prog := make(load.Program, fp.len)
			for i, in := range unsafe.Slice(fp.filter, fp.len) {
				prog[i] = unix.SockFilter{Code: uint16(in.code), Jt: uint8(in.jt), Jf: uint8(in.jf), K: uint32(in.k)}
			}
			req.Seccomp = append(req.Seccomp, prog)
		}
	}
	if r.has_rootfs != 0 {
		fs := &r.rootfs
		req.Rootfs = &mount.Rootfs{
			MountPoint: C.GoString(fs.mount_point),
			TmpSize:    int64(fs.tmp_size),
			Proc:       fs.proc != 0,
			DevByBind:  fs.dev_by_bind != 0,
			Template:   fs.template != 0,
			FromFDs:    fs.fds != 0,
			Split:      fs.split != 0,
			Masks:      strs((**C.char)(unsafe.Pointer(fs.masks)), fs.nmasks),
		}
		for _, b := range unsafe.Slice(fs.binds, fs.nbinds) {
			req.Rootfs.Binds = append(req.Rootfs.Binds, mount.Bind{
				Source: C.GoString(b.src), Target: C.GoString(b.dst),
				Writable: b.writable != 0, Optional: b.optional != 0,
			})
		}
	}
	return req, nil
}

// bindC runs the C helper's bind (rootfs.c bind_one) in the calling
// thread's mount namespace, with mount_setattr or, with fallback, the way
// of a kernel without it: for the test that holds it to mount's.
func bindC(root string, b mount.Bind, fallback bool) error {
	var strs []*C.char
	str := func(s string) *C.char {
		p := C.CString(s)
		strs = append(strs, p)
		return p
	}
	defer func() {
		for _, p := range strs {
			C.free(unsafe.Pointer(p))
		}
	}()
	cb := C.struct_dk_bind{src: str(b.Source), dst: str(b.Target)}
	if b.Writable {
		cb.writable = 1
	}
	if b.Optional {
		cb.optional = 1
	}
	if fallback {
		C.dk_no_mount_setattr = 1
		defer func() { C.dk_no_mount_setattr = 0 }()
	}
	if C.dk_bind_one(str(root), &cb) < 0 {
		msg := "out of memory"
		if C.dk_errmsg != nil {
			msg = C.GoString(C.dk_errmsg)
		}
		return errors.New(msg)
	}
	return nil
}
