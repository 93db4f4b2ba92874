#!/bin/sh
# test-each.sh [GO TEST FLAGS...] -- PACKAGES...: go test one package at a
# time, with a line naming each package and the time before it starts, so
# that a long, silent package (cmd/docket takes about 15 minutes) says
# which it is. go test -p 1 over all packages prints a package's line only
# when it ends. Runs every package; exits 1 if any failed, naming them.
set -eu
go=${GO:-go}
flags=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
	flags="$flags $1"
	shift
done
[ "$#" -gt 0 ] || { echo "usage: test-each.sh [go test flags...] -- PACKAGES..." >&2; exit 2; }
shift
pkgs=$("$go" list "$@")
n=$(printf '%s\n' "$pkgs" | wc -l)
i=0
failed=""
for pkg in $pkgs; do
	i=$((i + 1))
	printf '== [%d/%d] %s  (%s)\n' "$i" "$n" "$pkg" "$(date -u +%H:%M:%S)"
	# $flags unquoted on purpose: one word a flag (no flag has a space).
	# shellcheck disable=SC2086
	"$go" test $flags "$pkg" || failed="$failed $pkg"
done
if [ -n "$failed" ]; then
	echo "FAIL:$failed"
	exit 1
fi
