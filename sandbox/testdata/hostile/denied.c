/* denied.c NAME:NR:ARG0...: makes each system call NR with ARG0 (hex) and
   every other argument zero, each in a child of its own (a killed call
   kills only that child), and prints one line per call:
     NAME ARG0 ret R          the call returned R
     NAME ARG0 errno E        the call failed with errno E
     NAME ARG0 signal S       the child died of signal S (SIGSYS: seccomp)
   An alarm ends a call that blocks. A child the call itself made (clone
   without flags is a fork) exits at once. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void probe(const char *name, long nr, unsigned long arg0) {
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) { printf("%s %#lx fork-failed %d\n", name, arg0, errno); return; }
	if (pid == 0) {
		long me = syscall(SYS_getpid);
		alarm(2);
		long r = syscall(nr, arg0, 0, 0, 0, 0, 0);
		int e = errno;
		if (syscall(SYS_getpid) != me) _exit(0);
		if (r < 0) printf("%s %#lx errno %d\n", name, arg0, e);
		else printf("%s %#lx ret %ld\n", name, arg0, r);
		fflush(stdout);
		_exit(0);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
	if (WIFSIGNALED(st)) printf("%s %#lx signal %d\n", name, arg0, WTERMSIG(st));
}

int main(int argc, char **argv) {
	for (int i = 1; i < argc; i++) {
		char name[64];
		long nr;
		unsigned long arg0;
		if (sscanf(argv[i], "%63[^:]:%ld:%lx", name, &nr, &arg0) != 3) {
			printf("bad argument %s\n", argv[i]);
			return 2;
		}
		probe(name, nr, arg0);
	}
	return 0;
}
