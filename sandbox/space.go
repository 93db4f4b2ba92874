package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// A run's writable space: /box and /tmp, two directories of one tmpfs
// that the parent makes for the run and hands the helper as a detached
// mount (mount.SpaceFD; the helper attaches the two directories). Why a
// tmpfs of the run's own, and not the host directory:
//
//   - Its size and inode count are the run's disk limits (Limits.Disk,
//     Limits.DiskInodes): a program that ignores SIGXFSZ and writes file
//     after file gets ENOSPC, and the run ends OLE "disk" (a watchdog
//     polls the usage, and Wait checks it once more).
//   - Nothing of it reaches the host's disk, and nothing of it remains:
//     it belongs to no mount table (fsmount makes it detached; docket
//     holds it by a descriptor), so even a crash of docket frees it.
//   - A run sees no host path: its mounts show the tmpfs's own paths
//     (/box, /tmp), never the box's directory on the host.
//   - Pages the target writes there are charged to the run's memory
//     cgroup, as any tmpfs page is charged to the cgroup of the writer:
//     /tmp cannot be used to exceed the memory limit unseen. What docket
//     copies in (the program) is charged to docket.
//
// Cmd.Box, a host directory, keeps its meaning: its contents are copied
// in before the run, and what the run changed is copied back after it
// (files it created, changed or removed; symbolic links and special
// files it made are not copied out). A run that passed its disk limit
// copies nothing back.
type space struct {
	mnt    *os.File          // the detached tmpfs, as fsmount returned it; the helper gets a copy
	host   string            // Cmd.Box: copied in, and back; "" for a fresh box
	base   usage             // what the tmpfs held before the run
	limit  usage             // what the run may add to it
	copied map[string]stamp2 // the box's regular files as docket copied them in
	dirs   map[string]stamp2 // and its directories beneath it, once filled
	cloned []*os.File        // box and /tmp cloned ahead (cloneAhead), for clones to hand out
	uid    int               // the run's uid, and
	gid    int               // its gid (runMayWrite)
}

// usage is what a tmpfs holds: bytes of its blocks, and inodes.
type usage struct{ bytes, inodes int64 }

// stamp2 identifies a file docket copied in, to tell afterwards whether
// the run changed it.
type stamp2 struct {
	ino, size int64
	ctime     unix.Timespec
}

const pageSize = 4096

// spaceSlack is what the tmpfs gets beyond base + limit: one page, so that
// a run that writes exactly its limit stays within it, and one that tries
// to write more fills the tmpfs and is seen to have passed it.
const spaceSlack = pageSize

// dir is docket's own path into the tmpfs ("/proc/self/fd/N/...").
func (sp *space) dir(name string) string {
	return "/proc/self/fd/" + strconv.Itoa(int(sp.mnt.Fd())) + "/" + name
}

// newSpace makes a run's writable space: a tmpfs sized for the box's
// source (key.host, else key.from) plus the key's disk limits, the box
// directory (host's contents, owner and mode; or an empty directory of
// uid's, mode 0700, with from's contents) and a sticky /tmp.
func newSpace(key spaceKey) (*space, error) {
	entries, err := stampTree(key.source())
	if err != nil {
		return nil, fmt.Errorf("box: %w", err)
	}
	return newSpaceOf(key, entries)
}

// newSpaceOf is newSpace for a source whose entries are already listed.
func newSpaceOf(key spaceKey, source []entryStamp) (*space, error) {
	sp := &space{host: key.host, uid: key.uid, gid: key.gid, limit: usage{bytes: roundPage(key.disk), inodes: int64(key.inodes)}}
	need := sourceUsage(source)
	need.inodes += 3 // the root, box, tmp
	mnt, huge, err := mountTmpfs(need.bytes+sp.limit.bytes+spaceSlack, need.inodes+sp.limit.inodes+1, wantsHugeCopy(source))
	if err != nil {
		return nil, err
	}
	sp.mnt = mnt
	if err := sp.fill(key.host, key.from, key.uid, key.gid); err != nil {
		sp.close()
		return nil, err
	}
	if huge {
		if err := hugePagesOff(sp.mnt); err != nil {
			// Never a run with huge pages on: this space goes, and
			// this one and every later one are copied in small pages.
			sp.close()
			hugeRefused.Store(true)
			return newSpaceOf(key, source)
		}
	}
	return sp, nil
}

// fill makes the box and /tmp and takes the baseline.
func (sp *space) fill(host, from string, uid, gid int) (err error) {
	if err := sp.makeBox(host, from, uid, gid); err != nil {
		return err
	}
	if err := os.Mkdir(sp.dir("tmp"), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(sp.dir("tmp"), 0o1777); err != nil { // Mkdir applies the umask and drops the sticky bit
		return err
	}
	sp.base, err = sp.usage()
	return err
}

func roundPage(n int64) int64 { return (n + pageSize - 1) / pageSize * pageSize }

// mountTmpfs makes a detached tmpfs of size bytes and inodes inodes,
// nosuid and nodev. Its huge pages are off, or with hugeCopy on for
// docket's copy where the kernel has them (space_huge.go), which it
// reports: the caller then turns them off before the run.
func mountTmpfs(size, inodes int64, hugeCopy bool) (mnt *os.File, huge bool, err error) {
	fsfd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return nil, false, fmt.Errorf("fsopen tmpfs: %w", err)
	}
	defer unix.Close(fsfd)
	for _, kv := range [][2]string{{"source", "docket"}, {"size", strconv.FormatInt(size, 10)},
		{"nr_inodes", strconv.FormatInt(inodes, 10)}, {"mode", "0755"}} {
		if err := unix.FsconfigSetString(fsfd, kv[0], kv[1]); err != nil {
			return nil, false, fmt.Errorf("tmpfs %s=%s: %w", kv[0], kv[1], err)
		}
	}
	if huge, err = setHugeOption(fsfd, hugeCopy); err != nil {
		return nil, false, err
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return nil, false, fmt.Errorf("tmpfs create: %w", err)
	}
	mfd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return nil, false, fmt.Errorf("fsmount tmpfs: %w", err)
	}
	return os.NewFile(uintptr(mfd), "space"), huge, nil
}

// usage reads what the tmpfs holds now.
func (sp *space) usage() (usage, error) {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(sp.mnt.Fd()), &st); err != nil {
		return usage{}, fmt.Errorf("statfs: %w", err)
	}
	return usage{bytes: int64(st.Blocks-st.Bfree) * st.Bsize, inodes: int64(st.Files - st.Ffree)}, nil
}

// passed reports whether the run wrote more than its limits allow.
func (sp *space) passed() (bool, error) {
	u, err := sp.usage()
	if err != nil {
		return false, err
	}
	return u.bytes-sp.base.bytes > sp.limit.bytes || u.inodes-sp.base.inodes > sp.limit.inodes, nil
}

// splitRefused is set once the kernel refuses to clone a detached mount
// (before Linux 6.15): clones is not tried again.
var splitRefused atomic.Bool

// clones are detached clones of the space's directories box and tmp, for
// the helper to attach as they are (mount.Rootfs.Split), or nil, nil
// where the kernel cannot clone a detached mount: the helper then gets
// the space and splits it itself, which costs an RCU grace period.
func (sp *space) clones() (box, tmp *os.File) {
	if c := sp.cloned; c != nil {
		sp.cloned = nil
		return c[0], c[1]
	}
	return sp.cloneNow()
}

// cloneAhead makes the clones of a space made ahead with it, in the
// background: two open_tree calls fewer on the path of the run that
// takes it.
func (sp *space) cloneAhead() {
	if !roomToHold() {
		return
	}
	if box, tmp := sp.cloneNow(); box != nil {
		sp.cloned = []*os.File{box, tmp}
	}
}

func (sp *space) cloneNow() (box, tmp *os.File) {
	if splitRefused.Load() {
		return nil, nil
	}
	var files [2]*os.File
	for i, name := range []string{"box", "tmp"} {
		fd, err := unix.OpenTree(int(sp.mnt.Fd()), name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			if errors.Is(err, unix.EINVAL) {
				splitRefused.Store(true)
			}
			closeAll(files[:i])
			return nil, nil
		}
		files[i] = os.NewFile(uintptr(fd), "space "+name)
	}
	return files[0], files[1]
}

// close lets the tmpfs go. Dropping the last reference to a detached
// mount waits for an RCU grace period (0.05-0.3 ms here), so it is done
// off the caller's path: the memory is freed a moment later either way.
func (sp *space) close() {
	if sp.mnt != nil {
		mnt, cloned := sp.mnt, sp.cloned
		go func() {
			closeAll(cloned)
			mnt.Close()
		}()
		sp.mnt, sp.cloned = nil, nil
	}
}

// sourceUsage is what copying a box's source into a tmpfs takes: its
// regular files' pages, one inode per entry.
func sourceUsage(entries []entryStamp) usage {
	u := usage{inodes: int64(len(entries))}
	for _, e := range entries {
		if e.mode&unix.S_IFMT == unix.S_IFREG {
			u.bytes += roundPage(e.size)
		}
	}
	return u
}

// errSpecial: a box entry that is neither a directory nor a regular file
// nor a symbolic link is not copied.
var errSpecial = errors.New("not a regular file, directory or symbolic link")

// makeBox creates the box directory: a copy of host, or an empty one of
// uid's with from's contents.
func (sp *space) makeBox(host, from string, uid, gid int) error {
	box := sp.dir("box")
	sp.copied, sp.dirs = map[string]stamp2{}, map[string]stamp2{}
	if host != "" {
		if err := sp.copyTree(host, box, true); err != nil {
			return err
		}
		return sp.stampDirs(box)
	}
	if err := os.Mkdir(box, 0o700); err != nil {
		return err
	}
	if err := os.Lchown(box, uid, gid); err != nil {
		return err
	}
	if from == "" {
		return nil
	}
	return sp.copyTree(from, box, false)
}

// copyTree copies src's tree to dst in the tmpfs, src itself too when
// withRoot (dst does not exist yet), else only what is beneath it.
func (sp *space) copyTree(src, dst string, withRoot bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || (rel == "." && !withRoot) {
			return err
		}
		return sp.copyIn(p, filepath.Join(dst, rel), rel)
	})
}

// stampDirs stamps the directories docket made beneath box (their
// stamps so far are nil), once everything is in them: each entry made
// changes its directory's times. copyBack then leaves a directory the run
// did not touch alone.
func (sp *space) stampDirs(box string) error {
	for rel := range sp.dirs {
		var st unix.Stat_t
		if err := unix.Lstat(box+"/"+rel, &st); err != nil {
			return &os.PathError{Op: "lstat", Path: rel, Err: err}
		}
		sp.dirs[rel] = stampOf(&st)
	}
	return nil
}

// copyTree copies src's contents into the existing directory dst: an
// unrooted run's box made from Cmd.BoxFrom.
func copyTree(src, dst string) error {
	sp := &space{copied: map[string]stamp2{}, dirs: map[string]stamp2{}}
	return sp.copyTree(src, dst, false)
}

// copyIn copies one entry of the host box (src) to dst in the tmpfs, with
// its owner and mode, and stamps regular files.
func (sp *space) copyIn(src, dst, rel string) error {
	var st unix.Stat_t
	if err := unix.Lstat(src, &st); err != nil {
		return &os.PathError{Op: "lstat", Path: src, Err: err}
	}
	mode := os.FileMode(st.Mode & 0o7777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		if rel != "." {
			sp.dirs[rel] = stamp2{} // stamped once filled (stampDirs)
		}
	case unix.S_IFLNK:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return withOwner(os.Symlink(target, dst), dst, int(st.Uid), int(st.Gid), 0, false)
	case unix.S_IFREG:
		s, err := copyOwned(src, dst, &st)
		if err != nil {
			return err
		}
		sp.copied[rel] = s
		return nil
	default:
		return &os.PathError{Op: "copy", Path: src, Err: errSpecial}
	}
	return withOwner(nil, dst, int(st.Uid), int(st.Gid), mode, true)
}

// withOwner gives path its owner (and, with chmod, its mode: after the
// chown, which clears set-id bits) unless err is already set.
func withOwner(err error, path string, uid, gid int, mode os.FileMode, chmod bool) error {
	if err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		if err := os.Lchown(path, uid, gid); err != nil {
			return err
		}
	}
	if chmod {
		return os.Chmod(path, mode&os.ModePerm|setIDBits(mode))
	}
	return nil
}

// setIDBits keeps sticky, setuid and setgid from a raw mode (os.FileMode
// keeps them in other bits than the kernel).
func setIDBits(raw os.FileMode) os.FileMode {
	var m os.FileMode
	if raw&unix.S_ISUID != 0 {
		m |= os.ModeSetuid
	}
	if raw&unix.S_ISGID != 0 {
		m |= os.ModeSetgid
	}
	if raw&unix.S_ISVTX != 0 {
		m |= os.ModeSticky
	}
	return m
}

// copyOwned copies the regular file src into a new file dst, never
// following a link at either end, gives it st's owner (as root) and
// mode, and returns its stamp. Descriptors, not *os.File: a run's box is
// copied for every run, and each path lookup through the space's
// /proc/self/fd/N link and each poller registration costs.
func copyOwned(src, dst string, st *unix.Stat_t) (stamp2, error) {
	in, err := unix.Open(src, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return stamp2{}, &os.PathError{Op: "open", Path: src, Err: err}
	}
	defer unix.Close(in)
	out, err := unix.Open(dst, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return stamp2{}, &os.PathError{Op: "open", Path: dst, Err: err}
	}
	defer unix.Close(out)
	if err := copyContents(out, in, st.Size); err != nil {
		return stamp2{}, &os.PathError{Op: "copy", Path: src, Err: err}
	}
	if os.Geteuid() == 0 {
		if err := unix.Fchown(out, int(st.Uid), int(st.Gid)); err != nil {
			return stamp2{}, &os.PathError{Op: "chown", Path: dst, Err: err}
		}
	}
	// After the chown, which clears the set-id bits.
	if err := unix.Fchmod(out, st.Mode&0o7777); err != nil {
		return stamp2{}, &os.PathError{Op: "chmod", Path: dst, Err: err}
	}
	var got unix.Stat_t
	if err := unix.Fstat(out, &got); err != nil {
		return stamp2{}, &os.PathError{Op: "fstat", Path: dst, Err: err}
	}
	return stampOf(&got), nil
}

// copyContents copies in, of size bytes when it was stat'ed, to the new
// file out. A file of a huge page or more is first given its size: on
// older kernels (Debian 12's 6.1), a tmpfs with huge=within_size
// (space_huge.go) puts a huge page only within the file's size at the
// time of the write, so a file written from empty never has one. Should
// in have changed size since it was stat'ed, out ends at what was
// copied.
func copyContents(out, in int, size int64) error {
	if size < hugePageSize {
		_, err := sendAll(out, in)
		return err
	}
	if err := unix.Ftruncate(out, size); err != nil {
		return err
	}
	n, err := sendAll(out, in)
	if err == nil && n != size {
		err = unix.Ftruncate(out, n)
	}
	return err
}

// sendAll copies in to out from their current offsets until in's end,
// in the kernel (sendfile), and says how many bytes it copied.
func sendAll(out, in int) (int64, error) {
	var total int64
	for {
		n, err := unix.Sendfile(out, in, nil, 1<<30)
		switch {
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return total, err
		case n == 0:
			return total, nil
		}
		total += int64(n)
	}
}
