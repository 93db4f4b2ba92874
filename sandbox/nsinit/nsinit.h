//go:build cgo

/*
 * Shared declarations of the C sandbox helper. nsinit.c is the entry point
 * and the protocol; request.c decodes the request; rootfs.c builds the new
 * root; rlimit.c and seccomp.c apply the last two layers. nsinit.go
 * documents the protocol and the wire format; the constants here must
 * match it.
 *
 * The helper runs single-threaded, before the Go runtime exists, and ends
 * in execve or _exit: it never returns into Go, so memory is not freed on
 * its paths (the exec releases it all). Only dk_parse_request is also
 * called from Go, by the tests (nsinit_cgo.go); it leaks nothing.
 */
#ifndef DOCKET_NSINIT_H
#define DOCKET_NSINIT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/filter.h>

/* Older C library headers lack these. */
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

#define DK_ARG0 "docket-sandbox-init"        /* nsinit.Arg0 */
#define DK_PROBE_ARG0 "docket-sandbox-probe" /* nsinit.ProbeArg0 */
#define DK_ZYGOTE_ARG0 "docket-sandbox-zygote" /* nsinit.ZygoteArg0 */

#define DK_BOX_DIR "/box" /* nsinit.BoxDir: a mount point in every template */
static inline const char *dk_box_dir(void) { return DK_BOX_DIR; }

#define DK_MAX_TEMPLATES 64            /* nsinit.MaxTemplates */
#define DK_ZYGOTE_MAX_MSG (256 << 10)  /* nsinit.maxZygoteMessage */

#define DK_REQUEST_FD 3 /* the request */
#define DK_STATUS_FD 4  /* 'R', 'E' + message, 'X' + message */
#define DK_SPACE_FD 5  /* with DK_ROOTFS_FDS: the run's space, a detached tmpfs */
#define DK_ZYGOTE_FD 3 /* the zygote's control socket */
/* The run's cgroup join files (v1 tasks, v2 cgroup.procs), opened for
 * writing by the parent, from here on (request tag 'G' says how many): the target writes itself into
 * each before it gives up root. */
#define DK_CGROUP_FD 6
#define DK_MAX_CGROUP_FDS 4 /* nsinit.MaxCgroupFDs */
/* With request tag 'N': the network namespace the helper enters, the
 * descriptor right after the cgroup files (nsinit.NetNSFD). */
static inline int dk_netns_fd(int ncgroup_fds) { return DK_CGROUP_FD + ncgroup_fds; }
/* /tmp's detached mount with DK_ROOTFS_SPLIT: after the cgroup files and
 * the network namespace (the Go side: sandbox.pipes.helperFiles). */
static inline int dk_space_tmp_fd(int ncgroup_fds, int netns) { return dk_netns_fd(ncgroup_fds) + !!netns; }

#define DK_READY 'R'
#define DK_SETUP_ERROR 'E'
#define DK_EXEC_ERROR 'X'
#define DK_TARGET_STATUS 'S' /* after 'R': the target's wait status */

#define DK_MAX_REQUEST (16 << 20) /* nsinit.MaxRequest */

/* Record tags and flag bits, as in nsinit.go. */
enum {
	DK_TAG_ARG = 'A',
	DK_TAG_ENV = 'E',
	DK_TAG_DIR = 'D',
	DK_TAG_HOST = 'H',
	DK_TAG_IDS = 'U',
	DK_TAG_RLIMIT = 'L',
	DK_TAG_SECCOMP = 'S',
	DK_TAG_FILTER = 'F',
	DK_TAG_ROOTFS = 'R',
	DK_TAG_BIND = 'B',
	DK_TAG_MASK = 'M',
	DK_TAG_CGROUPS = 'G',
	DK_TAG_NETNS = 'N',
	DK_TAG_INTO = 'C',
};
enum {
	DK_ROOTFS_PROC = 1,
	DK_ROOTFS_DEV_BY_BIND = 2,
	DK_ROOTFS_TEMPLATE = 4,
	DK_ROOTFS_FDS = 8,
	DK_ROOTFS_SPLIT = 16,
	DK_BIND_WRITABLE = 1,
	DK_BIND_OPTIONAL = 2,
};

/* mount.Bind */
struct dk_bind {
	const char *src;
	const char *dst; /* "" means src */
	int writable;
	int optional;
};

/* mount.Rootfs */
struct dk_rootfs {
	const char *mount_point;
	int64_t tmp_size; /* <= 0: 16 MiB */
	int proc;
	int dev_by_bind;
	int template; /* per-run mounts on a copy of the template (zygote only) */
	/* The box and /tmp are the directories box and tmp of the detached
	 * tmpfs on DK_SPACE_FD (the run's bounded writable space, made by the
	 * parent) instead of a box bind and a tmpfs of tmp_size. */
	int fds;
	/* With fds (mount.Rootfs.Split): the parent sent the two directories
	 * as detached mounts of their own, the box on DK_SPACE_FD and /tmp on
	 * tmp_fd (dk_space_tmp_fd), which are attached as they are. */
	int split;
	int tmp_fd;
	struct dk_bind *binds;
	size_t nbinds;
	const char **masks;
	size_t nmasks;
};

/* rlimit.Limit */
struct dk_rlimit {
	int resource;
	uint64_t cur, max;
};

/* nsinit.Request. Every pointer points into one allocation, arena. */
struct dk_request {
	char **argv; /* NULL-terminated, argc >= 1 */
	size_t argc;
	char **envp; /* NULL-terminated */
	size_t envc;
	const char *dir;      /* "": stay */
	const char *hostname; /* "": keep */
	int64_t uid, gid;     /* uid < 0: no switch */
	struct dk_rlimit *rlimits;
	size_t nrlimits;
	int has_seccomp;
	struct sock_fprog *filters;
	size_t nfilters;
	int ncgroup_fds; /* at DK_CGROUP_FD and up */
	int netns;       /* enter the network namespace at dk_netns_fd */
	int cgroup_into; /* the last cgroup fd is the group's directory: start the target in it */
	int has_rootfs;
	struct dk_rootfs rootfs;
	void *arena;
};

/*
 * The error of the last failed step, worded as Go would word it (no
 * stage prefix: the caller adds that). dk_error formats it and returns -1,
 * so a failing step ends with "return dk_error(...)". The arguments may
 * include dk_errmsg itself, to wrap the previous message.
 */
extern char *dk_errmsg;
int dk_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Go's syscall.Errno(e).Error(): "no such file or directory". */
const char *dk_strerror(int e);

/* request.c: decode len bytes of records into *req (0), or set dk_errmsg (-1). */
int dk_parse_request(const unsigned char *buf, size_t len, struct dk_request *req);
void dk_free_request(struct dk_request *req); /* the zygote and the Go tests; a helper never frees */

/* rootfs.c: build the new root and pivot into it; cwd is "/" afterwards. */
int dk_build_rootfs(const struct dk_rootfs *r);
/* rootfs.c: one bind, as in a build (for the Go tests, nsinit_cgo.go). */
int dk_bind_one(const char *root, const struct dk_bind *b);
/* submounts.c: every mount at and below full, a bind's mount point, made
 * nosuid, nodev and (unless writable) read-only; -1 with dk_errmsg set.
 * dk_no_mount_setattr, set only by the tests, makes it take the fallback
 * of a kernel without mount_setattr. */
int dk_restrict_tree(const char *full, int writable);
extern int dk_no_mount_setattr;
/* rootfs.c, in the zygote: build a template root in the current (new,
 * private) mount namespace and pivot into it: binds, masks and /dev, and
 * the empty mount points /tmp, /proc and DK_BOX_DIR. */
int dk_build_template(const struct dk_rootfs *r);
/* rootfs.c, in a helper forked by the zygote, already in its copy of the
 * template with /proc mounted: the box and /tmp from the run's space on
 * DK_SPACE_FD (r must say so); cwd is "/" afterwards. */
int dk_enter_template(const struct dk_rootfs *r);

/* nsinit.c: the helper, from the constructor (forked 0) or from the
 * zygote (forked 1, zygote.c); and its setup error report, for the
 * zygote's part of a helper's setup (dk_errmsg is the message). */
_Noreturn void dk_helper(int forked);
void dk_prefault(void); /* a spare, before it waits: see nsinit.c */
_Noreturn void dk_report_setup_error(const char *stage);
/* zygote.c */
_Noreturn void dk_zygote(void);

/*
 * A system call that leaves errno alone: its result, or -errno. The
 * target's setup makes its calls so while it shares PID 1's memory (and
 * so its errno) and both run (target.c).
 */
static inline long dk_sys(long nr, long a, long b, long c, long d, long e)
{
#if defined(__x86_64__)
	register long rax __asm__("rax") = nr;
	register long rdi __asm__("rdi") = a;
	register long rsi __asm__("rsi") = b;
	register long rdx __asm__("rdx") = c;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	__asm__ volatile("syscall"
			 : "+r"(rax)
			 : "r"(rdi), "r"(rsi), "r"(rdx), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return rax;
#else
	/* Elsewhere through the C library, errno and all: the target is
	 * forked early on amd64 alone (dk_helper). */
	long r = syscall(nr, a, b, c, d, e);
	return r < 0 ? -errno : r;
#endif
}

/* rlimit.c: every limit of l (0), or -errno and the one that failed
 * (*at), worded with its errno by dk_rlimit_error. */
long dk_set_rlimits(const struct dk_rlimit *l, size_t n, size_t *at);
int dk_rlimit_error(const struct dk_rlimit *l, size_t at, int e);
/* seccomp.c: no_new_privs and every filter (0), or -errno and where it
 * failed (*at), worded with its errno by dk_filters_error;
 * dk_install_seccomp is both (-1, dk_errmsg set). */
long dk_load_filters(const struct sock_fprog *progs, size_t n, size_t *at);
int dk_filters_error(size_t at, int e);
int dk_install_seccomp(const struct sock_fprog *progs, size_t n);

/* target.c: the target PID 1 forks (early: before PID 1's own setup is
 * done, and told go or abort then), on dk_target_stack. */
struct dk_target {
	struct dk_request *req;
	int early;   /* forked before PID 1's root and check: waits for go */
	int joined;  /* started in the run's cgroup */
	int go;      /* 0 wait, 1 go, -1 abort: the futex word */
	const char *path; /* the program, set with go */
	/* a failure of the target's setup, worded after go */
	const char *stage;
	int err, kind;
	size_t at;
};
#define DK_TARGET_STACK (64 << 10)
extern char dk_target_stack[DK_TARGET_STACK];
pid_t dk_start_target(struct dk_target *t);
void dk_release_target(struct dk_target *t, const char *path);
void dk_abort_target(struct dk_target *t);
/* target.c: the run's uid (groups, then gid, then uid), for the target
 * and for PID 1 while it waits: 0, or -errno and the call that failed
 * (*stage); no errno, nothing allocated. */
long dk_drop_uid(const struct dk_request *r, const char **stage);
/* nsinit.c: the target could not exec: an 'X' record, exit 127. */
_Noreturn void dk_child_fail(const char *stage, const char *stage_arg);

/*
 * nsinit.c, for setup steps only (before the ready byte): a new string
 * a+b+c; or, out of memory, an 'E' report and exit.
 */
char *dk_concat3(const char *a, const char *b, const char *c);
_Noreturn void dk_oom(void);

#endif
