package mount

import (
	"errors"
	"testing"

	"github.com/docketjudge/docket/sandbox/mount/mounttest"
	"golang.org/x/sys/unix"
)

// The Go helper's bind, held to the test of the C helper's
// (sandbox/nsinit TestBindSubmountsC).
func TestBindSubmounts(t *testing.T) {
	mounttest.Test(t, "TestBindSubmounts", func(root, src, target string, writable, fallback bool) error {
		taken := false
		if fallback {
			mountSetattr = func(int, string, uint, *unix.MountAttr) error { taken = true; return unix.ENOSYS }
			defer func() { mountSetattr = unix.MountSetattr }()
		}
		if err := bind(root, Bind{Source: src, Target: target, Writable: writable}); err != nil {
			return err
		}
		if fallback && !taken {
			return errors.New("bind did not call mount_setattr")
		}
		return nil
	})
}
