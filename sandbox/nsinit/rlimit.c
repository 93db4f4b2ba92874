//go:build cgo

/*
 * Resource limits (package rlimit computes them). They are applied to the
 * target's process just before its uid switch (raising a hard limit needs
 * root's CAP_SYS_RESOURCE), seccomp and execve, so the target inherits
 * them and no setup step runs into them. (No Go runtime runs here to
 * restore its saved RLIMIT_NOFILE at execve, as Go's own exec would.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nsinit.h"

/* rlimit.Name */
static const char *rlimit_name(int r, char *buf, size_t size)
{
	switch (r) {
	case RLIMIT_CPU:
		return "RLIMIT_CPU";
	case RLIMIT_AS:
		return "RLIMIT_AS";
	case RLIMIT_STACK:
		return "RLIMIT_STACK";
	case RLIMIT_FSIZE:
		return "RLIMIT_FSIZE";
	case RLIMIT_NOFILE:
		return "RLIMIT_NOFILE";
	case RLIMIT_CORE:
		return "RLIMIT_CORE";
	case RLIMIT_MEMLOCK:
		return "RLIMIT_MEMLOCK";
	case RLIMIT_MSGQUEUE:
		return "RLIMIT_MSGQUEUE";
	case RLIMIT_NPROC:
		return "RLIMIT_NPROC";
	case RLIMIT_DATA:
		return "RLIMIT_DATA";
	case RLIMIT_RSS:
		return "RLIMIT_RSS";
	case RLIMIT_LOCKS:
		return "RLIMIT_LOCKS";
	case RLIMIT_SIGPENDING:
		return "RLIMIT_SIGPENDING";
	case RLIMIT_NICE:
		return "RLIMIT_NICE";
	case RLIMIT_RTPRIO:
		return "RLIMIT_RTPRIO";
	case RLIMIT_RTTIME:
		return "RLIMIT_RTTIME";
	}
	snprintf(buf, size, "rlimit(%d)", r);
	return buf;
}

long dk_set_rlimits(const struct dk_rlimit *l, size_t n, size_t *at)
{
	for (size_t i = 0; i < n; i++) {
		/*
		 * prlimit64 on this process, as unix.Setrlimit does: 64-bit
		 * values whatever the C library's rlim_t, RLIM_INFINITY ~0.
		 */
		uint64_t rl[2] = {l[i].cur, l[i].max};
		long rc = dk_sys(SYS_prlimit64, 0, l[i].resource, (long)rl, 0, 0);
		if (rc < 0) {
			*at = i;
			return rc;
		}
	}
	return 0;
}

int dk_rlimit_error(const struct dk_rlimit *l, size_t at, int e)
{
	char buf[32];
	return dk_error("setrlimit %s: %s", rlimit_name(l[at].resource, buf, sizeof buf), dk_strerror(e));
}
