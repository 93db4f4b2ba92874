//go:build cgo

package nsinit

import (
	"testing"

	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/mount/mounttest"
)

// The C helper's bind against host mounts below its source (the test is
// in sandbox/mount/mounttest).
func TestBindSubmountsC(t *testing.T) {
	mounttest.Test(t, "TestBindSubmountsC", func(root, src, target string, writable, fallback bool) error {
		return bindC(root, mount.Bind{Source: src, Target: target, Writable: writable}, fallback)
	})
}
