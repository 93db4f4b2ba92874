/* clonens.c: tries to get namespaces (and the other forbidden clone flags)
   through clone(2), the way left open when unshare and setns are killed
   and clone3 is ENOSYS. Each attempt runs in a forked child, so a filter
   that kills shows as that child's SIGSYS and the program goes on. One line
   per attempt:
     "refused NAME: REASON"  (an errno, or "killed by SIGSYS")
     "ALLOWED NAME"
   Then the ways runtimes make processes and threads, which must still
   work in a multi-process run: "ok NAME" or "FAILED NAME: REASON". */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[256 << 10] __attribute__((aligned(16)));
static char *stack_top = stack + sizeof stack;

static int child_fn(void *arg) { (void)arg; return 0; }

/* clone as the system call, fork-like (no new stack, no CLONE_VM). */
static long raw_clone(unsigned long flags) { return syscall(SYS_clone, flags, 0, 0, 0, 0); }

enum via { RAW, WRAPPER };

static void attempt(const char *name, unsigned long flags, enum via via)
{
	fflush(stdout);
	pid_t w = fork();
	if (w < 0) {
		printf("FAILED fork for %s: %s\n", name, strerror(errno));
		return;
	}
	if (w == 0) {
		long r = via == RAW ? raw_clone(flags) : clone(child_fn, stack_top, (int)flags, 0);
		if (r == 0)
			_exit(0); /* the raw clone's child, in whatever it got */
		if (r < 0)
			printf("refused %s: %s\n", name, strerror(errno));
		else
			printf("ALLOWED %s\n", name);
		fflush(stdout);
		if (r > 0)
			waitpid((pid_t)r, 0, __WALL);
		_exit(0);
	}
	int st;
	waitpid(w, &st, 0);
	if (WIFSIGNALED(st))
		printf("refused %s: killed by %s\n", name, WTERMSIG(st) == SIGSYS ? "SIGSYS" : strsignal(WTERMSIG(st)));
}

static void report(const char *name, int ok, const char *why)
{
	if (ok)
		printf("ok %s\n", name);
	else
		printf("FAILED %s: %s\n", name, why);
	fflush(stdout);
}

static int exited7(pid_t p, int flags)
{
	int st;
	return p > 0 && waitpid(p, &st, flags) == p && WIFEXITED(st) && WEXITSTATUS(st) == 7;
}

static void *thread_fn(void *a) { return a; }

/* The exit-signal byte of clone's flags may hold 0x80, CLONE_NEWTIME's
   value: the kernel must read it as an exit signal (or refuse it, as
   kernels that validate the exit signal do), not as a new time
   namespace. The child reports its time namespace through a pipe. */
static void exit_signal_0x80(void)
{
	char own[64] = "", theirs[64] = "";
	if (readlink("/proc/self/ns/time", own, sizeof own - 1) < 0) {
		report("exit signal 0x80", 1, "");
		return;
	}
	int p[2];
	if (pipe(p) < 0) {
		report("exit signal 0x80", 0, strerror(errno));
		return;
	}
	fflush(stdout);
	long r = raw_clone(0x80);
	if (r == 0) {
		char buf[64] = "";
		ssize_t n = readlink("/proc/self/ns/time_for_children", buf, sizeof buf - 1);
		if (n < 0)
			n = 0;
		write(p[1], buf, (size_t)n);
		_exit(7);
	}
	close(p[1]);
	if (r < 0 && errno == EINVAL) {
		/* A newer kernel (7.3 here) checks the exit signal and refuses
		   0x80: no time namespace either. */
		close(p[0]);
		report("exit signal 0x80", 1, "");
		return;
	}
	if (r < 0) {
		report("exit signal 0x80", 0, strerror(errno));
		return;
	}
	read(p[0], theirs, sizeof theirs - 1);
	close(p[0]);
	if (!exited7((pid_t)r, __WALL))
		report("exit signal 0x80", 0, "child did not exit 7");
	else if (strcmp(own, theirs))
		printf("ALLOWED CLONE_NEWTIME through the exit signal: %s, parent %s\n", theirs, own);
	else
		report("exit signal 0x80", 1, "");
}

static void process_makers(void)
{
	fflush(stdout);
	pid_t p = fork();
	if (p == 0)
		_exit(7);
	report("fork", exited7(p, 0), strerror(errno));

	p = vfork();
	if (p == 0)
		_exit(7);
	report("vfork", exited7(p, 0), strerror(errno));

	char *argv[] = {"clonens", "exit7", 0};
	int e = posix_spawn(&p, "/proc/self/exe", 0, 0, argv, 0);
	report("posix_spawn", e == 0 && exited7(p, 0), strerror(e ? e : errno));

	pthread_t t;
	e = pthread_create(&t, 0, thread_fn, 0);
	if (e == 0)
		pthread_join(t, 0);
	report("pthread_create", e == 0, strerror(e));

	/* Go's os/exec: CLONE_PIDFD, the pidfd in the parent_tid argument. */
	int pidfd = -1;
	long r = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &pidfd, 0, 0);
	if (r == 0)
		_exit(7);
	report("clone with CLONE_PIDFD", r > 0 && pidfd >= 0 && exited7((pid_t)r, 0), strerror(errno));

	exit_signal_0x80();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exit7"))
		return 7;
	setvbuf(stdout, 0, _IOLBF, 0);
	static const struct {
		const char *name;
		unsigned long flags;
	} flags[] = {
		{"CLONE_NEWNS", CLONE_NEWNS},
		{"CLONE_NEWUTS", CLONE_NEWUTS},
		{"CLONE_NEWIPC", CLONE_NEWIPC},
		{"CLONE_NEWUSER", CLONE_NEWUSER},
		{"CLONE_NEWPID", CLONE_NEWPID},
		{"CLONE_NEWNET", CLONE_NEWNET},
		{"CLONE_NEWCGROUP", CLONE_NEWCGROUP},
		{"CLONE_NEWUSER|CLONE_NEWNET", CLONE_NEWUSER | CLONE_NEWNET},
		{"CLONE_NEWUSER|CLONE_NEWNS", CLONE_NEWUSER | CLONE_NEWNS},
		/* what unshare -Urnmpf asks for */
		{"every namespace", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID |
					    CLONE_NEWNET | CLONE_NEWCGROUP},
		{"CLONE_PARENT", CLONE_PARENT},
		{"CLONE_PTRACE", CLONE_PTRACE},
		{"CLONE_UNTRACED", CLONE_UNTRACED},
		{"CLONE_IO", CLONE_IO},
		{"bit 32", 1UL << 32},
	};
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		char name[96];
		snprintf(name, sizeof name, "clone %s", flags[i].name);
		attempt(name, flags[i].flags | SIGCHLD, RAW);
	}
	/* Through the C library's wrapper, with a stack: the same system call,
	   also with CLONE_VM|CLONE_VFORK as posix_spawn would. */
	attempt("libc clone CLONE_NEWUSER", CLONE_NEWUSER | SIGCHLD, WRAPPER);
	attempt("libc clone CLONE_NEWUSER|CLONE_NEWNET", CLONE_NEWUSER | CLONE_NEWNET | SIGCHLD, WRAPPER);
	attempt("libc clone CLONE_VM|CLONE_VFORK|CLONE_NEWUSER", CLONE_VM | CLONE_VFORK | CLONE_NEWUSER | SIGCHLD, WRAPPER);
	process_makers();
	/* CLONE_PARENT children of the attempts are ours: reap them. */
	while (waitpid(-1, 0, WNOHANG | __WALL) > 0)
		;
	printf("done\n");
	return 0;
}
