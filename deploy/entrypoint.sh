#!/bin/sh
# docket's container entrypoint. Container runtimes mount the cgroup
# filesystem read-only unless the container is privileged; the sandbox
# must create a cgroup per run beneath its own (memory, pids, cpu limits),
# so the cgroup mounts docket uses are remounted read-write: the cgroup2
# mount, and on cgroup v1 the hierarchies holding memory, pids, cpuacct or
# cpuset. The others (devices, freezer, blkio, net_cls, name=systemd, ...)
# stay read-only: a writable devices hierarchy would let the container's
# root widen its own device allow-list. This needs CAP_SYS_ADMIN and an
# AppArmor policy that allows mount (see docs/deploy.md); with a private
# cgroup namespace the container only sees, and can only write, its own
# subtree. Then docket replaces this shell, so it is PID 1's only child
# that matters: signals reach docket.
set -eu
if [ "${DOCKET_REMOUNT_CGROUP:-1}" = 1 ]; then
	# mountinfo field 5 is the mount point, field 6 its options; after the
	# " - " separator come the filesystem type, the source and the
	# superblock options, which on v1 name the hierarchy's controllers.
	awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { print $5, $6, $(i+1), $(i+3); break } }' /proc/self/mountinfo |
	while read -r point opts fstype super; do
		case "$fstype" in
		cgroup2) ;;
		cgroup)
			case ",$super," in
			*,memory,* | *,pids,* | *,cpuacct,* | *,cpuset,*) ;;
			*) continue ;;
			esac
			;;
		*) continue ;;
		esac
		case ",$opts," in *,ro,*) ;; *) continue ;; esac
		# bind: only this mount's read-only flag changes. A plain
		# remount reconfigures the shared superblock, which the kernel
		# refuses for a populated v1 hierarchy ("mount point is busy").
		mount -o remount,bind,rw "$point" 2>/dev/null ||
			echo "docket-entrypoint: cannot remount $point read-write (CAP_SYS_ADMIN? AppArmor? seccomp?); docket selftest will say what is missing" >&2
	done
fi
# docket refuses a work or cache directory beneath a directory others
# could write (docs/operations.md). A volume mounted at /var/lib/docket for
# them (a Kubernetes emptyDir is created 0777) becomes root's 0711 first.
if [ -d /var/lib/docket ]; then
	chmod 0711 /var/lib/docket ||
		echo "docket-entrypoint: cannot make /var/lib/docket 0711; docket will refuse what is beneath it" >&2
fi
# The escape checks, once, before a worker starts judging: `docket selftest
# --once` keeps its report in the state directory, and the health check's
# first step is the same command, which then reads it. A failure is logged
# here and makes the container unhealthy; docket itself refuses to start
# below DOCKET_SANDBOX_MIN_LEVEL. DOCKET_SELFTEST_AT_START=0 skips it (the
# health check then runs the checks the first time it is asked).
case "${1:-}" in
worker | serve)
	if [ "${DOCKET_SELFTEST_AT_START:-1}" = 1 ]; then
		docket selftest --once >&2 ||
			echo "docket-entrypoint: docket selftest failed (above); the health check reports it" >&2
	fi
	;;
esac
exec docket "$@"
