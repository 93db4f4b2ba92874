// Package mounttest holds the test of the helper's bind (rootfs.c
// bind_one, called by sandbox/nsinit TestBindSubmountsC) against host
// mounts below the bound directory: with mount_setattr and with the
// fallback of a kernel without it, as root and in a user namespace, where
// the kernel locks the flags of the mounts it was given.
//
// It must not import any of docket's packages but internal/testguard; only
// tests import it.
package mounttest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/docketjudge/docket/internal/testguard"
	"golang.org/x/sys/unix"
)

// BindFunc binds src at target in the new root on root, as the helper's
// build does; fallback makes it take the way of a kernel without
// mount_setattr.
type BindFunc func(root, src, target string, writable, fallback bool) error

// envCase carries a case and the source into the child that runs it in a
// user namespace: "fallback,writable,source".
const envCase = "DOCKET_MOUNTTEST_CASE"

type testCase struct{ fallback, writable bool }

var cases = []testCase{{false, false}, {false, true}, {true, false}, {true, true}}

func (c testCase) String() string {
	s := "mount_setattr"
	if c.fallback {
		s = "fallback"
	}
	if c.writable {
		return s + ",writable"
	}
	return s + ",read-only"
}

// Test is the whole test; name is the calling test's, which the user
// namespace cases run again in a child process.
func Test(t *testing.T, name string, bind BindFunc) {
	if v := os.Getenv(envCase); v != "" {
		child(t, v, bind)
		return
	}
	if os.Geteuid() != 0 || !testguard.Guarded() {
		t.Skip("needs root, inside the test guard's mount namespace")
	}
	src := source(t)
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			root := t.TempDir()
			if err := inNamespace(func() error { return bindAndCheck(root, src, c, bind) }); err != nil {
				t.Error(err)
			}
		})
		t.Run(c.String()+",userns", func(t *testing.T) {
			unshare, err := exec.LookPath("unshare")
			if err != nil {
				t.Skip("no unshare(1) to start the test in a user namespace")
			}
			// Root of the new user namespace is root, as docket's helper
			// is; the mount namespace's mounts are locked.
			wrap := []string{unshare, "--user", "--map-root-user", "--mount"}
			env := fmt.Sprintf("%s=%t,%t,%s", envCase, c.fallback, c.writable, src)
			out, err := testguard.Rerun("^"+name+"$", wrap, env)
			if err != nil || !strings.Contains(string(out), childDone) {
				t.Errorf("in a user namespace: %v\n%s", err, out)
			}
		})
	}
}

// child runs one case, in the user namespace its parent made.
func child(t *testing.T, v string, bind BindFunc) {
	f := strings.SplitN(v, ",", 3)
	if len(f) != 3 {
		t.Fatalf("%s=%q", envCase, v)
	}
	fallback, _ := strconv.ParseBool(f[0])
	writable, _ := strconv.ParseBool(f[1])
	root := t.TempDir()
	if err := inNamespace(func() error { return bindAndCheck(root, f[2], testCase{fallback, writable}, bind) }); err != nil {
		t.Fatal(err)
	}
	fmt.Println(childDone)
}

// childDone tells the parent that the case ran (a -test.run pattern that
// matches nothing passes too).
const childDone = "mounttest: the case passed in a user namespace"

// source makes, in the guard's mount namespace, a tmpfs with mounts below
// it as a host might have them: sub, with none of ro, nosuid, nodev and a
// device node (null, 1:3); sub/x, read-only, noexec and noatime (flags the
// bind must keep: in a user namespace they are locked); hid/inner, hidden
// by a later mount on hid. All are gone at the end of the test.
func source(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mnt := func(rel string, flags uintptr) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mount("tmpfs", p, "tmpfs", flags, "size=1m,mode=0777"); err != nil {
			t.Fatal(err)
		}
	}
	mnt("", 0)
	// Detaching the top detaches all: before the directory goes.
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	mnt("sub", 0)
	if err := unix.Mknod(dir+"/sub/null", unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Fatal(err)
	}
	mnt("sub/x", unix.MS_RDONLY|unix.MS_NOEXEC|unix.MS_NOATIME)
	mnt("hid/inner", 0)
	mnt("hid", 0)
	return dir
}

// inNamespace runs f on a thread of its own in a new private mount
// namespace. The thread is never unlocked: it ends with the goroutine,
// and nothing else ever runs in that namespace.
func inNamespace(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			errc <- fmt.Errorf("unshare: %w", err)
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			errc <- fmt.Errorf("make / private: %w", err)
			return
		}
		errc <- f()
	}()
	return <-errc
}

// bindAndCheck builds a root on a tmpfs at root, as the helper does,
// binds src at /b in it and checks the bound tree.
func bindAndCheck(root, src string, c testCase, bind BindFunc) error {
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=1m,mode=0755"); err != nil {
		return fmt.Errorf("root tmpfs: %w", err)
	}
	if err := bind(root, src, "/b", c.writable, c.fallback); err != nil {
		return fmt.Errorf("bind: %w", err)
	}
	return check(root+"/b", c.writable)
}

// check holds the bound tree at b to its flags and what they must stop.
func check(b string, writable bool) error {
	var errs []error
	for _, w := range []struct {
		path       string
		ro, noexec bool
		more       uint64
	}{
		{b, !writable, false, 0},
		{b + "/sub", !writable, false, 0},
		{b + "/sub/x", true, true, unix.ST_NOATIME},
		{b + "/hid", !writable, false, 0},
	} {
		var st unix.Statfs_t
		if err := unix.Statfs(w.path, &st); err != nil {
			errs = append(errs, err)
			continue
		}
		want := uint64(unix.ST_NOSUID|unix.ST_NODEV) | w.more
		if w.ro {
			want |= unix.ST_RDONLY
		}
		if w.noexec {
			want |= unix.ST_NOEXEC
		}
		const mask = unix.ST_RDONLY | unix.ST_NOSUID | unix.ST_NODEV | unix.ST_NOEXEC | unix.ST_NOATIME
		if got := uint64(st.Flags) & mask; got != want {
			errs = append(errs, fmt.Errorf("%s: mount flags %#x, want %#x", w.path, got, want))
		}
	}
	if _, err := os.OpenFile(b+"/sub/null", os.O_RDWR, 0); !errors.Is(err, unix.EACCES) {
		errs = append(errs, fmt.Errorf("open the device node below the bind: %v, want permission denied", err))
	}
	f, err := os.Create(b + "/sub/new")
	switch {
	case writable && err != nil:
		errs = append(errs, fmt.Errorf("writable bind: %w", err))
	case !writable && !errors.Is(err, unix.EROFS):
		errs = append(errs, fmt.Errorf("create below a read-only bind: %v, want read-only file system", err))
	}
	if err == nil {
		f.Close()
		os.Remove(b + "/sub/new")
	}
	if _, err := os.Stat(b + "/hid/inner"); !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("the hidden mount: %v, want it still hidden", err))
	}
	return errors.Join(errs...)
}
