//go:build cgo

/*
 * The request decoder: the C twin of decodeRequest in nsinit.go, which
 * documents the records. The two must accept the same inputs and reject
 * the rest with the same message, in the same order of checks: the Go
 * tests feed both the same random and corrupted requests and compare.
 *
 * The input comes from the parent, but it is still parsed as if it were
 * hostile: every length is checked against what is left before anything is
 * read, integers are assembled byte by byte (no unaligned loads, no
 * dependence on the host's byte order), strings are copied out with a NUL
 * (a NUL inside one is an error, never a silent truncation).
 *
 * Two passes over the records: the first validates and counts, the second
 * copies into one allocation sized by the first, so a malformed request
 * fails before anything is allocated and a valid one costs one malloc.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsinit.h"

#define RECORD_HEADER 5 /* tag, u32 length */
#define INSN_SIZE 8     /* struct sock_filter on the wire */
#define MAX_FILTER_LEN 65535

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int known_tag(int t)
{
	switch (t) {
	case DK_TAG_ARG:
	case DK_TAG_ENV:
	case DK_TAG_DIR:
	case DK_TAG_HOST:
	case DK_TAG_IDS:
	case DK_TAG_RLIMIT:
	case DK_TAG_SECCOMP:
	case DK_TAG_FILTER:
	case DK_TAG_ROOTFS:
	case DK_TAG_BIND:
	case DK_TAG_MASK:
	case DK_TAG_CGROUPS:
	case DK_TAG_NETNS:
	case DK_TAG_INTO:
		return 1;
	}
	return 0;
}

/* Pass 1's tally: what pass 2 will store. */
struct counts {
	size_t argc, envc, nrlimits, nfilters, ninsns, nbinds, nmasks, strbytes;
	int ncgroup_fds, cgroup_into; /* checked together once both are known */
};

/* Pass 2's cursors into the arena. */
struct fill {
	char **argv, **envp;
	const char **masks;
	struct dk_rlimit *rl;
	struct sock_fprog *fp;
	struct dk_bind *binds;
	struct sock_filter *insn;
	char *str;
};

/* "record at byte 12 ('B'): <why>", matching fail() in decodeRequest. */
static int rec_error(size_t off, int tag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rec_error(size_t off, int tag, const char *fmt, ...)
{
	char *why;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	dk_error("record at byte %zu ('%c'): %s", off, tag, why ? why : "out of memory");
	free(why);
	return -1;
}

/*
 * A string payload: pass 1 counts it, pass 2 copies it out NUL-terminated.
 * The caller has checked it for NUL bytes.
 */
static char *take_str(const unsigned char *p, size_t len, struct counts *c, struct fill *f)
{
	if (!f) {
		c->strbytes += len + 1;
		return NULL;
	}
	char *s = f->str;
	memcpy(s, p, len);
	s[len] = 0;
	f->str += len + 1;
	return s;
}

/*
 * One pass over the records. f == NULL: validate and count into c. Else
 * store into req through f (the records were validated by pass 1, so no
 * check can fail there).
 */
static int walk(const unsigned char *b, size_t n, struct dk_request *req, struct counts *c, struct fill *f)
{
	int seen_dir = 0, seen_host = 0, seen_ids = 0, seen_seccomp = 0, seen_rootfs = 0, seen_cgroups = 0, seen_netns = 0, seen_into = 0;
	size_t off = 0;

#define FAIL(...) return rec_error(off, tag, __VA_ARGS__)
#define NO_NUL(p, len)                                   \
	do {                                             \
		if (memchr((p), 0, (len)))               \
			FAIL("contains a NUL byte");     \
	} while (0)
#define ONCE(seen)                       \
	do {                             \
		if (seen)                \
			FAIL("repeated"); \
		seen = 1;                \
	} while (0)
#define EXACT(want)                                                    \
	do {                                                           \
		if (len != (want))                                     \
			FAIL("length %u, want %u", len, (unsigned)(want)); \
	} while (0)
#define AT_LEAST(want)                                                          \
	do {                                                                    \
		if (len < (want))                                               \
			FAIL("length %u, want at least %u", len, (unsigned)(want)); \
	} while (0)
#define AFTER(seen, parent)                                   \
	do {                                                  \
		if (!(seen))                                  \
			FAIL("before its '%c' record", parent); \
	} while (0)

	while (off < n) {
		size_t left = n - off;
		if (left < RECORD_HEADER)
			return dk_error("record at byte %zu: truncated header (%zu bytes left)", off, left);
		int tag = b[off];
		if (!known_tag(tag))
			return dk_error("record at byte %zu: unknown tag 0x%02x", off, tag);
		uint32_t len = le32(b + off + 1);
		left -= RECORD_HEADER;
		if (len > left)
			FAIL("length %u exceeds the %zu bytes left", len, left);
		const unsigned char *p = b + off + RECORD_HEADER;

		switch (tag) {
		case DK_TAG_ARG:
		case DK_TAG_ENV: {
			NO_NUL(p, len);
			char *s = take_str(p, len, c, f);
			if (!f) {
				if (tag == DK_TAG_ARG)
					c->argc++;
				else
					c->envc++;
			} else if (tag == DK_TAG_ARG) {
				*f->argv++ = s;
			} else {
				*f->envp++ = s;
			}
			break;
		}
		case DK_TAG_DIR:
		case DK_TAG_HOST: {
			if (tag == DK_TAG_DIR)
				ONCE(seen_dir);
			else
				ONCE(seen_host);
			NO_NUL(p, len);
			char *s = take_str(p, len, c, f);
			if (f) {
				if (tag == DK_TAG_DIR)
					req->dir = s;
				else
					req->hostname = s;
			}
			break;
		}
		case DK_TAG_IDS:
			ONCE(seen_ids);
			EXACT(16);
			if (f) {
				req->uid = (int64_t)le64(p);
				req->gid = (int64_t)le64(p + 8);
			}
			break;
		case DK_TAG_CGROUPS:
			ONCE(seen_cgroups);
			EXACT(1);
			if (p[0] > DK_MAX_CGROUP_FDS)
				FAIL("%u cgroup descriptors, more than %u", p[0], (unsigned)DK_MAX_CGROUP_FDS);
			c->ncgroup_fds = p[0];
			if (f)
				req->ncgroup_fds = p[0];
			break;
		case DK_TAG_NETNS:
			ONCE(seen_netns);
			EXACT(0);
			if (f)
				req->netns = 1;
			break;
		case DK_TAG_INTO:
			ONCE(seen_into);
			EXACT(0);
			c->cgroup_into = 1;
			if (f)
				req->cgroup_into = 1;
			break;
		case DK_TAG_RLIMIT:
			EXACT(20);
			if (!f) {
				c->nrlimits++;
			} else {
				f->rl->resource = (int)(int32_t)le32(p);
				f->rl->cur = le64(p + 4);
				f->rl->max = le64(p + 12);
				f->rl++;
			}
			break;
		case DK_TAG_SECCOMP:
			ONCE(seen_seccomp);
			EXACT(0);
			if (f)
				req->has_seccomp = 1;
			break;
		case DK_TAG_FILTER: {
			AFTER(seen_seccomp, DK_TAG_SECCOMP);
			if (len % INSN_SIZE)
				FAIL("length %u is not a multiple of %u", len, INSN_SIZE);
			uint32_t count = len / INSN_SIZE;
			if (count > MAX_FILTER_LEN)
				FAIL("%u instructions, more than %u", count, MAX_FILTER_LEN);
			if (!f) {
				c->nfilters++;
				c->ninsns += count;
				break;
			}
			f->fp->len = (unsigned short)count;
			f->fp->filter = f->insn;
			for (uint32_t i = 0; i < count; i++, p += INSN_SIZE) {
				f->insn->code = (uint16_t)(p[0] | p[1] << 8);
				f->insn->jt = p[2];
				f->insn->jf = p[3];
				f->insn->k = le32(p + 4);
				f->insn++;
			}
			f->fp++;
			break;
		}
		case DK_TAG_ROOTFS: {
			ONCE(seen_rootfs);
			AT_LEAST(9);
			unsigned flags = p[8];
			if (flags & ~(unsigned)(DK_ROOTFS_PROC | DK_ROOTFS_DEV_BY_BIND | DK_ROOTFS_TEMPLATE | DK_ROOTFS_FDS |
						DK_ROOTFS_SPLIT))
				FAIL("unknown flags 0x%02x", flags);
			if ((flags & DK_ROOTFS_SPLIT) && !(flags & DK_ROOTFS_FDS))
				FAIL("split space without its descriptors");
			NO_NUL(p + 9, len - 9);
			char *mp = take_str(p + 9, len - 9, c, f);
			if (f) {
				req->has_rootfs = 1;
				req->rootfs.mount_point = mp;
				req->rootfs.tmp_size = (int64_t)le64(p);
				req->rootfs.proc = !!(flags & DK_ROOTFS_PROC);
				req->rootfs.dev_by_bind = !!(flags & DK_ROOTFS_DEV_BY_BIND);
				req->rootfs.template = !!(flags & DK_ROOTFS_TEMPLATE);
				req->rootfs.fds = !!(flags & DK_ROOTFS_FDS);
				req->rootfs.split = !!(flags & DK_ROOTFS_SPLIT);
			}
			break;
		}
		case DK_TAG_BIND: {
			AFTER(seen_rootfs, DK_TAG_ROOTFS);
			AT_LEAST(5);
			unsigned flags = p[0];
			if (flags & ~(unsigned)(DK_BIND_WRITABLE | DK_BIND_OPTIONAL))
				FAIL("unknown flags 0x%02x", flags);
			uint32_t sn = le32(p + 1);
			if (sn > len - 5)
				FAIL("source length %u exceeds the %u bytes left", sn, len - 5);
			NO_NUL(p + 5, sn);
			NO_NUL(p + 5 + sn, len - 5 - sn);
			char *src = take_str(p + 5, sn, c, f);
			char *dst = take_str(p + 5 + sn, len - 5 - sn, c, f);
			if (!f) {
				c->nbinds++;
			} else {
				f->binds->src = src;
				f->binds->dst = dst;
				f->binds->writable = !!(flags & DK_BIND_WRITABLE);
				f->binds->optional = !!(flags & DK_BIND_OPTIONAL);
				f->binds++;
			}
			break;
		}
		case DK_TAG_MASK: {
			AFTER(seen_rootfs, DK_TAG_ROOTFS);
			NO_NUL(p, len);
			char *s = take_str(p, len, c, f);
			if (!f)
				c->nmasks++;
			else
				*f->masks++ = s;
			break;
		}
		}
		off += RECORD_HEADER + len;
	}
	return 0;
#undef FAIL
#undef NO_NUL
#undef ONCE
#undef EXACT
#undef AT_LEAST
#undef AFTER
}

int dk_parse_request(const unsigned char *buf, size_t len, struct dk_request *req)
{
	struct counts c = {0};
	memset(req, 0, sizeof *req);
	if (walk(buf, len, req, &c, NULL) < 0)
		return -1;
	if (c.argc == 0)
		return dk_error("empty argv");
	if (c.cgroup_into && c.ncgroup_fds < 2)
		return dk_error("cgroup into without a directory");

	/* One block: 8-aligned arrays first, then the 4-aligned instructions,
	 * then the strings. */
	size_t size = (c.argc + 1 + c.envc + 1 + c.nmasks) * sizeof(char *) + c.nrlimits * sizeof(struct dk_rlimit) +
		      c.nfilters * sizeof(struct sock_fprog) + c.nbinds * sizeof(struct dk_bind) +
		      c.ninsns * sizeof(struct sock_filter) + c.strbytes;
	char *a = malloc(size);
	if (!a)
		return dk_error("out of memory (%zu bytes)", size);
	struct fill f;
	req->arena = a;
	req->argv = f.argv = (char **)a, a += (c.argc + 1) * sizeof(char *);
	req->envp = f.envp = (char **)a, a += (c.envc + 1) * sizeof(char *);
	req->rootfs.masks = f.masks = (const char **)a, a += c.nmasks * sizeof(char *);
	req->rlimits = f.rl = (struct dk_rlimit *)a, a += c.nrlimits * sizeof(struct dk_rlimit);
	req->filters = f.fp = (struct sock_fprog *)a, a += c.nfilters * sizeof(struct sock_fprog);
	req->rootfs.binds = f.binds = (struct dk_bind *)a, a += c.nbinds * sizeof(struct dk_bind);
	f.insn = (struct sock_filter *)a, a += c.ninsns * sizeof(struct sock_filter);
	f.str = a;
	req->argc = c.argc;
	req->envc = c.envc;
	req->rootfs.nmasks = c.nmasks;
	req->nrlimits = c.nrlimits;
	req->nfilters = c.nfilters;
	req->rootfs.nbinds = c.nbinds;
	req->dir = req->hostname = "";
	req->uid = req->gid = -1;
	walk(buf, len, req, &c, &f); /* cannot fail: pass 1 accepted these bytes */
	req->rootfs.tmp_fd = req->rootfs.split ? dk_space_tmp_fd(req->ncgroup_fds, req->netns) : -1;
	*f.argv = NULL;
	*f.envp = NULL;
	return 0;
}

void dk_free_request(struct dk_request *req)
{
	free(req->arena);
	req->arena = NULL;
}
