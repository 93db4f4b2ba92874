/*
 * noclone3 runs a command under a seccomp filter that answers clone3(2)
 * with ENOSYS, as some container runtimes' default profiles do (C
 * libraries then fall back to clone(2)); every other call is allowed.
 *
 *   noclone3 PROGRAM ARGS...
 *
 * docket's tests run docket-exec under it to check the cgroup join that
 * the sandbox falls back to where clone3's CLONE_INTO_CGROUP is refused.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: noclone3 PROGRAM ARGS...\n");
		return 2;
	}
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof insns / sizeof insns[0], insns};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("noclone3: seccomp");
		return 1;
	}
	execv(argv[1], argv + 1);
	perror("noclone3: execv");
	return 127;
}
