// Package load holds the assembled seccomp filters as the request to the
// sandbox helper carries them (sandbox/nsinit); the helper loads them in C
// (sandbox/nsinit/seccomp.c). It is apart from package seccomp, which
// hands them out, and from seccomp/policy, which assembles them with
// go-seccomp-bpf, so that the helper's wire format depends on neither.
//
// It must not import any other package of docket's.
package load

import "golang.org/x/sys/unix"

// Program is one assembled filter.
type Program []unix.SockFilter

// Programs is a stack of filters, installed in order.
type Programs []Program
