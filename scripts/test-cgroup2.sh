#!/bin/bash
# test-cgroup2.sh: run the sandbox's cgroup-dependent tests and `docket
# selftest` on a pure cgroup v2 hierarchy (`make test-cgroup2`).
#
# The development and CI machines have a cgroup v1 hybrid layout that
# cannot be switched, so this boots a Debian 12 guest under QEMU (software
# emulation: the host's /dev/kvm runs only PVM guest kernels) with
# cgroup_no_v1=all, copies in test binaries built here on the host, runs
# them as root, brings their `go test -v` output back and fails when a
# test fails or skips (docs/sandbox.md, "cgroup v2").
#
# Variables (all optional):
#   DOCKET_CGROUP2_CACHE    image cache, outside the repository, one
#                           directory per kernel below it
#                           (default /var/cache/docket-cgroup2-vm)
#   DOCKET_CGROUP2_MIRROR   Debian mirror (default http://deb.debian.org/debian)
#   DOCKET_CGROUP2_TIMEOUT  seconds before the VM is stopped (default 1500)
#   DOCKET_CGROUP2_KERNEL   the guest's kernel: "stock" (default), Debian
#                           12's own 6.1, the oldest kernel docket is
#                           tested on, or "backports", the newest
#                           linux-image-amd64 of trixie-backports
#   DOCKET_CGROUP2_BOOT_GRACE  seconds the guest has to report its first
#                           step before it is booted again (default 300;
#                           three boots at most)
#   DOCKET_CGROUP2_MEM, DOCKET_CGROUP2_SMP   guest memory and CPUs (4G, 2)
#   GO                      the go command (default go)
set -eu
set -o pipefail

cd "$(dirname "$0")/.."
kernel=${DOCKET_CGROUP2_KERNEL:-stock}
case $kernel in stock | backports) ;; *)
	echo "DOCKET_CGROUP2_KERNEL=$kernel: want stock or backports" >&2
	exit 2
	;;
esac
cache=${DOCKET_CGROUP2_CACHE:-/var/cache/docket-cgroup2-vm}/$kernel
mirror=${DOCKET_CGROUP2_MIRROR:-http://deb.debian.org/debian}
timeout=${DOCKET_CGROUP2_TIMEOUT:-1500}
mem=${DOCKET_CGROUP2_MEM:-4G}
smp=${DOCKET_CGROUP2_SMP:-2}
go=${GO:-go}

# What runs in the guest, by package (docs/sandbox.md says why these).
# The sandbox tests get DOCKET_TEST_TIME_SCALE=10: at 5, a memory bomb
# still spent its CPU limit before its memory one once the host was busy.
sandbox_run='^(TestEscapeSuite|TestEscapeClone|TestCPUTimeMatchesKernel|TestMemoryPeak|TestTimeLimits|TestNoCarryOver|TestDiskChargedToMemory|TestCPUPinning|TestConnectedPair|TestSlotNetNSCarriesNothing|TestNetNSFromThreadGoesBack|TestFreshNetworkNamespace|TestOwnCgroupNamespace|TestBoxCopyBack|TestCopyBackRacyStamps|TestTmpfsFineCtime|TestSpaceHugeCopy)$'
cgroup_run='^(TestV2Group|TestV2SecondManager|TestInvalidNames|TestV2KeptResets|TestV2KeptAfterOOM|TestOpenPeakReadOnly|TestJoinFilesV2)$'
# Skips that are allowed: always skipped, covered by another case.
allowed_skips='^TestEscapeSuite/[^/]+/tcp_connect,_network_namespace_only$'

# Guest packages: the kernel and systemd to boot, gcc and libc6-dev
# because the tests compile their C programs (internal/testprog) at run
# time, dbus for systemd-run. Changing this list, the kernel or the guest
# configuration rebuilds the image.
guest_packages=systemd-sysv,udev,kmod,linux-image-amd64,initramfs-tools,procps,dbus,gcc,libc6-dev

start=$SECONDS
work=""
qemu_pid=""
rootfs="$cache/rootfs.tmp"

log() { echo "[test-cgroup2 +$((SECONDS - start))s] $*"; }
die() { log "FAIL: $*"; exit 1; }

cleanup() {
	rc=$?
	if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
		log "stopping the VM (pid $qemu_pid)"
		kill "$qemu_pid" 2>/dev/null || true
		wait "$qemu_pid" 2>/dev/null || true
	fi
	unmount_rootfs
	if [ -n "$work" ]; then
		rm -rf "$work"
	fi
	exit "$rc"
}

# unmount_rootfs removes what an interrupted debootstrap left mounted in
# the root filesystem being built (proc, sys), deepest first.
unmount_rootfs() {
	awk -v p="$rootfs/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m" || true; done
}

# host_packages installs, by Debian name, what is missing.
host_packages() {
	missing=""
	for p in qemu-system-x86 debootstrap e2fsprogs; do
		dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		log "installing:$missing"
		apt-get update -qq
		# shellcheck disable=SC2086 # one word per package
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
	fi
}

# image_stamp names the image recipe: this script's image functions and
# package list. A cached image with another stamp is rebuilt.
image_stamp() {
	{
		echo "$guest_packages $kernel"
		declare -f build_image newer_kernel configure_guest
	} | sha256sum | cut -c1-16
}

ensure_image() {
	stamp=$(image_stamp)
	if [ -f "$cache/root.img" ] && [ "$(cat "$cache/stamp" 2>/dev/null)" = "$stamp" ]; then
		log "image: cached ($cache/root.img, recipe $stamp)"
		return
	fi
	log "image: building (recipe $stamp) in $cache"
	build_image
	echo "$stamp" >"$cache/stamp"
	log "image: ready"
}

build_image() {
	mkdir -p "$cache"
	rm -rf "$rootfs" "$cache/root.img" "$cache/stamp"
	log "image: debootstrap bookworm ($mirror)"
	debootstrap --variant=minbase --include="$guest_packages" bookworm "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		die "debootstrap failed, see $cache/debootstrap.log"
	unmount_rootfs
	if [ "$kernel" = backports ]; then
		newer_kernel
	fi
	configure_guest
	vmlinuz=$(ls "$rootfs"/boot/vmlinuz-* | sort -V | tail -1)
	cp "$vmlinuz" "$cache/vmlinuz"
	cp "$rootfs/boot/initrd.img-${vmlinuz#*/vmlinuz-}" "$cache/initrd.img"
	basename "$vmlinuz" >"$cache/kernel"
	log "image: mkfs.ext4 -d (no loop device)"
	mkfs.ext4 -q -L root -d "$rootfs" "$cache/root.img.tmp" 4G >/dev/null
	mv "$cache/root.img.tmp" "$cache/root.img"
	rm -rf "$rootfs"
}

# newer_kernel installs trixie-backports' kernel in the guest (with
# DOCKET_CGROUP2_KERNEL=backports). The package's own postinst
# needs trixie's run-parts and fails under Debian 12's: the image, its
# config and the initramfs are put in /boot here instead.
newer_kernel() {
	log "image: kernel from trixie-backports"
	echo "deb $mirror trixie-backports main" >"$rootfs/etc/apt/sources.list.d/backports.list"
	cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
	mount -t proc proc "$rootfs/proc"
	chroot "$rootfs" apt-get update -qq >"$cache/kernel.log" 2>&1 || die "apt-get update failed, see $cache/kernel.log"
	DEBIAN_FRONTEND=noninteractive chroot "$rootfs" apt-get install -y -qq --no-install-recommends \
		-t trixie-backports linux-image-amd64 >>"$cache/kernel.log" 2>&1 || true
	v=$(ls "$rootfs"/usr/lib/modules/*/vmlinuz | sort -V | tail -1 | awk -F/ '{print $(NF-1)}')
	[ -n "$v" ] || die "no kernel unpacked, see $cache/kernel.log"
	for f in vmlinuz config System.map; do
		cp "$rootfs/usr/lib/modules/$v/$f" "$rootfs/boot/$f-$v"
	done
	{ chroot "$rootfs" depmod "$v" && chroot "$rootfs" update-initramfs -c -k "$v"; } >>"$cache/kernel.log" 2>&1 ||
		die "initramfs for $v failed, see $cache/kernel.log"
	umount "$rootfs/proc"
	chroot "$rootfs" apt-get clean
	log "image: kernel $v"
}

# configure_guest: the 9p share at /host, and one oneshot unit that runs
# /host/guest.sh once and powers off, whatever its result. Delegate=yes:
# systemd then keeps every controller enabled on the unit's path, the
# root cgroup included; without a unit that needs cpuset, it turned
# cpuset off at the root again after the tests' script had enabled it.
configure_guest() {
	echo docket-cgroup2 >"$rootfs/etc/hostname"
	cat >"$rootfs/etc/fstab" <<-'EOF'
		/dev/vda / ext4 rw,relatime 0 1
		host /host 9p trans=virtio,version=9p2000.L,msize=262144 0 0
	EOF
	mkdir -p "$rootfs/host"
	cat >"$rootfs/etc/systemd/system/docket-ci.service" <<-'EOF'
		[Unit]
		Description=docket: run /host/guest.sh, then power off
		RequiresMountsFor=/host
		ConditionPathExists=/host/guest.sh
		SuccessAction=poweroff-force
		FailureAction=poweroff-force
		[Service]
		Type=oneshot
		Delegate=yes
		StandardOutput=tty
		StandardError=tty
		TTYPath=/dev/ttyS0
		ExecStart=/bin/bash /host/guest.sh
		[Install]
		WantedBy=multi-user.target
	EOF
	chroot "$rootfs" systemctl enable docket-ci.service >/dev/null 2>&1
	chroot "$rootfs" systemctl mask serial-getty@ttyS0.service getty@tty1.service >/dev/null 2>&1
}

# build_payload builds, on the host, what the guest runs: the test
# binaries (cgo, dynamic: the guest has the same Debian 12 C library),
# the docket binary, and the test data the tests read by relative path.
build_payload() {
	share="$work/share"
	mkdir -p "$share/bin" "$share/out" "$share/src/sandbox/cgroup"
	log "build: go test -c ./sandbox/ ./sandbox/cgroup/, go build ./cmd/docket"
	CGO_ENABLED=1 "$go" test -c -o "$share/bin/sandbox.test" ./sandbox/
	CGO_ENABLED=1 "$go" test -c -o "$share/bin/cgroup.test" ./sandbox/cgroup/
	CGO_ENABLED=1 "$go" build -o "$share/bin/docket" ./cmd/docket
	cp -r sandbox/testdata "$share/src/sandbox/"
	cp -r sandbox/cgroup/testdata "$share/src/sandbox/cgroup/"
	write_guest_script >"$share/guest.sh"
	log "build: done"
}

# write_guest_script prints the script the guest's unit runs. STEP lines
# go to the serial console, which the host follows.
write_guest_script() {
	cat <<-EOF
		set -u
		step() { echo "STEP \$* (guest uptime \$(cut -d' ' -f1 /proc/uptime) s)"; }
		out=/host/out
		step "guest up: copying the payload to the guest's disk"
		cp -r /host/bin /host/src /var/tmp/ && cd /var/tmp || exit 1
		{
		  uname -r; cat /etc/debian_version
		  echo "cgroup fs: \$(stat -fc %T /sys/fs/cgroup)"
		  echo "controllers: \$(cat /sys/fs/cgroup/cgroup.controllers)"
		  echo "root subtree_control at boot: \$(cat /sys/fs/cgroup/cgroup.subtree_control)"
		} >\$out/facts.log 2>&1
		step "docket selftest, in a unit with Delegate=yes (as docket-worker@.service)"
		systemd-run --quiet --wait --pipe --collect -p Delegate=yes /var/tmp/bin/docket selftest >\$out/selftest.log 2>&1
		echo \$? >\$out/selftest.rc
		# The tests run from the root cgroup, which delegates to its
		# children what systemd's Delegate=yes would: the test guard's
		# cgroup and docket's parent beneath it get the controllers (a
		# unit's cgroup holding this shell could enable none for them).
		echo \$\$ >/sys/fs/cgroup/cgroup.procs
		for c in cpu cpuset memory pids; do
		  echo "+\$c" >/sys/fs/cgroup/cgroup.subtree_control || echo "cannot enable \$c at the root" >>\$out/facts.log
		done
		echo "root subtree_control for the tests: \$(cat /sys/fs/cgroup/cgroup.subtree_control)" >>\$out/facts.log
		step "sandbox/cgroup tests"
		(cd src/sandbox/cgroup && DOCKET_TEST_REQUIRE_CGROUP2=1 DOCKET_TEST_TIME_SCALE=10 /var/tmp/bin/cgroup.test -test.v -test.count=1 -test.timeout 10m -test.run '$cgroup_run') >\$out/cgroup.log 2>&1
		echo \$? >\$out/cgroup.rc
		step "sandbox tests"
		(cd src/sandbox && DOCKET_TEST_REQUIRE_CGROUP2=1 DOCKET_TEST_TIME_SCALE=10 /var/tmp/bin/sandbox.test -test.v -test.count=1 -test.timeout 20m -test.run '$sandbox_run') >\$out/sandbox.log 2>&1
		echo \$? >\$out/sandbox.rc
		find /sys/fs/cgroup -mindepth 1 -type d \\( -name 'docket*' -o -path '*/docket/*' \\) ! -name docket-ci.service >\$out/leftover.log 2>&1
		step "done"
		sync
	EOF
}

# boot runs the VM in the background (its pid recorded, for the trap) and
# follows the guest's STEP lines on the serial console until it powers off.
# boot runs the guest until it powers off. A guest that has reported no
# step within boot_grace seconds is stopped and booted again, up to three
# times: under TCG, Debian 12's 6.1 kernel was seen to hang at boot once
# (both CPUs in a soft lockup from 11 s of uptime, kworker/0:2H and
# systemd), where the same image came up in 32 s before and after.
boot_grace=${DOCKET_CGROUP2_BOOT_GRACE:-300}
boot() {
	for attempt in 1 2 3; do
		if boot_once "$attempt"; then
			return 0
		fi
		log "boot: the guest reported nothing in ${boot_grace} s (attempt $attempt); last console lines:"
		tail -3 "$work/console.log" | sed 's/^/    /'
	done
	die "the guest did not come up in 3 boots"
}

# boot_once boots the guest and follows its steps on the serial console;
# it fails when the guest has reported none within boot_grace seconds.
boot_once() {
	console="$work/console.log"
	rm -f "$console"
	log "boot: QEMU (TCG, $smp CPUs, $mem), kernel $(cat "$cache/kernel"), attempt $1"
	qemu-system-x86_64 -accel tcg,thread=multi -cpu max -m "$mem" -smp "$smp" \
		-display none -monitor none -no-reboot -nic none \
		-serial "file:$console" \
		-kernel "$cache/vmlinuz" -initrd "$cache/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 quiet systemd.unified_cgroup_hierarchy=1 cgroup_no_v1=all" \
		-drive "file=$cache/root.img,if=virtio,format=raw,snapshot=on" \
		-virtfs "local,path=$work/share,mount_tag=host,security_model=none,id=host" \
		</dev/null &
	qemu_pid=$!
	seen=0
	boot_start=$SECONDS
	said=$SECONDS
	while kill -0 "$qemu_pid" 2>/dev/null; do
		if [ $((SECONDS - boot_start)) -gt "$timeout" ]; then
			die "the VM ran past $timeout s; stopped (console: last lines below)$(tail -20 "$console")"
		fi
		if [ "$seen" = 0 ] && [ $((SECONDS - boot_start)) -gt "$boot_grace" ]; then
			kill "$qemu_pid" 2>/dev/null || true
			wait "$qemu_pid" 2>/dev/null || true
			qemu_pid=""
			return 1
		fi
		sleep 5
		n=$(grep -c '^STEP ' "$console" 2>/dev/null || true)
		if [ "$n" -gt "$seen" ]; then
			grep '^STEP ' "$console" | tail -n +"$((seen + 1))" | while read -r l; do log "guest: ${l#STEP }"; done
			seen=$n
			said=$SECONDS
		elif [ $((SECONDS - said)) -ge 60 ]; then
			log "VM running, $((SECONDS - boot_start)) s"
			said=$SECONDS
		fi
	done
	wait "$qemu_pid" || true
	qemu_pid=""
	log "VM powered off after $((SECONDS - boot_start)) s"
}

# report prints what the guest brought back and decides.
report() {
	o="$work/share/out"
	[ -f "$o/sandbox.rc" ] || die "the guest did not finish; console:$(tail -40 "$work/console.log")"
	results="$cache/last-run"
	rm -rf "$results" && cp -r "$o" "$results"
	for f in facts selftest cgroup sandbox; do
		echo "===== $f ($results/$f.log)"
		cat "$o/$f.log"
	done
	fail=""
	for f in cgroup sandbox; do
		[ "$(cat "$o/$f.rc")" = 0 ] || fail="$fail $f(exit $(cat "$o/$f.rc"))"
	done
	grep -q 'cgroup fs: cgroup2fs' "$o/facts.log" || fail="$fail not-cgroup2"
	check_selftest "$o/selftest.log" "$o/selftest.rc" || fail="$fail selftest"
	skips=$(cat "$o/cgroup.log" "$o/sandbox.log" | sed -n 's/^ *--- SKIP: \([^ ]*\) .*/\1/p' | grep -Ev "$allowed_skips" || true)
	[ -z "$skips" ] || fail="$fail skipped:$(echo "$skips" | tr '\n' ' ')"
	[ ! -s "$o/leftover.log" ] || fail="$fail cgroups-left:$(tr '\n' ' ' <"$o/leftover.log")"
	if [ -n "$fail" ]; then
		die "on cgroup v2:$fail"
	fi
	log "PASS: sandbox tests and docket selftest on cgroup v2 ($(head -1 "$o/facts.log"))"
}

# check_selftest requires level full with every layer present on v2, no
# failed escape check, and exit 0 (the selftest's attacks have limits
# that hold under the emulated CPU: cmd/docket/selftest.go).
check_selftest() {
	grep -q '^isolation level: full ' "$1" || return 1
	grep -q 'cgroup:memory  *v2 ' "$1" || return 1
	! grep -q 'MISSING' "$1" || return 1
	! grep -q 'FAILED' "$1" || return 1
	[ "$(cat "$2")" = 0 ] || { log "selftest exited $(cat "$2")"; return 1; }
}

main() {
	[ "$(id -u)" = 0 ] || die "run as root (apt-get, debootstrap, chroot)"
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	log "host packages"
	host_packages
	ensure_image
	work=$(mktemp -d /tmp/docket-cgroup2.XXXXXX)
	build_payload
	boot
	report
}

main "$@"
