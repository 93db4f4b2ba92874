/* syscalls.c NAME: makes one forbidden call. A filter that kills leaves no
   output; one that refuses prints "refused NAME: errno"; "ALLOWED" otherwise. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv) {
	const char *n = argc > 1 ? argv[1] : "";
	long r = -1;
	fflush(stdout);
	if (!strcmp(n, "ptrace")) r = ptrace(PTRACE_TRACEME, 0, 0, 0);
	else if (!strcmp(n, "mount")) r = mount("none", "/tmp", "tmpfs", 0, 0);
	else if (!strcmp(n, "unshare")) r = unshare(CLONE_NEWUSER | CLONE_NEWNS);
	else if (!strcmp(n, "setuid")) r = setuid(0);
	else if (!strcmp(n, "chroot")) r = chroot(".");
	else if (!strcmp(n, "io_uring")) { struct io_uring_params p; memset(&p, 0, sizeof p); r = syscall(__NR_io_uring_setup, 4, &p); }
	else if (!strcmp(n, "clone3")) r = syscall(__NR_clone3, 0, 0);
	else if (!strcmp(n, "fork")) { r = fork(); if (r == 0) _exit(0); }
	else if (!strcmp(n, "bpf")) r = syscall(__NR_bpf, 0, 0, 0);
	else if (!strcmp(n, "keyctl")) r = syscall(__NR_keyctl, 0, 0, 0, 0, 0);
	/* What the run's helper does after its spare loaded the pre-filter
	   (seccomp.HelperCalls): the target's own filter still refuses it. */
	else if (!strcmp(n, "setns")) r = setns(open("/proc/self/ns/net", O_RDONLY), 0);
	else if (!strcmp(n, "sethostname")) r = sethostname("x", 1);
	else if (!strcmp(n, "move_mount")) r = syscall(__NR_move_mount, -1, "", AT_FDCWD, "/tmp", 0);
	else if (!strcmp(n, "open_tree")) r = syscall(__NR_open_tree, AT_FDCWD, "/", 1 /* OPEN_TREE_CLONE */);
	else if (!strcmp(n, "umount2")) r = umount2("/tmp", MNT_DETACH);
	else if (!strcmp(n, "int80")) {
		/* i386 entry: getpid is 20 there. A filter keyed on x86_64 numbers
		   must not let this through. */
		asm volatile("int $0x80" : "=a"(r) : "a"(20) : "memory");
		printf("ALLOWED int80 getpid=%ld\n", r);
		return 0;
	} else { printf("unknown %s\n", n); return 2; }
	if (r < 0) printf("refused %s: %s\n", n, strerror(errno));
	else printf("ALLOWED %s = %ld\n", n, r);
	return 0;
}
