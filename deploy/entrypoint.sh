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
exec docket "$@"
