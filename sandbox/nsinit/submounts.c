//go:build cgo

/*
 * The binds' submounts.
 *
 * A bind is recursive (MS_REC): the host's mounts below its source (a
 * separate /usr/local, a volume under /usr/share, a mount inside a box)
 * come with it, each with its own flags, which the remount of the bind
 * does not change. Left so, a run could write there for the next run, or
 * run a setuid program or open a device node placed there from outside.
 * dk_restrict_tree makes every mount of the bound tree nosuid and nodev,
 * and read-only unless the bind is writable: with mount_setattr (Linux
 * 5.12) in one call, else by one remount per submount.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nsinit.h"

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#define DK_MOUNT_ATTR_RDONLY 0x1
#define DK_MOUNT_ATTR_NOSUID 0x2
#define DK_MOUNT_ATTR_NODEV 0x4

/* struct mount_attr of <linux/mount.h>, which clashes with <sys/mount.h>. */
struct dk_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

int dk_no_mount_setattr;

static int remount_submounts(const char *full, int writable);

int dk_restrict_tree(const char *full, int writable)
{
	struct dk_mount_attr attr = {.attr_set = DK_MOUNT_ATTR_NOSUID | DK_MOUNT_ATTR_NODEV};
	if (!writable)
		attr.attr_set |= DK_MOUNT_ATTR_RDONLY;
	int e = ENOSYS;
	if (!dk_no_mount_setattr) {
		/* Only sets flags: what else a submount has (noexec, its atime
		 * flags) stays. */
		if (syscall(SYS_mount_setattr, AT_FDCWD, full, AT_RECURSIVE, &attr, sizeof attr) == 0)
			return 0;
		e = errno;
	}
	/* ENOSYS: a kernel before 5.12. EPERM: a container's seccomp profile
	 * older than the call (Docker's before 20.10); if privilege is what is
	 * missing, the remounts fail too and say so. */
	if (e != ENOSYS && e != EPERM)
		return dk_error("mount_setattr: %s", dk_strerror(e));
	return remount_submounts(full, writable);
}

/* ---- the fallback ---- */

/* One line of /proc/self/mountinfo: mount.Mountinfo, and what the
 * fallback keeps of its flags. */
struct mount_entry {
	long id, parent;
	char *point; /* unescaped */
	unsigned long keep;
	int below; /* the bind's top mount or a mount below it */
};

/* The kernel's octal escapes ("\040" for a space) undone in place. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0'));
			r += 3;
			continue;
		}
		*w++ = *r;
	}
	*w = 0;
}

/* A decimal number, the whole of s (strconv.Atoi on what the kernel writes). */
static int parse_long(const char *s, long *out)
{
	char *end;
	errno = 0;
	*out = strtol(s, &end, 10);
	return *s && !*end && errno == 0 ? 0 : -1;
}

/*
 * What a remount must keep of a mount's flags: read-only (a read-only
 * mount below a writable bind stays so), noexec and nosymfollow. In a user
 * namespace the kernel locks the flags of the mounts it was given, and a
 * remount that would clear a locked one fails with EPERM; the atime flags,
 * locked too, are kept by any bind remount that names none (Linux 3.17).
 */
static unsigned long keep_flags(char *opts)
{
	unsigned long keep = 0;
	char *save;
	for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (strcmp(o, "ro") == 0)
			keep |= MS_RDONLY;
		else if (strcmp(o, "noexec") == 0)
			keep |= MS_NOEXEC;
		else if (strcmp(o, "nosymfollow") == 0)
			keep |= MS_NOSYMFOLLOW;
	}
	return keep;
}

/* The lines of text (modified) with at least the six fields used; others
 * are skipped, as mount.ParseMountinfo does. */
static struct mount_entry *parse_mountinfo(char *text, size_t *n)
{
	size_t cap = 64;
	struct mount_entry *m = malloc(cap * sizeof *m);
	if (!m)
		dk_oom();
	*n = 0;
	char *save_line;
	for (char *line = strtok_r(text, "\n", &save_line); line; line = strtok_r(NULL, "\n", &save_line)) {
		/* "id parent major:minor root point options ..." */
		char *f[6], *save;
		size_t nf = 0;
		for (char *t = strtok_r(line, " \t", &save); t && nf < 6; t = strtok_r(NULL, " \t", &save))
			f[nf++] = t;
		struct mount_entry e = {0};
		if (nf < 6 || parse_long(f[0], &e.id) < 0 || parse_long(f[1], &e.parent) < 0)
			continue;
		unescape(f[4]);
		e.point = f[4];
		e.keep = keep_flags(f[5]);
		if (*n == cap && !(m = realloc(m, (cap *= 2) * sizeof *m)))
			dk_oom();
		m[(*n)++] = e;
	}
	return m;
}

/* os.ReadFile, NUL-terminated. */
static char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		dk_error("open %s: %s", path, dk_strerror(errno));
		return NULL;
	}
	size_t len = 0, cap = 4096;
	char *b = malloc(cap);
	if (!b)
		dk_oom();
	for (;;) {
		if (len + 1 == cap && !(b = realloc(b, cap *= 2)))
			dk_oom();
		ssize_t r = read(fd, b + len, cap - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			dk_error("read %s: %s", path, dk_strerror(errno));
			close(fd);
			free(b);
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	b[len] = 0;
	return b;
}

/* The id of the mount fd is on (mnt_id in its fdinfo, Linux 3.15). */
static int fd_mount_id(int fd, const char *path, long *id)
{
	char name[64];
	snprintf(name, sizeof name, "/proc/self/fdinfo/%d", fd);
	int in = open(name, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return dk_error("mount id of %s: %s", path, dk_strerror(errno));
	char b[4096];
	ssize_t n = read(in, b, sizeof b - 1);
	int e = errno;
	close(in);
	if (n < 0)
		return dk_error("mount id of %s: %s", path, dk_strerror(e));
	b[n] = 0;
	for (char *line = b; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, "mnt_id:", 7) == 0) {
			*id = strtol(line + 7, NULL, 10);
			return 0;
		}
	}
	return dk_error("mount id of %s: no mnt_id in fdinfo", path);
}

/* The mount id at path (the top one there). */
static int path_mount_id(const char *path, long *id)
{
	int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return dk_error("open %s: %s", path, dk_strerror(errno));
	int r = fd_mount_id(fd, path, id);
	close(fd);
	return r;
}

/*
 * One submount, remounted through a descriptor of its root: only if its
 * mount point still leads to it. One that a later mount over its own
 * mount point or a parent directory hides is out of the run's reach too
 * (the run cannot unmount what hides it), and is left as it is.
 */
static int remount_one(const struct mount_entry *m, int writable)
{
	int fd = open(m->point, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return dk_error("open %s: %s", m->point, dk_strerror(errno));
	long id;
	int r = fd_mount_id(fd, m->point, &id);
	if (r == 0 && id == m->id) {
		unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | m->keep;
		if (!writable)
			flags |= MS_RDONLY;
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		if (mount("", proc, "", flags, NULL) < 0)
			r = dk_error("remount %s: %s", m->point, dk_strerror(errno));
	}
	close(fd);
	return r;
}

/*
 * The fallback: the bind's submounts are the mounts below its top one in
 * /proc/self/mountinfo (found by their parents: a path prefix would also
 * take earlier binds that this one hides), each remounted on its own.
 */
static int remount_submounts(const char *full, int writable)
{
	long top;
	if (path_mount_id(full, &top) < 0)
		return -1;
	/* This thread's mount namespace: the helper has one thread, the
	 * tests give a thread one of its own. */
	char *text = read_file("/proc/thread-self/mountinfo");
	if (!text)
		return -1;
	size_t n;
	struct mount_entry *m = parse_mountinfo(text, &n);
	for (size_t i = 0; i < n; i++)
		m[i].below = m[i].id == top;
	/* Until nothing changes: a parent may be listed after its child. */
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n && !m[i].below; j++)
				if (m[j].below && m[i].parent == m[j].id)
					m[i].below = changed = 1;
	}
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++)
		if (m[i].below && m[i].id != top)
			r = remount_one(&m[i], writable);
	free(m);
	free(text);
	return r;
}
