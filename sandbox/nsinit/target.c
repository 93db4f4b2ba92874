//go:build cgo

/*
 * The target's side of the helper: the child PID 1 forks, which sets
 * itself up (cgroup, rlimits, uid, seccomp) and execs the program.
 *
 * Forked early. A spare (a helper the zygote forked, whose root is a copy
 * of a template) forks its target as soon as its request is read and it
 * has entered the slot's network namespace, and attaches the run's box
 * and /tmp and checks the program meanwhile: the two setups, PID 1's and
 * the target's, overlap on two CPUs. The target waits, with everything
 * but its working directory and its execve done, until PID 1 says go
 * (after the ready message, with the program's path) or abort (PID 1
 * failed, reports it, and its exit kills the target with the pid
 * namespace). A helper exec'd by docket builds a whole root and pivots
 * into it first; it forks its target afterwards, go already given, as
 * PID 1 waits (CLONE_VFORK).
 *
 * Until go, PID 1 and the target share memory (CLONE_VM) and run at once,
 * and the C library does not know the target exists: errno and the heap
 * are PID 1's. So the target's setup makes its system calls itself
 * (dk_sys: no errno), allocates nothing, and keeps a failure as a stage
 * and an error number, worded (dk_error, which allocates) only after go:
 * PID 1 then waits in init_loop, which allocates nothing and sets no
 * errno, and the target's message goes out after the ready message, as
 * the protocol wants.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nsinit.h"

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* How a failure before go is worded once go has come. */
enum { FAIL_CALL, FAIL_RLIMIT, FAIL_SECCOMP };

/* target_failed: the target could not set itself up; its record goes
 * out after go. */
static int target_failed(struct dk_target *t, const char *stage, long e, int kind, size_t at)
{
	t->stage = stage;
	t->err = e < 0 ? (int)-e : EIO;
	t->kind = kind;
	t->at = at;
	return -1;
}

/*
 * The target moves itself into the run's cgroup, one write of "0" (the
 * writer) to each join file the parent opened (v1 `tasks`: the target
 * is one thread, and that file moves it without the kernel's global
 * threadgroup lock; v2 cgroup.procs). The permission check is made
 * against the opener's credentials (docket's), and from here on
 * everything the target does is charged to the run. A target started in
 * the group (joined) writes nothing; with cgroup_into the last
 * descriptor is the group's directory, not a file to write, and the
 * target then makes a cgroup namespace of its own, rooted at the group
 * (the helper has none: see dk_start_target).
 */
static int join_cgroups(struct dk_target *t)
{
	const struct dk_request *r = t->req;
	int files = r->ncgroup_fds - (r->cgroup_into ? 1 : 0);
	for (int i = 0; !t->joined && i < files; i++) {
		long n;
		do
			n = dk_sys(SYS_write, DK_CGROUP_FD + i, (long)"0", 1, 0, 0);
		while (n == -EINTR);
		if (n != 1)
			return target_failed(t, "cgroup join", n, FAIL_CALL, 0);
	}
	long rc;
	if (r->cgroup_into && (rc = dk_sys(SYS_unshare, CLONE_NEWCGROUP, 0, 0, 0, 0)) < 0)
		return target_failed(t, "cgroup namespace", rc, FAIL_CALL, 0);
	return 0;
}

long dk_drop_uid(const struct dk_request *r, const char **stage)
{
	if (r->uid < 0)
		return 0;
	long rc;
	if ((rc = dk_sys(SYS_setgroups, 0, 0, 0, 0, 0)) < 0)
		*stage = "setgroups";
	else if ((rc = dk_sys(SYS_setresgid, r->gid, r->gid, r->gid, 0, 0)) < 0)
		*stage = "setresgid";
	else if ((rc = dk_sys(SYS_setresuid, r->uid, r->uid, r->uid, 0, 0)) < 0)
		*stage = "setresuid";
	return rc;
}

/*
 * The target's setup, in order:
 *   - the run's cgroup first, so that all that follows is the run's;
 *   - rlimits next, still as root: every limit is set explicitly, and
 *     raising a hard limit above the worker's own (a worker started under
 *     ulimit -v) needs CAP_SYS_RESOURCE, which the uid switch drops. No
 *     step after them runs into them: setresuid only notes RLIMIT_NPROC,
 *     which execve checks again;
 *   - the uid switch;
 *   - pdeathsig after it, since it clears pdeathsig; the parent is init;
 *   - close_range before seccomp: every inherited descriptor above
 *     stderr, the status pipe included, closes at execve;
 *   - an empty signal mask (the dispositions are already the defaults:
 *     default_signals); execve keeps blocked signals;
 *   - seccomp last: it forbids mount and friends and, for a
 *     single-process run, fork; from here on only the wait for go, the
 *     working directory and execve follow.
 */
static int target_setup(struct dk_target *t)
{
	const struct dk_request *r = t->req;
	if (join_cgroups(t) < 0)
		return -1;
	size_t at;
	long rc = dk_set_rlimits(r->rlimits, r->nrlimits, &at);
	if (rc < 0)
		return target_failed(t, "rlimit", rc, FAIL_RLIMIT, at);
	const char *stage = NULL;
	if ((rc = dk_drop_uid(r, &stage)) < 0)
		return target_failed(t, stage, rc, FAIL_CALL, 0);
	if ((rc = dk_sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)) < 0)
		return target_failed(t, "pdeathsig", rc, FAIL_CALL, 0);
	if ((rc = dk_sys(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC, 0, 0)) < 0)
		return target_failed(t, "close_range", rc, FAIL_CALL, 0);
	uint64_t none = 0;
	dk_sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&none, 0, sizeof none, 0);
	if (r->has_seccomp && (rc = dk_load_filters(r->filters, r->nfilters, &at)) < 0)
		return target_failed(t, "seccomp", rc, FAIL_SECCOMP, at);
	return 0;
}

/* go as PID 1 set it: 1 go, -1 abort. */
static int wait_go(struct dk_target *t)
{
	int go;
	while ((go = __atomic_load_n(&t->go, __ATOMIC_ACQUIRE)) == 0)
		dk_sys(SYS_futex, (long)&t->go, FUTEX_WAIT_PRIVATE, 0, 0, 0);
	return go;
}

/* Words a failure of target_setup, now that dk_error may allocate. */
static _Noreturn void report_failure(struct dk_target *t)
{
	switch (t->kind) {
	case FAIL_RLIMIT:
		dk_rlimit_error(t->req->rlimits, t->at, t->err);
		break;
	case FAIL_SECCOMP:
		dk_filters_error(t->at, t->err);
		break;
	default:
		dk_error("%s", dk_strerror(t->err));
	}
	dk_child_fail(t->stage, NULL);
}

/* The target's side of the fork, on its own stack. */
static int target_main(void *arg)
{
	struct dk_target *t = arg;
	int failed = target_setup(t) < 0;
	if (wait_go(t) < 0)
		_exit(127); /* PID 1 failed: it reports */
	if (failed)
		report_failure(t);
	const struct dk_request *r = t->req;
	/* PID 1's working directory, which it checked as the target's uid
	 * before go: the target was forked before PID 1 entered it. */
	if (t->early && r->has_rootfs && chdir("/") < 0) {
		dk_error("%s", dk_strerror(errno));
		dk_child_fail("chdir /", NULL);
	}
	if (t->early && r->dir[0] && chdir(r->dir) < 0) {
		dk_error("%s", dk_strerror(errno));
		dk_child_fail("chdir ", r->dir);
	}
	execve(t->path, r->argv, r->envp);
	dk_error("%s", dk_strerror(errno));
	dk_child_fail("execve ", r->argv[0]);
}

/* struct clone_args up to its cgroup field (CLONE_ARGS_SIZE_VER2). */
struct dk_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

#if defined(__x86_64__)
/*
 * clone3 whose child runs fn(arg) on the stack ca gives it and exits with
 * what fn returns, as glibc's clone does for clone(2) (glibc offers no
 * clone3): the parent gets the child's pid, or -errno. fn and arg ride in
 * r12 and r13, which the syscall leaves alone in both processes; the
 * stack's top is 16-byte aligned, as the call wants.
 */
static long clone3_run(struct dk_clone_args *ca, int (*fn)(void *), void *arg)
{
	register long rax __asm__("rax") = SYS_clone3;
	register struct dk_clone_args *rdi __asm__("rdi") = ca;
	register long rsi __asm__("rsi") = (long)sizeof *ca;
	register int (*r12)(void *) __asm__("r12") = fn;
	register void *r13 __asm__("r13") = arg;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov $60, %%eax\n\t" /* SYS_exit */
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "+r"(rax)
			 : "r"(rdi), "r"(rsi), "r"(r12), "r"(r13)
			 : "rcx", "r11", "memory");
	return rax;
}
#endif

/*
 * Starts the target: the child's pid, or -1 (errno set). It shares this
 * process's memory until its execve (CLONE_VM, as posix_spawn does: no
 * copy of the page tables, no copy-on-write faults) and runs on a stack
 * of its own. Forked early, this process goes on meanwhile; else it
 * waits until the execve (CLONE_VFORK).
 *
 * With cgroup_into (cgroup v2, on amd64), it is in the run's group from
 * its first instruction: clone3 with CLONE_INTO_CGROUP on the group's
 * directory, which the kernel does under the read side of its
 * threadgroup lock. A write to cgroup.procs takes the write side, which
 * after a quiet spell waits for an RCU grace period (about 10 ms) and
 * stalls every fork and exit on the host meanwhile; v1 avoids it through
 * `tasks`, which v2 does not have. The kernel checks the clone against
 * the helper's cgroup namespace, which is why the helper has none of its
 * own (a namespace rooted at the zygote's group would hide the run's
 * groups beside it under nsdelegate); the target makes its own once in
 * the group. Where clone3 or the flag is refused (a kernel before 5.7, a
 * container's seccomp profile) or elsewhere than amd64, the target joins
 * by writing, as on v1.
 */
pid_t dk_start_target(struct dk_target *t)
{
	uint64_t vfork = t->early ? 0 : CLONE_VFORK;
	char *top = dk_target_stack + DK_TARGET_STACK;
#if defined(__x86_64__)
	if (t->req->cgroup_into) {
		struct dk_clone_args ca;
		memset(&ca, 0, sizeof ca);
		ca.flags = CLONE_VM | vfork | CLONE_INTO_CGROUP;
		ca.exit_signal = SIGCHLD;
		ca.stack = (uint64_t)(uintptr_t)dk_target_stack;
		ca.stack_size = DK_TARGET_STACK;
		ca.cgroup = (uint64_t)(DK_CGROUP_FD + t->req->ncgroup_fds - 1);
		t->joined = 1; /* read by the child alone, and only if it exists */
		long pid = clone3_run(&ca, target_main, t);
		if (pid > 0)
			return (pid_t)pid;
		t->joined = 0;
	}
#endif
	return clone(target_main, top, (int)(CLONE_VM | vfork | SIGCHLD), t);
}

/* go: the target may exec path. */
void dk_release_target(struct dk_target *t, const char *path)
{
	t->path = path;
	__atomic_store_n(&t->go, 1, __ATOMIC_RELEASE);
	dk_sys(SYS_futex, (long)&t->go, FUTEX_WAKE_PRIVATE, 1, 0, 0);
}

/* abort: PID 1 failed; the target exits without a word. */
void dk_abort_target(struct dk_target *t)
{
	__atomic_store_n(&t->go, -1, __ATOMIC_RELEASE);
	dk_sys(SYS_futex, (long)&t->go, FUTEX_WAKE_PRIVATE, 1, 0, 0);
}
