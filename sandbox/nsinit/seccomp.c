//go:build cgo

/*
 * Seccomp. The parent assembled the filters (package seccomp; the request
 * carries them as package load's Programs); the helper only loads them,
 * last of all the layers, because they forbid mount, pivot_root,
 * sethostname and the like. After this the helper makes only the calls
 * every filter allows: writev (an error record), execve, exit_group, and
 * should execve fail, whatever malloc needs (brk, mmap).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nsinit.h"

int dk_install_seccomp(const struct sock_fprog *progs, size_t n)
{
	/*
	 * no_new_privs first: seccomp(2) requires it of a caller without
	 * CAP_SYS_ADMIN (the helper has dropped root by now), and it keeps the
	 * target from gaining privileges through a setuid binary.
	 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return dk_error("seccomp: no_new_privs: %s", dk_strerror(errno));
	for (size_t i = 0; i < n; i++) {
		if (progs[i].len == 0)
			continue;
		/*
		 * Flags 0, no TSYNC: this process has one thread (no Go
		 * runtime), so the filter is already on every thread that will
		 * reach execve. Filters stack: the kernel applies the most
		 * restrictive verdict of all of them.
		 */
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &progs[i]) < 0)
			return dk_error("seccomp: load filter %zu: %s", i, dk_strerror(errno));
	}
	return 0;
}
