package nsinit

import (
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/sandbox/mount"
)

// A /dev of bound host nodes, the one a user namespace gets (it may not
// mknod), built here as root for the same steps: /dev and each node are
// read-only and nosuid like every mount of the root, and the nodes work.
func TestHelperDevByBind(t *testing.T) {
	if os.Geteuid() != 0 || !testguard.Guarded() {
		t.Skip("needs root, inside the test guard's mount namespace")
	}
	var binds []mount.Bind
	for _, d := range []string{"/bin", "/lib", "/lib64", "/usr"} {
		binds = append(binds, mount.Bind{Source: d, Optional: true})
	}
	req := &Request{
		Argv: []string{"/bin/sh", "-c", `cat /proc/self/mountinfo
echo x >/dev/null && echo null works
touch /dev/x 2>/dev/null || echo dev read-only`},
		Env: []string{"PATH=/usr/bin:/bin"}, Dir: "/", UID: -1, GID: -1,
		Rootfs: &mount.Rootfs{MountPoint: t.TempDir(), Binds: binds, Proc: true, DevByBind: true},
	}
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID}
	run := runHelper(t, encode(t, req), attr)
	if run.setup != "R" || run.exit != 0 || !strings.HasSuffix(run.stdout, "null works\ndev read-only\n") {
		t.Fatalf("got %+v", run)
	}
	var dev []string
	for _, m := range mount.ParseMountinfo(run.stdout) {
		if m.Point != "/dev" && !strings.HasPrefix(m.Point, "/dev/") {
			continue
		}
		dev = append(dev, m.Point)
		if !slices.Contains(m.Options, "ro") || !slices.Contains(m.Options, "nosuid") {
			t.Errorf("%s: %s, want ro and nosuid", m.Point, strings.Join(m.Options, ","))
		}
	}
	if want := []string{"/dev", "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}; !slices.Equal(dev, want) {
		t.Errorf("mounts of /dev: %q, want %q", dev, want)
	}
}
