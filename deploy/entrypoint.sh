#!/bin/sh
# docket's container entrypoint. Container runtimes mount the cgroup
# filesystem read-only unless the container is privileged; the sandbox
# must create a cgroup per run beneath its own (memory, pids, cpu limits),
# so each cgroup mount the container sees is remounted read-write. This
# needs CAP_SYS_ADMIN and an AppArmor policy that allows mount (see
# docs/deploy.md); with a private cgroup namespace the container only
# sees, and can only write, its own subtree. Then docket replaces this
# shell, so it is PID 1's only child that matters: signals reach docket.
set -eu
if [ "${DOCKET_REMOUNT_CGROUP:-1}" = 1 ]; then
	# mountinfo field 5 is the mount point, field 6 its options; the
	# filesystem type follows the " - " separator.
	awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { print $5, $6, $(i+1); break } }' /proc/self/mountinfo |
	while read -r point opts fstype; do
		case "$fstype" in cgroup | cgroup2) ;; *) continue ;; esac
		case ",$opts," in *,ro,*) ;; *) continue ;; esac
		mount -o remount,rw "$point" 2>/dev/null ||
			echo "docket-entrypoint: cannot remount $point read-write (CAP_SYS_ADMIN? AppArmor?); docket selftest will say what is missing" >&2
	done
fi
# docket refuses a work or cache directory beneath a directory others
# could write (docs/operations.md). A volume mounted at /var/lib/docket for
# them (a Kubernetes emptyDir is created 0777) becomes root's 0711 first.
if [ -d /var/lib/docket ]; then
	chmod 0711 /var/lib/docket ||
		echo "docket-entrypoint: cannot make /var/lib/docket 0711; docket will refuse what is beneath it" >&2
fi
exec docket "$@"
