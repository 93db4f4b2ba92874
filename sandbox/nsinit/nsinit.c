//go:build cgo

/*
 * The sandbox helper, in C, run before the Go runtime exists (the runc
 * nsexec pattern).
 *
 * Cmd.Start clones /proc/self/exe with argv[0] "docket-sandbox-init" into
 * new namespaces. Executing the docket binary normally means starting the
 * Go runtime and running every package's init function, about 2 ms of a
 * run's cost spent before the helper's first system call. A constructor
 * runs earlier: the C library calls it while it starts the process, before
 * main, that is before the Go runtime. So this file recognises the helper's
 * argv[0], does the whole setup with plain system calls and execs the
 * target. It never returns into Go: either execve replaces the process or
 * _exit ends it. For any other argv[0] it returns at once and docket starts
 * as usual.
 *
 * Constraints that follow from running before Go:
 *   - The process is single-threaded (no Go threads exist), so per-thread
 *     state such as pdeathsig and the seccomp filters is simply the
 *     process's, and no TSYNC is needed.
 *   - Nothing here may call into Go, and nothing may be left running.
 *   - Its messages read like Go's errors (errno texts as syscall.Errno
 *     words them, io.ReadFull's "EOF"), as those of the rest of docket;
 *     the tests hold them word for word.
 *
 * The protocol (fd 3 request, fd 4 status, fd 6 on the cgroup files) is
 * documented in nsinit.go.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <stdint.h>
#include <unistd.h>

#include "nsinit.h"


/* ---- errors ---- */

char *dk_errmsg;

int dk_error(const char *fmt, ...)
{
	char *m;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&m, fmt, ap);
	va_end(ap);
	/* Freed only now: the arguments may include the old message. */
	free(dk_errmsg);
	dk_errmsg = r < 0 ? NULL : m; /* NULL is reported as "out of memory" */
	return -1;
}

const char *dk_strerror(int e)
{
	/*
	 * Go's syscall.Errno.Error() is glibc's strerror text with the first
	 * letter lowercased ("Bad" -> "bad", "STREAM" unchanged), generated
	 * from errnos 1..ERFKILL; anything outside its table is "errno N".
	 * Reproduce both so messages read as Go's would, byte for byte.
	 */
	static char buf[128];
	const char *s = e >= 1 && e <= ERFKILL ? strerror(e) : "Unknown error";
	if (strncmp(s, "Unknown error", 13) == 0) {
		snprintf(buf, sizeof buf, "errno %d", e);
		return buf;
	}
	snprintf(buf, sizeof buf, "%s", s);
	if (buf[0] >= 'A' && buf[0] <= 'Z' && buf[1] >= 'a' && buf[1] <= 'z')
		buf[0] += 'a' - 'A';
	return buf;
}

/* ---- the status pipe ---- */

/* Writes every byte of iov, resuming after partial writes and EINTR. */
static int write_iov(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= iov->iov_len;
			iov++, n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
	return 0;
}

/*
 * Sends kind + stage + stage_arg + ": " + dk_errmsg and exits 127. It
 * allocates nothing, so it also works for an execve that failed for lack
 * of memory.
 */
static _Noreturn void report(char kind, const char *stage, const char *stage_arg)
{
	const char *msg = dk_errmsg ? dk_errmsg : "out of memory";
	if (!stage_arg)
		stage_arg = "";
	struct iovec iov[] = {
		{&kind, 1},
		{(void *)stage, strlen(stage)},
		{(void *)stage_arg, strlen(stage_arg)},
		{": ", 2},
		{(void *)msg, strlen(msg)},
	};
	write_iov(DK_STATUS_FD, iov, 5);
	_exit(127);
}

void dk_oom(void)
{
	/* Only setup steps allocate, so this is a setup error. */
	free(dk_errmsg);
	dk_errmsg = NULL; /* "out of memory" */
	report(DK_SETUP_ERROR, "setup", NULL);
}

char *dk_concat3(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *s = malloc(la + lb + lc + 1);
	if (!s)
		dk_oom();
	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	memcpy(s + la + lb, c, lc + 1);
	return s;
}

/* ---- the request ---- */

/* Reads up to n bytes, stopping early only at EOF: bytes read, or -1. */
static ssize_t read_full(int fd, unsigned char *b, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, b + got, n - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += r;
	}
	return got;
}

/*
 * The framed request: the 4-byte little-endian length, then exactly that
 * many bytes (never more). The messages are io.ReadFull's ("EOF",
 * "unexpected EOF") and an *os.File named "request" ("read request:
 * <errno>").
 */
static int read_request(struct dk_request *req)
{
	unsigned char hdr[4];
	ssize_t got = read_full(DK_REQUEST_FD, hdr, sizeof hdr);
	if (got < 0)
		return dk_error("read request: %s", dk_strerror(errno));
	if (got < (ssize_t)sizeof hdr)
		return dk_error("%s", got == 0 ? "EOF" : "unexpected EOF");
	uint32_t n = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 24;
	if (n > DK_MAX_REQUEST)
		return dk_error("request too large (%u bytes)", n);
	unsigned char *buf = malloc(n ? n : 1);
	if (!buf)
		return dk_error("out of memory (%u bytes)", n);
	got = read_full(DK_REQUEST_FD, buf, n);
	if (got < 0)
		return dk_error("read request: %s", dk_strerror(errno));
	if ((size_t)got < n)
		return dk_error("%s", got == 0 ? "EOF" : "unexpected EOF");
	int r = dk_parse_request(buf, n, req);
	free(buf); /* the request holds copies */
	return r;
}

/* ---- finding the program ---- */

/* A file the new uid may execute. */
static int executable(const char *p)
{
	struct stat st;
	if (stat(p, &st) < 0)
		return dk_error("%s: %s", p, dk_strerror(errno));
	if (S_ISDIR(st.st_mode))
		return dk_error("%s: is a directory", p);
	/* The effective ids are the target's here (check_target); AT_EACCESS
	 * makes the check use them rather than the real (root) ones. */
	if (faccessat(AT_FDCWD, p, X_OK, AT_EACCESS) < 0)
		return dk_error("%s: not executable: %s", p, dk_strerror(errno));
	return 0;
}

/*
 * Finds the program: a name with a slash as is (relative to the
 * working directory, which is set by now), else the first executable
 * dir/name along PATH from the target's environment (the last PATH= entry
 * wins; empty elements are skipped, where a shell would search the working
 * directory).
 */
static const char *look_path(const char *name, char *const *envp)
{
	if (strchr(name, '/'))
		return executable(name) < 0 ? NULL : name;
	const char *path = "";
	for (char *const *e = envp; *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			path = *e + 5;
	for (const char *d = path;;) {
		const char *end = strchrnul(d, ':');
		if (end > d) {
			char *dir = strndup(d, end - d);
			if (!dir)
				dk_oom();
			char *p = dk_concat3(dir, "/", name);
			free(dir);
			if (executable(p) == 0)
				return p;
			free(p);
		}
		if (!*end)
			break;
		d = end + 1;
	}
	dk_error("%s: not found in the box or on PATH %s", name, path);
	return NULL;
}

/* ---- the setup ---- */

/* Sets the message for a failed system call and returns its stage. */
static const char *sys_fail(int e, const char *stage)
{
	dk_error("%s", dk_strerror(e));
	return stage;
}

/*
 * A run that keeps no network enters its slot's network namespace
 * (request tag 'N'), one docket made and checked to hold no socket,
 * instead of a new one per run: the helper was forked in docket's. The
 * descriptor is closed at once; the target inherits the namespace.
 */
static const char *enter_netns(struct dk_request *r)
{
	if (!r->netns)
		return NULL;
	int fd = dk_netns_fd(r->ncgroup_fds);
	int rc = setns(fd, CLONE_NEWNET);
	int e = errno;
	close(fd);
	return rc < 0 ? sys_fail(e, "netns") : NULL;
}

/*
 * The setup is split at the fork. What needs root inside the new
 * namespaces (the network namespace, the new root, the hostname) happens
 * before the ready byte, in the process that becomes PID 1. Everything
 * that concerns the target alone (its cgroup, rlimits, uid, pdeathsig,
 * descriptors, seccomp, cwd, program) happens in the forked child, PID 2
 * (target.c), which a spare forks early, to set itself up while PID 1
 * does its part.
 *
 * Why a child and not PID 1 itself: the kernel does not deliver to a pid
 * namespace's init the signals that the init's own namespace sends it with
 * a default action. Those include the ones the kernel raises on the
 * process's own behalf: SIGXFSZ past RLIMIT_FSIZE, SIGXCPU, a SIGABRT that
 * abort() raises, SIGPIPE. As PID 2 the target gets them as on any host,
 * so a file-size overrun ends as SIGXFSZ (OLE) and an assert as SIGABRT.
 */
static const char *setup_root(struct dk_request *r, int forked)
{
	if (r->has_rootfs) {
		if (r->rootfs.template) {
			if (!forked) {
				dk_error("a template root needs the zygote");
				return "mount";
			}
			if (dk_enter_template(&r->rootfs) < 0)
				return "mount";
		} else if (dk_build_rootfs(&r->rootfs) < 0) {
			return "mount";
		}
	}
	if (r->hostname[0] && sethostname(r->hostname, strlen(r->hostname)) < 0)
		return sys_fail(errno, "sethostname");
	return NULL;
}

/*
 * PID 1 needs nothing of root to wait: it gives it up, quietly (an
 * early target may be wording its own failure meanwhile, in memory they
 * share: nothing here allocates or sets errno). The order: groups, then
 * gid, then uid; pdeathsig after, since the switch clears it.
 */
static void init_drop_root(const struct dk_request *r)
{
	const char *stage;
	if (dk_drop_uid(r, &stage) == 0)
		dk_sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}

/*
 * Before the ready byte, still as PID 1: enter the working directory and
 * find the program with the target's effective uid and gid (and no
 * supplementary groups), so that a box it may not enter or a program it
 * may not run is a setup error the parent gets from Start, and the forked
 * target inherits the directory. Then back to root for the fork.
 */
static const char *check_target(struct dk_request *r, const char **path, const char **stage_arg)
{
	if (r->uid >= 0) {
		if (setgroups(0, NULL) < 0)
			return sys_fail(errno, "setgroups");
		if (setegid((gid_t)r->gid) < 0)
			return sys_fail(errno, "setresgid");
		if (seteuid((uid_t)r->uid) < 0)
			return sys_fail(errno, "setresuid");
	}
	if (r->dir[0] && chdir(r->dir) < 0) {
		*stage_arg = r->dir;
		return sys_fail(errno, "chdir ");
	}
	*path = look_path(r->argv[0], r->envp);
	if (!*path)
		return "find program";
	if (r->uid >= 0 && (seteuid(0) < 0 || setegid(0) < 0))
		return sys_fail(errno, "restore root");
	return NULL;
}

/* The CLOCK_MONOTONIC time, in ns, 8 bytes little-endian: when the
 * target starts (send_ready) and when PID 1 reaped it (init_loop). */
static void put_stamp(unsigned char b[8])
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(ns >> (8 * i));
}

/* A framed record on the status pipe after the ready byte: kind, 4-byte
 * little-endian length or value, payload. */
static void send_record(char kind, uint32_t v, const char *payload, size_t n)
{
	unsigned char hdr[5] = {(unsigned char)kind, v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff};
	struct iovec iov[] = {{hdr, 5}, {(void *)payload, n}};
	write_iov(DK_STATUS_FD, iov, payload ? 2 : 1);
}

/* The child could not exec the target: one framed 'X' record, exit 127
 * (init then reports that exit as the target's status). */
_Noreturn void dk_child_fail(const char *stage, const char *stage_arg)
{
	char buf[4096];
	int n = snprintf(buf, sizeof buf, "%s%s: %s", stage, stage_arg ? stage_arg : "",
			 dk_errmsg ? dk_errmsg : "out of memory");
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof buf)
		n = sizeof buf - 1;
	send_record(DK_EXEC_ERROR, (uint32_t)n, buf, (size_t)n);
	_exit(127);
}

/*
 * PID 1 of the run: reaps every process of the namespace and, when the
 * target exits, sends its wait status and exits, which makes the kernel
 * kill whatever is left in the namespace. It holds none of the target's
 * stdio: an interactor must see EOF when the submission closes its stdout.
 */
static _Noreturn void init_loop(struct dk_request *r, pid_t target)
{
	/* Nothing but the status pipe from here on: the request pipe, the
	 * space's mounts, the cgroup files, the network namespace and a
	 * spare's socket (which wait_for_run leaves open, off the run's path)
	 * go. */
	close(DK_REQUEST_FD);
	syscall(SYS_close_range, DK_STATUS_FD + 1, ~0U, 0);
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd <= 2; fd++) {
		if (devnull >= 0)
			dup2(devnull, fd);
		else
			close(fd);
	}
	init_drop_root(r);
	for (;;) {
		int status;
		pid_t p = wait4(-1, &status, 0, NULL);
		if (p == target) {
			/* With the time it ended: docket's clock stops then, not
			 * when it reads this. */
			unsigned char stamp[8];
			put_stamp(stamp);
			send_record(DK_TARGET_STATUS, (uint32_t)status, (const char *)stamp, sizeof stamp);
			_exit(0);
		}
		if (p < 0 && errno != EINTR)
			_exit(1);
	}
}

/*
 * A spare is a fork of the zygote: each page of the zygote's heap and
 * stack it writes first is copied then (a copy-on-write fault), and a
 * page of static memory it touches first is mapped then. On the run's
 * path these cost a few microseconds each (parsing the request, the
 * target's stack), so a spare takes them before it waits: 64 KiB of heap
 * (given back to malloc, which keeps it), 16 KiB of its own stack below
 * this frame and the top 16 KiB of the target's stack.
 */
char dk_target_stack[DK_TARGET_STACK] __attribute__((aligned(64)));

static __attribute__((noinline)) void prefault_stack(void)
{
	volatile char below[16 << 10];
	for (size_t i = 0; i < sizeof below; i += 4096)
		below[i] = 0;
}

void dk_prefault(void)
{
	char *heap = malloc(64 << 10);
	if (heap) {
		memset(heap, 0, 64 << 10);
		free(heap);
	}
	prefault_stack();
	memset(dk_target_stack + DK_TARGET_STACK - (16 << 10), 0, 16 << 10);
}

/*
 * The ready message: DK_READY and the CLOCK_MONOTONIC time, in ns, 8
 * bytes little-endian, just before the target is forked or, forked
 * early, told go. The parent's wall clock starts then, not when it reads
 * the message: on a busy machine the parent may read it after the target
 * has run.
 */
static int send_ready(void)
{
	unsigned char msg[9] = {DK_READY};
	put_stamp(msg + 1);
	struct iovec iov = {msg, sizeof msg};
	return write_iov(DK_STATUS_FD, &iov, 1);
}

_Noreturn void dk_report_setup_error(const char *stage)
{
	report(DK_SETUP_ERROR, stage, NULL);
}

/*
 * Whether the target is forked early (target.c): by a spare, whose root
 * is its template's and whose own setup only attaches the box and /tmp
 * to it, on amd64 (where the target's system calls leave errno alone). A
 * helper that builds a whole root pivots into it, which comes before its
 * target exists.
 */
static int fork_early(const struct dk_request *r, int forked)
{
#if defined(__x86_64__)
	return forked && r->has_rootfs && r->rootfs.template;
#else
	(void)r, (void)forked;
	return 0;
#endif
}

/*
 * Ready: the parent learns that the target starts now. Nothing of the
 * parent's is needed any more: the target joins the run's cgroup itself,
 * so this process, its memory and its setup time stay outside it, and
 * the target starts without a round trip. Forked early, the target has
 * set itself up meanwhile (or failed, which it reports after go).
 */
_Noreturn void dk_helper(int forked)
{
	static struct dk_request req; /* the target reads it, forked early */
	static struct dk_target t;
	if (read_request(&req) < 0)
		report(DK_SETUP_ERROR, "read request", NULL);
	const char *stage = enter_netns(&req), *path = NULL, *stage_arg = NULL;
	if (stage)
		report(DK_SETUP_ERROR, stage, NULL);
	t.req = &req;
	t.early = fork_early(&req, forked);
	pid_t child = -1;
	if (t.early && (child = dk_start_target(&t)) < 0)
		t.early = 0; /* forked after, as any helper's: a failure is its */
	stage = setup_root(&req, forked);
	if (!stage)
		stage = check_target(&req, &path, &stage_arg);
	if (stage) {
		if (t.early)
			dk_abort_target(&t);
		report(DK_SETUP_ERROR, stage, stage_arg);
	}
	if (send_ready() < 0)
		_exit(1); /* an early target ends with the namespace */
	/* Forked after, the target finds go given and does not wait. */
	dk_release_target(&t, path);
	if (!t.early && (child = dk_start_target(&t)) < 0) {
		dk_error("%s", dk_strerror(errno));
		dk_child_fail("fork", NULL);
	}
	init_loop(&req, child);
}

/* ---- the entry ---- */

/*
 * Every signal's disposition to the default, once, as the helper or the
 * zygote starts: execve has reset the handlers docket had, but a signal
 * docket inherited as ignored (nohup's SIGHUP, a shell's SIGPIPE) would
 * stay ignored in the target. Nothing in these processes sets a
 * disposition afterwards and fork copies them, so the zygote's spares and
 * every target have the defaults without a loop of sigaction calls in
 * each run (64 system calls, on the target's way to its execve).
 */
static void default_signals(void)
{
	/*
	 * The system call, not sigaction(3): the C library refuses the
	 * signals it reserves for itself (glibc's 32 and 33, musl's 32-34),
	 * and a process can inherit those ignored too (seen in CI: 32). A
	 * kernel sigaction all zeros is SIG_DFL, no flags, an empty mask,
	 * whatever the architecture's field order; SIGKILL and SIGSTOP are
	 * refused harmlessly.
	 */
	unsigned long dfl[4] = {0};
	for (int sig = 1; sig <= 64; sig++)
		syscall(SYS_rt_sigaction, sig, dfl, NULL, 8);
}

#ifndef __GLIBC__
/* argv[0] from /proc/self/cmdline, for C libraries that do not pass
 * (argc, argv, envp) to constructors. */
static int arg0_is(const char *want)
{
	char buf[64];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strcmp(buf, want) == 0;
}
#endif

/*
 * glibc calls constructors of the executable with (argc, argv, envp)
 * before main; the Go runtime starts from main (cgo builds link through the
 * C library's start code), so this runs first, single-threaded.
 */
__attribute__((constructor)) static void dk_nsinit(int argc, char **argv, char **envp)
{
	(void)envp;
#ifdef __GLIBC__
	if (argc < 1 || !argv[0])
		return;
	const char *arg0 = argv[0];
	if (strcmp(arg0, DK_PROBE_ARG0) == 0)
		_exit(0);
	if (strcmp(arg0, DK_ARG0) == 0) {
		default_signals();
		dk_helper(0);
	}
	if (strcmp(arg0, DK_ZYGOTE_ARG0) == 0) {
		default_signals();
		dk_zygote();
	}
#else
	(void)argc, (void)argv;
	if (arg0_is(DK_PROBE_ARG0))
		_exit(0);
	if (arg0_is(DK_ARG0)) {
		default_signals();
		dk_helper(0);
	}
	if (arg0_is(DK_ZYGOTE_ARG0)) {
		default_signals();
		dk_zygote();
	}
#endif
}
