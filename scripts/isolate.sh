#!/bin/sh
# Prints the path of an isolate v1.10.1 binary, the reference sandbox that
# `make bench` measures docket against; progress goes to stderr, and the
# exit status is non-zero when there is none (the benchmarks then skip
# isolate's column and say why).
#
# Looked for in this order: $DOCKET_ISOLATE (a path to the binary),
# `isolate` on PATH, the cached build in $DOCKET_ISOLATE_CACHE (default
# /var/cache/docket-bench/isolate-1.10.1). Otherwise it is built there from
# $DOCKET_ISOLATE_SRC (a directory or tarball of isolate's v1.10.1 source),
# else from a shallow clone of github.com/ioi/isolate at v1.10.1.
#
# The cached build reads its own configuration (compiled in):
# $CACHE/default.cf, boxes under $CACHE/box, uids and gids from 60000 for
# 100 boxes (docket's tests use 63600-66000), cgroups as sub-groups of
# docket-bench-isolate in each controller of /sys/fs/cgroup (cgroup v1).
set -eu

VERSION=1.10.1
CACHE="${DOCKET_ISOLATE_CACHE:-/var/cache/docket-bench/isolate-$VERSION}"

say() { printf 'isolate.sh: %s\n' "$*" >&2; }

if [ -n "${DOCKET_ISOLATE:-}" ]; then
	if [ -x "$DOCKET_ISOLATE" ]; then
		printf '%s\n' "$DOCKET_ISOLATE"
		exit 0
	fi
	say "DOCKET_ISOLATE=$DOCKET_ISOLATE is not an executable"
	exit 1
fi
if found="$(command -v isolate 2>/dev/null)"; then
	say "using isolate on PATH"
	printf '%s\n' "$found"
	exit 0
fi
if [ -x "$CACHE/isolate" ]; then
	printf '%s\n' "$CACHE/isolate"
	exit 0
fi

# fetch_source puts isolate's v1.10.1 source into the directory $1.
fetch_source() {
	if [ -n "${DOCKET_ISOLATE_SRC:-}" ]; then
		if [ -d "$DOCKET_ISOLATE_SRC" ]; then
			say "source from $DOCKET_ISOLATE_SRC"
			cp -R "$DOCKET_ISOLATE_SRC/." "$1"
		else
			say "source from the tarball $DOCKET_ISOLATE_SRC"
			mkdir "$1/tar"
			tar -xf "$DOCKET_ISOLATE_SRC" -C "$1/tar"
			# GitHub's tarballs have one top directory, git archive's none.
			top="$1/tar"
			[ -f "$top/Makefile" ] || top="$(find "$1/tar" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
			cp -R "$top/." "$1"
		fi
		return
	fi
	say "cloning github.com/ioi/isolate v$VERSION"
	if ! git clone -q --depth 1 -b "v$VERSION" https://github.com/ioi/isolate "$1/clone"; then
		say "cannot clone isolate (no network?): set DOCKET_ISOLATE or DOCKET_ISOLATE_SRC"
		return 1
	fi
	cp -R "$1/clone/." "$1"
}

# write_config writes the configuration the build compiles in.
write_config() {
	cat >"$CACHE/default.cf" <<EOF
# isolate's configuration for docket's benchmarks (scripts/isolate.sh).
box_root = $CACHE/box
cg_root = /sys/fs/cgroup
cg_parent = docket-bench-isolate
first_uid = 60000
first_gid = 60000
num_boxes = 100
EOF
}

if ! dpkg -s libcap-dev >/dev/null 2>&1; then
	say "installing libcap-dev"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcap-dev >/dev/null
fi
mkdir -p "$CACHE/box"
chmod 755 "$CACHE" "$CACHE/box"
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
fetch_source "$src"
if ! grep -q "^VERSION=$VERSION\$" "$src/Makefile"; then
	say "the source in $src is not isolate $VERSION"
	exit 1
fi
write_config
say "building isolate $VERSION in $CACHE"
make -s -C "$src" isolate CONFIG="$CACHE/default.cf" >&2
install -m 755 "$src/isolate" "$CACHE/isolate.tmp"
mv "$CACHE/isolate.tmp" "$CACHE/isolate"
printf '%s\n' "$CACHE/isolate"
