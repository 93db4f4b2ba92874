//go:build cgo

/*
 * The zygote: a long-lived, single-threaded C process per Sandbox that
 * forks the run helpers, so that a run costs no execve of the docket
 * binary (the C library's start alone, its CPU detection among it, costs
 * about 0.5 ms on a virtual machine) and no namespace creation on its
 * critical path, and that holds the template roots (rootfs.c).
 *
 * docket starts it like a helper, /proc/self/exe with argv[0]
 * "docket-sandbox-zygote", with parent-death signal SIGKILL, in docket's
 * own namespaces and cgroups, and speaks to it over a SOCK_SEQPACKET
 * socket on fd 3, one request at a time (nsinit.Zygote is the other end).
 * Every message is a 16-byte header, little-endian:
 *
 *	u8 kind, 3 bytes 0, u32 template id, u64 clone flags, payload
 *
 *	'T' build template id from the payload, an encoded Request whose
 *	    'R' record describes the root (binds, masks): reply 'K' or 'E'
 *	'D' drop template id: reply 'K'
 *	'S' fork a spare helper on template id into new namespaces (flags, a
 *	    subset of CLONE_NEWPID|NEWNET|NEWIPC|NEWUTS|NEWCGROUP): reply 'P'
 *	    with its pid and, as the one descriptor of the reply, docket's end
 *	    of the spare's own socket; or 'E'. A payload, if any, is an
 *	    encoded Request whose seccomp records are the spare's pre-filter
 *	    (package seccomp, PreFilter)
 *	'C' the same, for a run now: the message carries the run's
 *	    descriptors (below) and the reply none
 *
 * and every reply is u8 kind, 3 bytes 0, i32 pid, then for 'E' the
 * message. The zygote exits when its socket closes.
 *
 * A spare with a pre-filter loads it once its root is ready, before it
 * waits: the filter of every run, loosened by what the helper itself
 * still does (seccomp.HelperCalls), so that the run's target loads only
 * the rest (seccomp.Delta). A spare that cannot load it exits before its
 * run: docket then forks a helper for the run now ('C'), which gets the
 * run's whole filter. The helper stays under the pre-filter, as PID 1 of
 * the run, until it exits.
 *
 * A helper is forked with CLONE_PARENT: its parent is docket, exactly as
 * for a helper docket execs itself, so docket waits for it, signals it,
 * and its parent-death signal follows docket. Before its run is known it
 * enters a private copy of its template and mounts its /proc ("presetup");
 * a spare then waits on its socket until docket sends one message, any
 * byte, with the run's six descriptors: request pipe, status pipe, stdin,
 * stdout, stderr and the run's space (a detached tmpfs docket made, that
 * holds the box and /tmp). An empty read (docket closed the socket)
 * ends it. From there it is the same helper (dk_helper in nsinit.c) with
 * the same request and protocol; only its root is a copy of the template.
 * A spare is used for one run only: every run still gets namespaces no
 * other run has used, made before it was asked for.
 *
 * Nothing here runs untrusted code: the zygote never execs, and a helper
 * it forks leaves every descriptor of the zygote behind before it reads its
 * request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "nsinit.h"


#define ZY_HEADER 16
#define ZY_RUN_FDS 6  /* request, status, stdin, stdout, stderr, the run's space */
/* then up to DK_MAX_CGROUP_FDS cgroup join files and a network namespace */
#define ZY_MAX_RUN_FDS (ZY_RUN_FDS + DK_MAX_CGROUP_FDS + 2) /* + netns, /tmp's mount */
/* A spare's socket, until its run arrives: above every number a run's
 * descriptors go to, which then arrive in place (wait_for_run). */
#define ZY_SPARE_FD (ZY_MAX_RUN_FDS + 4)

static const uint64_t clone_allowed = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;

static struct {
	uint32_t id; /* 0: free */
	int fd;      /* the template's mount namespace */
} templates[DK_MAX_TEMPLATES];

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void reply_fd(char kind, int32_t pid, const char *msg, int fd)
{
	unsigned char hdr[8] = {(unsigned char)kind, 0, 0, 0};
	uint32_t v = (uint32_t)pid;
	for (int i = 0; i < 4; i++)
		hdr[4 + i] = (v >> (8 * i)) & 0xff;
	struct iovec iov[2] = {{hdr, sizeof hdr}, {(void *)msg, msg ? strlen(msg) : 0}};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} cbuf;
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = msg ? 2 : 1};
	if (fd >= 0) {
		memset(&cbuf, 0, sizeof cbuf);
		m.msg_control = cbuf.b;
		m.msg_controllen = sizeof cbuf.b;
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof fd);
	}
	while (sendmsg(DK_ZYGOTE_FD, &m, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			_exit(1); /* docket is gone */
}

static void reply(char kind, int32_t pid, const char *msg)
{
	reply_fd(kind, pid, msg, -1);
}

static void reply_error(void)
{
	reply(DK_SETUP_ERROR, 0, dk_errmsg ? dk_errmsg : "out of memory");
}

static int find_template(uint32_t id)
{
	for (int i = 0; i < DK_MAX_TEMPLATES; i++)
		if (id != 0 && templates[i].id == id)
			return i;
	return -1;
}

/* Back in docket's mount namespace with docket's root and working
 * directory, or never again. */
static void restore(int ns, int root, int cwd)
{
	if (setns(ns, CLONE_NEWNS) < 0 || fchdir(root) < 0 || chroot(".") < 0 || fchdir(cwd) < 0)
		_exit(1); /* docket sees the socket close and execs its helpers */
	close(ns);
	close(root);
	close(cwd);
}

static void build_template(uint32_t id, const unsigned char *p, size_t n)
{
	struct dk_request req;
	if (id == 0 || find_template(id) >= 0) {
		dk_error("template %u: bad or taken id", id);
		return reply_error();
	}
	int slot = -1;
	for (int i = 0; i < DK_MAX_TEMPLATES && slot < 0; i++)
		if (templates[i].id == 0)
			slot = i;
	if (slot < 0) {
		dk_error("more than %d templates", DK_MAX_TEMPLATES);
		return reply_error();
	}
	if (dk_parse_request(p, n, &req) < 0)
		return reply_error();
	if (!req.has_rootfs || req.rootfs.template) {
		dk_free_request(&req);
		dk_error("not a template root");
		return reply_error();
	}
	int ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ns < 0 || root < 0 || cwd < 0) {
		dk_error("template: %s", dk_strerror(errno));
		goto out;
	}
	/* A namespace of its own for the template: every mount below is made
	 * there, after begin_root has made the copy private. */
	if (unshare(CLONE_NEWNS) < 0) {
		dk_error("template: unshare: %s", dk_strerror(errno));
		goto out;
	}
	int t = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	int r = t < 0 ? dk_error("template: %s", dk_strerror(errno)) : dk_build_template(&req.rootfs);
	restore(ns, root, cwd);
	ns = root = cwd = -1;
	if (r < 0) {
		if (t >= 0)
			close(t);
		goto out;
	}
	templates[slot].id = id;
	templates[slot].fd = t;
	dk_free_request(&req);
	return reply('K', 0, NULL);
out:
	if (ns >= 0)
		close(ns);
	if (root >= 0)
		close(root);
	if (cwd >= 0)
		close(cwd);
	dk_free_request(&req);
	reply_error();
}

/*
 * The run's descriptors to 0-4, DK_SPACE_FD and, from DK_CGROUP_FD on, its
 * cgroup files, network namespace (dk_netns_fd) and /tmp's mount
 * (dk_space_tmp_fd), and nothing else (the zygote's socket and templates, a
 * spare's socket). They are first copied above every target number, so
 * no dup2 overwrites one still to be moved.
 */
static void arrange_fds(const int *fds, int nfds)
{
	/* fds: request, status, stdin, stdout, stderr, space (or the box's
	 * mount), cgroup files, network namespace, /tmp's mount */
	int want[ZY_MAX_RUN_FDS] = {fds[2], fds[3], fds[4], fds[0], fds[1], fds[5]};
	int to[ZY_MAX_RUN_FDS] = {0, 1, 2, DK_REQUEST_FD, DK_STATUS_FD, DK_SPACE_FD};
	for (int i = ZY_RUN_FDS; i < nfds; i++) {
		want[i] = fds[i];
		to[i] = DK_CGROUP_FD + (i - ZY_RUN_FDS);
	}
	int tmp[ZY_MAX_RUN_FDS];
	const int above = DK_CGROUP_FD + (ZY_MAX_RUN_FDS - ZY_RUN_FDS);
	for (int i = 0; i < nfds; i++)
		if ((tmp[i] = fcntl(want[i], F_DUPFD_CLOEXEC, above)) < 0)
			_exit(126);
	for (int i = 0; i < nfds; i++) {
		/* stdio and the pipes as for an exec'd helper; the space and
		 * the cgroup files are the helper's and the target's own
		 * business, closed at the target's execve */
		int r = to[i] >= DK_SPACE_FD ? dup3(tmp[i], to[i], O_CLOEXEC) : dup2(tmp[i], to[i]);
		if (r < 0)
			_exit(126);
	}
	if (syscall(SYS_close_range, DK_CGROUP_FD + (nfds - ZY_RUN_FDS), ~0U, 0) < 0)
		_exit(126);
}

/*
 * What a helper can do before its run is known: a private copy of the
 * template, its /proc (of the new pid namespace, of which it is PID 1).
 * A failure is kept as dk_errmsg and reported once the status pipe is
 * there.
 */
static int presetup(int tmpl_fd)
{
	if (setns(tmpl_fd, CLONE_NEWNS) < 0)
		return dk_error("rootfs enter template: %s", dk_strerror(errno));
	/* From here on this helper's mounts are its own: the template stays
	 * as it is for the next run. */
	if (unshare(CLONE_NEWNS) < 0)
		return dk_error("rootfs copy template: %s", dk_strerror(errno));
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return dk_error("rootfs mount /proc: %s", dk_strerror(errno));
	return 0;
}

/* One message on fd and its descriptors (up to max, the rest closed):
 * how many. *n is the message's length, 0 at the end, -1 for an error or
 * a truncated message. */
static int recv_fds(int fd, int *fds, int max, unsigned char *buf, size_t size, ssize_t *n, int flags)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(16 * sizeof(int))];
	} cbuf;
	struct iovec iov = {buf, size};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.b, .msg_controllen = sizeof cbuf.b};
	do
		*n = recvmsg(fd, &m, flags);
	while (*n < 0 && errno == EINTR);
	int nfds = 0;
	if (*n < 0)
		return 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (int i = 0; i < k; i++) {
			int f;
			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
			if (nfds < max)
				fds[nfds++] = f;
			else
				close(f);
		}
	}
	if (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		*n = -1;
	return nfds;
}

/*
 * In the forked helper, a spare: its run's descriptors, in place. docket
 * sends them in the order of the numbers they go to (stdin, stdout,
 * stderr, request, status, space, then the rest: nsinit.Spare.Run), and
 * the kernel gives received descriptors the lowest free numbers, in
 * order: all of them are free below the spare's socket, so each arrives
 * at its number (one that does not would be a bug: the helper exits, and
 * docket reports the setup error).
 * Received without MSG_CMSG_CLOEXEC: stdio must outlive the target's
 * execve, and the target marks everything above stderr close-on-exec
 * itself.
 */
static void wait_for_run(void)
{
	unsigned char b[16];
	ssize_t n;
	int fds[ZY_MAX_RUN_FDS];
	int nfds = recv_fds(ZY_SPARE_FD, fds, ZY_MAX_RUN_FDS, b, sizeof b, &n, 0);
	if (n <= 0 || nfds < ZY_RUN_FDS)
		_exit(0); /* docket let this spare go */
	for (int i = 0; i < nfds; i++)
		if (fds[i] != i)
			_exit(126);
	/* The socket stays open until the target has started (init_loop
	 * closes it): a close here is on the run's path. */
}

/* The pre-filter a spare loads (in the payload of its 'S' message), or
 * nothing: has_seccomp is 0. */
static int parse_prefilter(const unsigned char *p, size_t n, struct dk_request *pre)
{
	memset(pre, 0, sizeof *pre);
	if (n == 0)
		return 0;
	if (dk_parse_request(p, n, pre) < 0)
		return -1;
	if (pre->has_rootfs || pre->nfilters == 0) {
		dk_free_request(pre);
		memset(pre, 0, sizeof *pre);
		return dk_error("a spare's pre-filter request holds no filter, or a root");
	}
	return 0;
}

static void fork_helper(uint32_t id, uint64_t flags, int spare, const int *fds, int nfds,
			const unsigned char *payload, size_t n)
{
	int t = find_template(id);
	if (t < 0) {
		dk_error("no template %u", id);
		return reply_error();
	}
	if (spare ? nfds != 0 : nfds < ZY_RUN_FDS || nfds > ZY_MAX_RUN_FDS) {
		dk_error("%d descriptors, want %d", nfds, spare ? 0 : ZY_RUN_FDS);
		return reply_error();
	}
	if (flags & ~clone_allowed) {
		dk_error("clone flags %#llx not allowed", (unsigned long long)flags);
		return reply_error();
	}
	struct dk_request pre;
	if (parse_prefilter(spare ? payload : NULL, spare ? n : 0, &pre) < 0)
		return reply_error();
	int sp[2] = {-1, -1};
	if (spare && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		dk_error("socketpair: %s", dk_strerror(errno));
		dk_free_request(&pre);
		return reply_error();
	}
	/*
	 * A plain clone (no CLONE_VM: a fork) of this single-threaded process.
	 * With CLONE_PARENT the exit signal is the zygote's own, SIGCHLD.
	 */
	pid_t pid = (pid_t)syscall(SYS_clone, (unsigned long)(flags | CLONE_PARENT | SIGCHLD), NULL, NULL, NULL, NULL);
	if (pid < 0) {
		dk_error("clone: %s", dk_strerror(errno));
		if (spare) {
			close(sp[0]);
			close(sp[1]);
		}
		dk_free_request(&pre);
		return reply_error();
	}
	if (pid == 0) {
		/* Its parent is docket's thread that started the zygote: the
		 * same parent-death signal as an exec'd helper. Should docket be
		 * gone already, its end of the request pipe (or of the spare's
		 * socket) is closed and the helper stops at the read. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (spare) {
			/* Nothing of the zygote's but the template, until it
			 * has been entered: its socket and the template first
			 * above the numbers they go to. */
			int so = fcntl(sp[1], F_DUPFD_CLOEXEC, ZY_SPARE_FD + 2);
			int tf = fcntl(templates[t].fd, F_DUPFD_CLOEXEC, ZY_SPARE_FD + 2);
			if (so < 0 || tf < 0 || dup3(so, ZY_SPARE_FD, O_CLOEXEC) < 0 || dup3(tf, ZY_SPARE_FD + 1, O_CLOEXEC) < 0)
				_exit(126);
			if (syscall(SYS_close_range, 0U, ZY_SPARE_FD - 1, 0) < 0 ||
			    syscall(SYS_close_range, ZY_SPARE_FD + 2, ~0U, 0) < 0)
				_exit(126);
			int ok = presetup(ZY_SPARE_FD + 1) == 0;
			close(ZY_SPARE_FD + 1);
			if (ok && pre.has_seccomp && dk_install_seccomp(pre.filters, pre.nfilters) < 0)
				_exit(126); /* docket forks this run's helper now */
			dk_prefault();
			wait_for_run();
			if (!ok)
				dk_report_setup_error("mount");
		} else {
			int ok = presetup(templates[t].fd) == 0;
			int run[ZY_MAX_RUN_FDS];
			memcpy(run, fds, nfds * sizeof *fds);
			arrange_fds(run, nfds);
			if (!ok)
				dk_report_setup_error("mount");
		}
		dk_helper(1);
	}
	dk_free_request(&pre);
	if (spare) {
		close(sp[1]);
		reply_fd('P', pid, NULL, sp[0]);
		close(sp[0]);
	} else {
		reply('P', pid, NULL);
	}
}

_Noreturn void dk_zygote(void)
{
	static unsigned char buf[DK_ZYGOTE_MAX_MSG];
	for (;;) {
		int fds[16];
		ssize_t n;
		errno = 0;
		int nfds = recv_fds(DK_ZYGOTE_FD, fds, 16, buf, sizeof buf, &n, MSG_CMSG_CLOEXEC);
		if (n == 0)
			_exit(0); /* docket closed the socket, or is gone */
		if (n < 0 && errno != 0)
			_exit(1);
		if (n < ZY_HEADER) { /* or truncated */
			dk_error("malformed message (%zd bytes)", n);
			reply_error();
		} else {
			uint32_t id = le32(buf + 4);
			switch (buf[0]) {
			case 'T':
				build_template(id, buf + ZY_HEADER, (size_t)n - ZY_HEADER);
				break;
			case 'D': {
				int t = find_template(id);
				if (t >= 0) {
					close(templates[t].fd);
					templates[t].id = 0;
				}
				reply('K', 0, NULL);
				break;
			}
			case 'S':
			case 'C':
				fork_helper(id, le64(buf + 8), buf[0] == 'S', fds, nfds, buf + ZY_HEADER, (size_t)n - ZY_HEADER);
				break;
			default:
				dk_error("unknown message kind 0x%02x", buf[0]);
				reply_error();
			}
		}
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
	}
}
