//go:build cgo

/*
 * The new root, as package mount describes it (sandbox/mount/rootfs.go),
 * with messages "rootfs <stage>: <error>", the error worded as Go's os
 * package words it: "lstat /usr: no such file or directory".
 *
 * It runs first in the helper, as root of the new mount namespace, before
 * the uid switch: every mount needs that privilege. The layout:
 *
 *	<mount point>          tmpfs, 1 MiB: the new root, read-only at the end
 *	  <binds>              read-only (the box read-write), nosuid, nodev,
 *	                       with every host mount below them (submounts.c);
 *	                       a symlinked source (/lib -> usr/lib) becomes
 *	                       the same symlink
 *	  <masks>              /dev/null over a file a bind exposed
 *	  /tmp                 tmpfs, the run's size
 *	  /proc                a fresh proc of the new pid namespace
 *	  /dev                 tmpfs with five device nodes and the fd links,
 *	                       read-only
 *
 * then pivot_root into it and drop the old root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nsinit.h"

/*
 * "rootfs <stage>: <dk_errmsg>": mount.Error around an error a helper
 * below has already worded.
 */
static int fail(const char *stage_fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *stage_fmt, ...)
{
	char *stage;
	va_list ap;
	va_start(ap, stage_fmt);
	if (vasprintf(&stage, stage_fmt, ap) < 0)
		dk_oom();
	va_end(ap);
	dk_error("rootfs %s: %s", stage, dk_errmsg ? dk_errmsg : "out of memory");
	free(stage);
	return -1;
}

/* mount.Error around a bare errno (Go's unix.* calls return syscall.Errno). */
#define FAIL_ERRNO(e, ...) (dk_error("%s", dk_strerror(e)), fail(__VA_ARGS__))

/* os.PathError: "mkdir /x: file exists". */
static int path_error(const char *op, const char *path, int e)
{
	return dk_error("%s %s: %s", op, path, dk_strerror(e));
}

/* Go's filepath.Clean, lexically. */
static char *path_clean(const char *path)
{
	size_t n = strlen(path);
	char *out = malloc(n + 2);
	if (!out)
		dk_oom();
	if (n == 0) {
		strcpy(out, ".");
		return out;
	}
	int rooted = path[0] == '/';
	size_t r = 0, w = 0, dotdot = 0;
	if (rooted) {
		out[w++] = '/';
		r = dotdot = 1;
	}
	while (r < n) {
		if (path[r] == '/') {
			r++;
		} else if (path[r] == '.' && (r + 1 == n || path[r + 1] == '/')) {
			r++;
		} else if (path[r] == '.' && path[r + 1] == '.' && (r + 2 == n || path[r + 2] == '/')) {
			r += 2;
			if (w > dotdot) {
				w--;
				while (w > dotdot && out[w] != '/')
					w--;
			} else if (!rooted) {
				if (w > 0)
					out[w++] = '/';
				out[w++] = '.';
				out[w++] = '.';
				dotdot = w;
			}
		} else {
			if ((rooted && w != 1) || (!rooted && w != 0))
				out[w++] = '/';
			for (; r < n && path[r] != '/'; r++)
				out[w++] = path[r];
		}
	}
	if (w == 0)
		out[w++] = '.';
	out[w] = 0;
	return out;
}

/* Go's filepath.Dir: everything up to the last slash, cleaned. */
static char *path_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *head = strndup(path, slash ? (size_t)(slash - path + 1) : 0);
	if (!head)
		dk_oom();
	char *dir = path_clean(head);
	free(head);
	return dir;
}

/* Go's os.MkdirAll, including its error for an existing non-directory. */
static int mkdir_all(const char *path, mode_t perm)
{
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		return path_error("mkdir", path, ENOTDIR);
	}
	/* The parent: drop trailing slashes, then the last element. */
	ssize_t i = (ssize_t)strlen(path) - 1;
	while (i >= 0 && path[i] == '/')
		i--;
	while (i >= 0 && path[i] != '/')
		i--;
	if (i > 0) {
		char *parent = strndup(path, i);
		if (!parent)
			dk_oom();
		int r = mkdir_all(parent, perm);
		free(parent);
		if (r < 0)
			return r;
	}
	if (mkdir(path, perm) < 0) {
		int e = errno;
		/* "foo/." and races: fine if it is a directory now. */
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		return path_error("mkdir", path, e);
	}
	return 0;
}

/* An empty file to bind over (os.OpenFile with O_CREATE|O_WRONLY). */
static int create_file(const char *path, mode_t perm)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, perm);
	if (fd < 0)
		return path_error("open", path, errno);
	close(fd);
	return 0;
}

/* Go's os.Readlink: the whole target, however long. */
static char *read_link(const char *path)
{
	for (size_t size = 128;; size *= 2) {
		char *buf = malloc(size);
		if (!buf)
			dk_oom();
		ssize_t n = readlink(path, buf, size);
		if (n < 0) {
			path_error("readlink", path, errno);
			free(buf);
			return NULL;
		}
		if ((size_t)n < size) {
			buf[n] = 0;
			return buf;
		}
		free(buf);
	}
}

/* One bind: mount.bind. */
static int bind_one(const char *root, const struct dk_bind *b)
{
	const char *dst = b->dst[0] ? b->dst : b->src;
	if (dst[0] != '/' || strstr(dst, "..")) {
		dk_error("target must be an absolute path without ..");
		return fail("bind %s", dst);
	}
	struct stat st;
	if (lstat(b->src, &st) < 0) {
		int e = errno;
		if (b->optional && e == ENOENT)
			return 0;
		path_error("lstat", b->src, e);
		return fail("bind %s", b->src);
	}
	char *full = dk_concat3(root, dst, "");
	if (S_ISLNK(st.st_mode)) {
		/*
		 * /lib -> usr/lib on merged-/usr systems: recreate the link
		 * rather than mount what it points to (one system call instead
		 * of three; the target resolves it inside the new root).
		 */
		char *link = read_link(b->src);
		if (!link)
			return fail("readlink %s", b->src);
		char *dir = path_dir(full);
		int r = mkdir_all(dir, 0755);
		free(dir);
		if (r < 0)
			return fail("mkdir %s", dst);
		if (symlink(link, full) < 0 && errno != EEXIST && errno != ENOTEMPTY) {
			int e = errno;
			dk_error("symlink %s %s: %s", link, full, dk_strerror(e)); /* os.LinkError */
			return fail("symlink %s", dst);
		}
		/* Freed, unlike most of the helper's memory: the zygote builds
		 * templates for as long as docket runs. */
		free(link);
		free(full);
		return 0;
	}
	/* The mount point: a directory for a directory, else an empty file. */
	int r;
	if (S_ISDIR(st.st_mode)) {
		r = mkdir_all(full, 0755);
	} else {
		char *dir = path_dir(full);
		r = mkdir_all(dir, 0755);
		free(dir);
		if (r == 0)
			r = create_file(full, 0644);
	}
	if (r < 0)
		return fail("mkdir %s", dst);
	if (mount(b->src, full, "", MS_BIND | MS_REC, NULL) < 0)
		return FAIL_ERRNO(errno, "bind %s", b->src);
	/* A bind takes the source's flags; only a remount can change them. */
	unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV;
	if (!b->writable)
		flags |= MS_RDONLY;
	if (mount("", full, "", flags, NULL) < 0)
		return FAIL_ERRNO(errno, "remount %s", dst);
	/* Nor does it change the host's mounts below the source, which
	 * MS_REC brought along with their own flags. */
	if (dk_restrict_tree(full, b->writable) < 0)
		return fail("remount %s", dst);
	free(full);
	return 0;
}

/* bind_one, for the Go tests (nsinit_cgo.go). */
int dk_bind_one(const char *root, const struct dk_bind *b)
{
	return bind_one(root, b);
}

/* mount.mask: /dev/null (still the host's) over root+path, if it is a file. */
static int mask(const char *root, const char *path)
{
	char *full = dk_concat3(root, path, "");
	struct stat st;
	if (stat(full, &st) < 0 || S_ISDIR(st.st_mode)) {
		free(full);
		return 0;
	}
	if (mount("/dev/null", full, "", MS_BIND, NULL) < 0)
		return FAIL_ERRNO(errno, "mask %s", path);
	if (mount("", full, "", MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return FAIL_ERRNO(errno, "mask %s", path);
	free(full);
	return 0;
}

/* mount.Devices */
static const struct {
	const char *name;
	unsigned major, minor;
} devices[] = {{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}};

static const struct {
	const char *name, *target;
} dev_links[] = {
	{"fd", "/proc/self/fd"},
	{"stdin", "/proc/self/fd/0"},
	{"stdout", "/proc/self/fd/1"},
	{"stderr", "/proc/self/fd/2"},
};

/* mount.dev: a minimal /dev. */
static int dev(const char *root, int by_bind)
{
	char *d = dk_concat3(root, "/dev", "");
	if (mkdir_all(d, 0755) < 0)
		return fail("mkdir /dev");
	/* No MS_NODEV: the nodes below must work. Nothing executable lives
	 * here, so MS_NOEXEC. */
	if (mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,nr_inodes=64,mode=0755") < 0)
		return FAIL_ERRNO(errno, "mount /dev");
	for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
		char *p = dk_concat3(d, "/", devices[i].name);
		if (by_bind) {
			/* A user namespace may not mknod: bind the host's nodes. */
			if (create_file(p, 0666) < 0)
				return fail("create /dev/%s", devices[i].name);
			char *host = dk_concat3("/dev/", devices[i].name, "");
			if (mount(host, p, "", MS_BIND, NULL) < 0)
				return FAIL_ERRNO(errno, "bind /dev/%s", devices[i].name);
			/* The bind has the host's /dev flags: read-only and nosuid
			 * like every mount of the root (a device is written
			 * through a read-only mount all the same). */
			if (mount("", p, "", MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) < 0)
				return FAIL_ERRNO(errno, "remount /dev/%s", devices[i].name);
			free(host);
		} else {
			if (mknod(p, S_IFCHR | 0666, makedev(devices[i].major, devices[i].minor)) < 0)
				return FAIL_ERRNO(errno, "mknod /dev/%s", devices[i].name);
			/* mknod applies the umask; the nodes must be usable by everyone. */
			if (chmod(p, 0666) < 0)
				return FAIL_ERRNO(errno, "chmod /dev/%s", devices[i].name);
		}
		free(p);
	}
	for (size_t i = 0; i < sizeof dev_links / sizeof dev_links[0]; i++) {
		char *p = dk_concat3(d, "/", dev_links[i].name);
		if (symlink(dev_links[i].target, p) < 0) {
			int e = errno;
			dk_error("symlink %s %s: %s", dev_links[i].target, p, dk_strerror(e));
			return fail("symlink /dev/%s", dev_links[i].name);
		}
		free(p);
	}
	/* Only this mount: bound nodes are mounts of their own, read-only
	 * already. */
	if (mount("", d, "", MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) < 0)
		return FAIL_ERRNO(errno, "remount /dev read-only");
	free(d);
	return 0;
}

/* The start of every root: a private mount table, the root tmpfs, the
 * binds and the masks. */
static int begin_root(const struct dk_rootfs *r)
{
	/* Nothing done here may reach the host's mount table. */
	if (mount("", "/", "", MS_REC | MS_PRIVATE, NULL) < 0)
		return FAIL_ERRNO(errno, "make / private");
	const char *root = r->mount_point;
	if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=0755") < 0)
		return FAIL_ERRNO(errno, "mount root tmpfs");
	for (size_t i = 0; i < r->nbinds; i++)
		if (bind_one(root, &r->binds[i]) < 0)
			return -1;
	/* Masks after the binds: they cover what a bind exposed. (/dev/null
	 * is still the host's: nothing is pivoted yet.) */
	for (size_t i = 0; i < r->nmasks; i++)
		if (mask(root, r->masks[i]) < 0)
			return -1;
	return 0;
}

/* The run's /tmp, of its size, on a mount point that exists. */
static int mount_tmp(const char *dir, int64_t size)
{
	long long tmp = size > 0 ? (long long)size : 16LL << 20;
	char opts[96];
	snprintf(opts, sizeof opts, "size=%lld,nr_inodes=16384,mode=1777", tmp);
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		return FAIL_ERRNO(errno, "mount /tmp");
	return 0;
}

/* A proc of the new pid namespace: needs CLONE_NEWPID, and it must be
 * mounted by a process inside it (this one). (The zygote's helpers mount
 * theirs in zygote.c, before their run is known.) */
static int mount_proc(const char *dir)
{
	if (mount("proc", dir, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return FAIL_ERRNO(errno, "mount /proc");
	return 0;
}

/* The end of every root: pivot into it, drop the old root, read-only. */
static int finish_root(const struct dk_rootfs *r)
{
	const char *root = r->mount_point;
	char *p = dk_concat3(root, "/.oldroot", "");
	if (mkdir(p, 0700) < 0) {
		path_error("mkdir", p, errno);
		return fail("mkdir .oldroot");
	}
	/* pivot_root rather than chroot: the old root leaves the namespace
	 * entirely once detached, so no file descriptor trick reaches it. */
	if (syscall(SYS_pivot_root, root, p) < 0)
		return FAIL_ERRNO(errno, "pivot_root");
	free(p);
	if (chdir("/") < 0)
		return FAIL_ERRNO(errno, "chdir /");
	if (umount2("/.oldroot", MNT_DETACH) < 0)
		return FAIL_ERRNO(errno, "detach old root");
	/* os.Remove: the mount point is a directory, so rmdir's error is the
	 * one Go would report. */
	if (rmdir("/.oldroot") < 0) {
		path_error("remove", "/.oldroot", errno);
		return fail("remove .oldroot");
	}
	/* Last, the root tmpfs itself: nothing may create files beside the
	 * mounts (/tmp and /box stay writable, they are mounts of their own). */
	if (mount("", "/", "", MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
		return FAIL_ERRNO(errno, "remount / read-only");
	return 0;
}

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif

/* A detached clone of the mount at dir/name (attached in this namespace). */
static int clone_dir(const char *dir, const char *name)
{
	char *p = dk_concat3(dir, "/", name);
	int fd = (int)syscall(SYS_open_tree, AT_FDCWD, p, OPEN_TREE_CLONE | O_CLOEXEC);
	int e = errno;
	free(p);
	if (fd < 0)
		return FAIL_ERRNO(e, "clone %s", name);
	return fd;
}

static int move_fd(int fd, const char *root, const char *dir)
{
	char *p = dk_concat3(root, dir, "");
	int r = (int)syscall(SYS_move_mount, fd, "", AT_FDCWD, p, MOVE_MOUNT_F_EMPTY_PATH);
	int e = errno;
	free(p);
	close(fd);
	if (r < 0)
		return FAIL_ERRNO(e, "attach %s", dir);
	return 0;
}

/*
 * The run's writable space onto root/box and root/tmp. The parent made it
 * (one size- and inode-limited tmpfs holding the directories box and tmp)
 * and sent it detached, on DK_SPACE_FD. It is attached first, at
 * root/tmp, and its two directories cloned from there: a kernel such as
 * Debian 12's 6.1 clones (open_tree) a mount of the caller's own
 * namespace only, never a detached one (EINVAL). Then the whole tmpfs is
 * detached again, and the run sees its two directories and nothing else.
 * Where the parent could clone them itself (r->split), they are attached
 * as they come: a detach waits for an RCU grace period.
 */
static int attach_space(const struct dk_rootfs *r, const char *root)
{
	static const char *const points[] = {DK_BOX_DIR, "/tmp"};
	for (size_t i = 0; i < 2; i++) {
		char *p = dk_concat3(root, points[i], "");
		if (mkdir_all(p, 0755) < 0)
			return fail("mkdir %s", points[i]);
		free(p);
	}
	if (r->split) {
		/* The parent cloned the two directories: attach them. */
		if (move_fd(DK_SPACE_FD, root, DK_BOX_DIR) < 0)
			return -1;
		return move_fd(r->tmp_fd, root, "/tmp");
	}
	char *staging = dk_concat3(root, "/tmp", "");
	if (syscall(SYS_move_mount, DK_SPACE_FD, "", AT_FDCWD, staging, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return FAIL_ERRNO(errno, "attach space");
	close(DK_SPACE_FD);
	int box = clone_dir(staging, "box");
	if (box < 0)
		return -1;
	int tmp = clone_dir(staging, "tmp");
	if (tmp < 0)
		return -1;
	if (umount2(staging, MNT_DETACH) < 0)
		return FAIL_ERRNO(errno, "detach space");
	free(staging);
	if (move_fd(box, root, DK_BOX_DIR) < 0)
		return -1;
	return move_fd(tmp, root, "/tmp");
}

int dk_build_rootfs(const struct dk_rootfs *r)
{
	if (begin_root(r) < 0)
		return -1;
	const char *root = r->mount_point;
	char *p;
	if (r->fds) {
		if (attach_space(r, root) < 0)
			return -1;
	} else {
		p = dk_concat3(root, "/tmp", "");
		if (mkdir_all(p, 0755) < 0)
			return fail("mkdir /tmp");
		if (mount_tmp(p, r->tmp_size) < 0)
			return -1;
		free(p);
	}
	if (r->proc) {
		p = dk_concat3(root, "/proc", "");
		if (mkdir_all(p, 0555) < 0)
			return fail("mkdir /proc");
		if (mount_proc(p) < 0)
			return -1;
		free(p);
	}
	if (dev(root, r->dev_by_bind) < 0)
		return -1;
	return finish_root(r);
}

/* ---- the template (the zygote's prepared root) ----
 *
 * A template is the part of the root that is the same for every run of a
 * Sandbox with the same binds: built once by the zygote in a mount
 * namespace of its own, which then has no process and lives on as the
 * zygote's file descriptor. Each helper enters it and unshares a private
 * copy (a dozen mounts, where a copy of the host's table would be made
 * private and then detached again) and mounts only what is its own: its
 * /proc (zygote.c), then the box and /tmp. The order of the mounts is the
 * full build's but for the box, which comes after the masks and /dev
 * instead of before: the parent sends no template whose masks lie under
 * the box.
 */
int dk_build_template(const struct dk_rootfs *r)
{
	if (begin_root(r) < 0)
		return -1;
	static const struct {
		const char *dir;
		mode_t mode;
	} points[] = {{"/tmp", 0755}, {"/proc", 0555}, {DK_BOX_DIR, 0755}};
	for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
		char *p = dk_concat3(r->mount_point, points[i].dir, "");
		if (mkdir_all(p, points[i].mode) < 0)
			return fail("mkdir %s", points[i].dir);
		free(p);
	}
	if (dev(r->mount_point, r->dev_by_bind) < 0)
		return -1;
	return finish_root(r);
}


int dk_enter_template(const struct dk_rootfs *r)
{
	/* Only the box and /tmp: the parent sends them as its space. */
	if (!r->fds || r->nbinds != 0) {
		dk_error("a template root takes the run's space and no binds (%zu)", r->nbinds);
		return fail("template");
	}
	if (attach_space(r, "") < 0)
		return -1;
	if (chdir("/") < 0)
		return FAIL_ERRNO(errno, "chdir /");
	return 0;
}
