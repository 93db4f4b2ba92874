//go:build !cgo

// docket requires cgo: the sandbox helper is C (nsinit.c), run by a
// constructor before the Go runtime starts, and there is no other. A
// build without cgo (CGO_ENABLED=0) stops here, at compile time, with the
// reason as the undefined name below (docs/sandbox.md, "PID 1 and the
// target").

package nsinit

var _ = docket_requires_cgo_see_docs_sandbox_md
