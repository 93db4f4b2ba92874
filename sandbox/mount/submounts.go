package mount

// The binds' submounts. A bind is recursive (MS_REC): the host's mounts
// below its source (a separate /usr/local, a volume under /usr/share, a
// mount inside a box) come with it, each with its own flags, which the
// remount of the bind does not change. Left so, a run could write there
// for the next run, or run a setuid program or open a device node placed
// there from outside. restrictTree makes every mount of the bound tree
// nosuid and nodev, and read-only unless the bind is writable: with
// mount_setattr (Linux 5.12) in one call, else by one remount per
// submount. sandbox/nsinit/submounts.c is the C helper's twin of this
// file, step for step and message for message.

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// mountSetattr is mount_setattr(2); the tests replace it with one that
// fails as on a kernel without it (dk_no_mount_setattr in C).
var mountSetattr = unix.MountSetattr

// restrictTree makes every mount at and below full, a bind's mount point,
// nosuid, nodev and, unless writable, read-only.
func restrictTree(full string, writable bool) error {
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
	if !writable {
		attr.Attr_set |= unix.MOUNT_ATTR_RDONLY
	}
	// Only sets flags: what else a submount has (noexec, its atime
	// flags) stays.
	err := mountSetattr(unix.AT_FDCWD, full, unix.AT_RECURSIVE, &attr)
	if err == nil {
		return nil
	}
	// ENOSYS: a kernel before 5.12. EPERM: a container's seccomp profile
	// older than the call (Docker's before 20.10); if privilege is what is
	// missing, the remounts fail too and say so.
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
		return os.NewSyscallError("mount_setattr", err)
	}
	return remountSubmounts(full, writable)
}

// Mountinfo is one line of /proc/<pid>/mountinfo, the fields the new
// root's checks use.
type Mountinfo struct {
	ID, Parent int
	Point      string   // the mount point, unescaped
	Options    []string // the mount's own options: "ro" or "rw", "nosuid", "relatime"...
}

// ParseMountinfo parses the text of a mountinfo file. Lines without the
// six leading fields, or with ids that are not numbers, are skipped.
func ParseMountinfo(text string) []Mountinfo {
	var out []Mountinfo
	for _, line := range strings.Split(text, "\n") {
		// "id parent major:minor root point options ..."
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		id, err1 := strconv.Atoi(f[0])
		parent, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, Mountinfo{ID: id, Parent: parent, Point: unescape(f[4]), Options: strings.Split(f[5], ",")})
	}
	return out
}

// unescape undoes the kernel's octal escapes ("\040" for a space).
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' &&
			s[i+2] >= '0' && s[i+2] <= '7' && s[i+3] >= '0' && s[i+3] <= '7' {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// keepFlags is what a remount must keep of a mount's flags: read-only (a
// read-only mount below a writable bind stays so), noexec and nosymfollow.
// In a user namespace the kernel locks the flags of the mounts it was
// given, and a remount that would clear a locked one fails with EPERM; the
// atime flags, locked too, are kept by any bind remount that names none
// (Linux 3.17).
func keepFlags(opts []string) uintptr {
	var keep uintptr
	for _, o := range opts {
		switch o {
		case "ro":
			keep |= unix.MS_RDONLY
		case "noexec":
			keep |= unix.MS_NOEXEC
		case "nosymfollow":
			keep |= unix.MS_NOSYMFOLLOW
		}
	}
	return keep
}

// fdMountID is the id of the mount fd is on (mnt_id in its fdinfo,
// Linux 3.15).
func fdMountID(fd int, path string) (int, error) {
	in, err := unix.Open("/proc/self/fdinfo/"+strconv.Itoa(fd), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("mount id of %s: %w", path, err)
	}
	b := make([]byte, 4096)
	n, err := unix.Read(in, b[:len(b)-1])
	unix.Close(in)
	if err != nil {
		return 0, fmt.Errorf("mount id of %s: %w", path, err)
	}
	for _, line := range strings.Split(string(b[:n]), "\n") {
		if v, ok := strings.CutPrefix(line, "mnt_id:"); ok {
			id, _ := strconv.Atoi(strings.TrimSpace(v))
			return id, nil
		}
	}
	return 0, fmt.Errorf("mount id of %s: no mnt_id in fdinfo", path)
}

// pathMountID is the id of the mount at path (the top one there).
func pathMountID(path string) (int, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	return fdMountID(fd, path)
}

// remountOne remounts a submount through a descriptor of its root: only
// if its mount point still leads to it. One that a later mount over its
// own mount point or a parent directory hides is out of the run's reach
// too (the run cannot unmount what hides it), and is left as it is.
func remountOne(m Mountinfo, writable bool) error {
	fd, err := unix.Open(m.Point, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: m.Point, Err: err}
	}
	defer unix.Close(fd)
	id, err := fdMountID(fd, m.Point)
	if err != nil || id != m.ID {
		return err
	}
	flags := unix.MS_BIND | unix.MS_REMOUNT | unix.MS_NOSUID | unix.MS_NODEV | keepFlags(m.Options)
	if !writable {
		flags |= unix.MS_RDONLY
	}
	if err := unix.Mount("", "/proc/self/fd/"+strconv.Itoa(fd), "", flags, ""); err != nil {
		return &os.PathError{Op: "remount", Path: m.Point, Err: err}
	}
	return nil
}

// remountSubmounts is the fallback: the bind's submounts are the mounts
// below its top one in /proc/self/mountinfo (found by their parents: a
// path prefix would also take earlier binds that this one hides), each
// remounted on its own.
func remountSubmounts(full string, writable bool) error {
	top, err := pathMountID(full)
	if err != nil {
		return err
	}
	// This thread's mount namespace: the helper's threads share the
	// process's, the tests give a thread one of its own.
	text, err := os.ReadFile("/proc/thread-self/mountinfo")
	if err != nil {
		return err
	}
	m := ParseMountinfo(string(text))
	below := make([]bool, len(m))
	for i := range m {
		below[i] = m[i].ID == top
	}
	// Until nothing changes: a parent may be listed after its child.
	for changed := true; changed; {
		changed = false
		for i := range m {
			for j := 0; j < len(m) && !below[i]; j++ {
				if below[j] && m[i].Parent == m[j].ID {
					below[i], changed = true, true
				}
			}
		}
	}
	for i := range m {
		if below[i] && m[i].ID != top {
			if err := remountOne(m[i], writable); err != nil {
				return err
			}
		}
	}
	return nil
}
