// Package mount builds a sandboxed run's filesystem: a new root on a
// private tmpfs holding read-only bind mounts of the system and language
// directories (read-only, nosuid and nodev down to every host mount below
// them), the writable box, a size-limited /tmp, a fresh /proc and a
// minimal /dev, then pivot_root into it. It runs in the sandbox helper,
// inside a new mount namespace, before the uid switch.
//
// The types (Bind, Rootfs, Devices) are how the parent describes the root
// in every build. Build itself only runs in the pure-Go helper of builds
// without cgo: the normal, cgo build does the same in C before the Go
// runtime starts (sandbox/nsinit/rootfs.c, which follows this file step
// for step and must be changed with it).
package mount

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Bind is one host path made visible inside the sandbox.
type Bind struct {
	Source   string `json:"src"`
	Target   string `json:"dst"` // absolute path inside the sandbox; default Source
	Writable bool   `json:"rw,omitempty"`
	Optional bool   `json:"opt,omitempty"` // a missing Source is skipped instead of failing
}

// Rootfs is everything the helper needs to build the new root.
type Rootfs struct {
	MountPoint string `json:"mp"`   // empty host directory the new root's tmpfs goes on
	Binds      []Bind `json:"b"`    // read-only unless Writable; the box is one of them
	TmpSize    int64  `json:"tmp"`  // bytes; 0: 16 MiB
	Proc       bool   `json:"proc"` // mount a fresh /proc (needs a new pid namespace)
	// DevByBind bind-mounts the host's device nodes instead of mknod, for
	// a user namespace, where mknod is not allowed.
	DevByBind bool `json:"devbind,omitempty"`
	// Masks are host paths hidden behind an empty read-only file when a
	// bind makes them visible (the worker's own binary under /usr/local).
	Masks []string `json:"masks,omitempty"`
	// Template: the root is a copy of the zygote's template root, on which
	// the helper mounts only Binds (the box), /tmp and /proc. Only the C
	// helper, forked by the zygote, builds such a root.
	Template bool `json:"template,omitempty"`
	// FromFDs: the box and /tmp are the directories box and tmp of the
	// run's space, a detached tmpfs the parent made (the run's bounded
	// writable space) on descriptor SpaceFD, instead of a box bind and a
	// /tmp of TmpSize.
	FromFDs bool `json:"fds,omitempty"`
}

// SpaceFD is where a helper finds the run's space with FromFDs.
const SpaceFD = 5

// Devices are the only device nodes a target sees.
var Devices = []struct {
	Name         string
	Major, Minor uint32
}{{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}}

// Stage names where a setup failed, for the SE message and the debug log.
type Error struct {
	Stage string
	Err   error
}

func (e *Error) Error() string { return "rootfs " + e.Stage + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func fail(stage string, err error) error { return &Error{Stage: stage, Err: err} }

// Build creates the new root and pivots into it. The caller's cwd is "/"
// afterwards.
func Build(r Rootfs) error {
	if r.Template {
		return fail("template", errors.New("a template root needs the zygote (a cgo build)"))
	}
	// Nothing done here may reach the host's mount table.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fail("make / private", err)
	}
	root := r.MountPoint
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=1m,nr_inodes=4096,mode=0755"); err != nil {
		return fail("mount root tmpfs", err)
	}
	for _, b := range r.Binds {
		if err := bind(root, b); err != nil {
			return err
		}
	}
	for _, m := range r.Masks {
		if err := mask(root, m); err != nil {
			return err
		}
	}
	if r.FromFDs {
		if err := attachSpace(root); err != nil {
			return err
		}
	} else if err := mountTmp(root, r.TmpSize); err != nil {
		return err
	}
	if r.Proc {
		if err := os.MkdirAll(root+"/proc", 0o555); err != nil {
			return fail("mkdir /proc", err)
		}
		if err := unix.Mount("proc", root+"/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fail("mount /proc", err)
		}
	}
	if err := dev(root, r.DevByBind); err != nil {
		return err
	}
	if err := os.Mkdir(root+"/.oldroot", 0o700); err != nil {
		return fail("mkdir .oldroot", err)
	}
	if err := unix.PivotRoot(root, root+"/.oldroot"); err != nil {
		return fail("pivot_root", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return fail("chdir /", err)
	}
	if err := unix.Unmount("/.oldroot", unix.MNT_DETACH); err != nil {
		return fail("detach old root", err)
	}
	if err := os.Remove("/.oldroot"); err != nil {
		return fail("remove .oldroot", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fail("remount / read-only", err)
	}
	return nil
}

// attachSpace puts the run's space (on SpaceFD) onto root/box and
// root/tmp. The tmpfs is attached first, at root/tmp, and its two
// directories cloned from there: a kernel such as Debian 12's 6.1 clones
// (open_tree) a mount of the caller's own namespace only, never a
// detached one (EINVAL). Then the whole tmpfs is detached again, and the
// run sees its two directories and nothing else of it.
func attachSpace(root string) error {
	for _, dir := range []string{"/box", "/tmp"} {
		if err := os.MkdirAll(root+dir, 0o755); err != nil {
			return fail("mkdir "+dir, err)
		}
	}
	staging := root + "/tmp"
	if err := unix.MoveMount(SpaceFD, "", unix.AT_FDCWD, staging, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fail("attach space", err)
	}
	unix.Close(SpaceFD)
	clones := make([]int, 0, 2)
	for _, name := range []string{"box", "tmp"} {
		fd, err := unix.OpenTree(unix.AT_FDCWD, staging+"/"+name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			return fail("clone "+name, err)
		}
		clones = append(clones, fd)
	}
	if err := unix.Unmount(staging, unix.MNT_DETACH); err != nil {
		return fail("detach space", err)
	}
	for i, dir := range []string{"/box", "/tmp"} {
		err := unix.MoveMount(clones[i], "", unix.AT_FDCWD, root+dir, unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(clones[i])
		if err != nil {
			return fail("attach "+dir, err)
		}
	}
	return nil
}

func mountTmp(root string, size int64) error {
	if size <= 0 {
		size = 16 << 20
	}
	if err := os.MkdirAll(root+"/tmp", 0o755); err != nil {
		return fail("mkdir /tmp", err)
	}
	if err := unix.Mount("tmpfs", root+"/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV,
		fmt.Sprintf("size=%d,nr_inodes=16384,mode=1777", size)); err != nil {
		return fail("mount /tmp", err)
	}
	return nil
}

func bind(root string, b Bind) error {
	dst := b.Target
	if dst == "" {
		dst = b.Source
	}
	if !filepath.IsAbs(dst) || strings.Contains(dst, "..") {
		//lint:ignore ST1005 ".." is the path element named, not punctuation
		return fail("bind "+dst, errors.New("target must be an absolute path without .."))
	}
	st, err := os.Lstat(b.Source)
	if err != nil {
		if b.Optional && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fail("bind "+b.Source, err)
	}
	full := root + dst
	if st.Mode()&os.ModeSymlink != 0 {
		// /lib -> usr/lib on merged-/usr systems: recreate the link rather
		// than mount what it points to (one syscall instead of three).
		link, err := os.Readlink(b.Source)
		if err != nil {
			return fail("readlink "+b.Source, err)
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fail("mkdir "+dst, err)
		}
		if err := os.Symlink(link, full); err != nil && !errors.Is(err, os.ErrExist) {
			return fail("symlink "+dst, err)
		}
		return nil
	}
	if st.IsDir() {
		err = os.MkdirAll(full, 0o755)
	} else {
		err = os.MkdirAll(filepath.Dir(full), 0o755)
		if err == nil {
			var f *os.File
			f, err = os.OpenFile(full, os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				f.Close()
			}
		}
	}
	if err != nil {
		return fail("mkdir "+dst, err)
	}
	if err := unix.Mount(b.Source, full, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fail("bind "+b.Source, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_NOSUID | unix.MS_NODEV)
	if !b.Writable {
		flags |= unix.MS_RDONLY
	}
	if err := unix.Mount("", full, "", flags, ""); err != nil {
		return fail("remount "+dst, err)
	}
	// Nor does it change the host's mounts below the source, which
	// MS_REC brought along with their own flags.
	if err := restrictTree(full, b.Writable); err != nil {
		return fail("remount "+dst, err)
	}
	return nil
}

func dev(root string, byBind bool) error {
	d := root + "/dev"
	if err := os.MkdirAll(d, 0o755); err != nil {
		return fail("mkdir /dev", err)
	}
	// No MS_NODEV here: the nodes below must work. No MS_NOEXEC either is
	// needed, but nothing executable lives in /dev, so add it.
	if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "size=64k,nr_inodes=64,mode=0755"); err != nil {
		return fail("mount /dev", err)
	}
	for _, n := range Devices {
		p := d + "/" + n.Name
		if byBind {
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o666)
			if err != nil {
				return fail("create /dev/"+n.Name, err)
			}
			f.Close()
			if err := unix.Mount("/dev/"+n.Name, p, "", unix.MS_BIND, ""); err != nil {
				return fail("bind /dev/"+n.Name, err)
			}
			// The bind has the host's /dev flags: read-only and nosuid
			// like every mount of the root (a device is written through
			// a read-only mount all the same).
			if err := unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, ""); err != nil {
				return fail("remount /dev/"+n.Name, err)
			}
			continue
		}
		if err := unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(n.Major, n.Minor))); err != nil {
			return fail("mknod /dev/"+n.Name, err)
		}
		// mknod applies the umask; the nodes must be usable by everyone.
		if err := unix.Chmod(p, 0o666); err != nil {
			return fail("chmod /dev/"+n.Name, err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0",
		"stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, d+"/"+name); err != nil {
			return fail("symlink /dev/"+name, err)
		}
	}
	// Only this mount: bound nodes are mounts of their own, read-only
	// already.
	if err := unix.Mount("", d, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, ""); err != nil {
		return fail("remount /dev read-only", err)
	}
	return nil
}

// mask covers root+path, if a bind made it visible, with /dev/null.
func mask(root, path string) error {
	st, err := os.Stat(root + path)
	if err != nil || st.IsDir() {
		return nil
	}
	if err := unix.Mount("/dev/null", root+path, "", unix.MS_BIND, ""); err != nil {
		return fail("mask "+path, err)
	}
	if err := unix.Mount("", root+path, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fail("mask "+path, err)
	}
	return nil
}
