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

/* at: the filter that failed, or DK_NO_NEW_PRIVS. */
#define DK_NO_NEW_PRIVS ((size_t)-1)

long dk_load_filters(const struct sock_fprog *progs, size_t n, size_t *at)
{
	/*
	 * no_new_privs first: seccomp(2) requires it of a caller without
	 * CAP_SYS_ADMIN (the helper has dropped root by now), and it keeps the
	 * target from gaining privileges through a setuid binary.
	 */
	long rc = dk_sys(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (rc < 0) {
		*at = DK_NO_NEW_PRIVS;
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		if (progs[i].len == 0)
			continue;
		/*
		 * Flags 0, no TSYNC: this process has one thread (no Go
		 * runtime), so the filter is already on every thread that will
		 * reach execve. Filters stack: the kernel applies the most
		 * restrictive verdict of all of them.
		 */
		rc = dk_sys(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (long)&progs[i], 0, 0);
		if (rc < 0) {
			*at = i;
			return rc;
		}
	}
	return 0;
}

int dk_filters_error(size_t at, int e)
{
	if (at == DK_NO_NEW_PRIVS)
		return dk_error("seccomp: no_new_privs: %s", dk_strerror(e));
	return dk_error("seccomp: load filter %zu: %s", at, dk_strerror(e));
}

int dk_install_seccomp(const struct sock_fprog *progs, size_t n)
{
	size_t at;
	long rc = dk_load_filters(progs, n, &at);
	return rc < 0 ? dk_filters_error(at, (int)-rc) : 0;
}
