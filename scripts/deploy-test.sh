#!/bin/sh
# deploy-test.sh: the container deployment (deploy/Dockerfile,
# docker-compose.yml, deploy/seccomp-worker.json) run for real on a
# Debian 12 host without a container registry: `make deploy-test`.
#
# It installs docker.io if missing, starts a private dockerd (own socket,
# data root, exec root, pid file; no iptables rules, no forwarding change,
# no docker0), builds the base images locally (debootstrap, nats-server and
# the compose v2 plugin from their Go modules), builds docket's image from
# deploy/Dockerfile, brings up docker-compose.yml (only its published ports
# overridden) and checks: `docket selftest` in a worker says `full` and
# exits 0; under the engine's default seccomp profile it does not; the
# worker's root cannot widen the devices allow-list; one example
# submission per (problem, expected verdict) directory gets its verdict;
# a burst survives killing the jobs stream's leader and a worker with one
# result and one `final` event per submission. On exit (trap) it stops
# everything it started and leaves no daemon, mount or interface behind.
#
# Environment:
#   DOCKET_DEPLOY_CACHE  cache kept between runs (default
#                        /var/cache/docket-deploy-test): the engine's data
#                        root (images, build layers), the debootstrap
#                        tarball, nats-server and the compose plugin.
#   DOCKET_DEPLOY_RUN    run-time directory (socket, exec root), removed at
#                        the end (default /run/docket-deploy-test; short:
#                        unix socket paths stay under 108 bytes).
#   DOCKET_DEPLOY_KEEP=1 leave the stack and dockerd running (debugging;
#                        stop with `scripts/deploy-test.sh down`).
#   DOCKET_DEPLOY_BURST_ROUNDS  rounds of 6 submissions in the burst (10).
#   DOCKET_DEPLOY_NATS_PORT, DOCKET_DEPLOY_BRIDGE_PORT  the ports published
#                        on 127.0.0.1 for nats1 and the bridge (46422, 46080).
# Usage: scripts/deploy-test.sh [all | build | test | down]: all (the
# default) builds and checks; build only fills the cache; test runs the
# checks against the images already built; down stops a kept stack.
# Needs: root, Debian 12, Go (the go.mod's version) on PATH, the Debian
# mirror and the Go module proxy reachable.
set -eu

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${DOCKET_DEPLOY_CACHE:-/var/cache/docket-deploy-test}
RUN=${DOCKET_DEPLOY_RUN:-/run/docket-deploy-test}
KEEP=${DOCKET_DEPLOY_KEEP:-0}
# Pinned: the compose v2 plugin (Debian 12 ships only compose v1, which
# rejects the file's `cgroup:` key). v2.36.2 speaks engine API 1.41.
COMPOSE_VERSION=v2.36.2
MIRROR=http://deb.debian.org/debian
NATS_PORT=${DOCKET_DEPLOY_NATS_PORT:-46422}
BRIDGE_PORT=${DOCKET_DEPLOY_BRIDGE_PORT:-46080}
PROJECT=docket-deploy-test
NET=${PROJECT}_default
URLS=nats://nats1:4222,nats://nats2:4222,nats://nats3:4222

export DOCKER_HOST="unix://$RUN/docker.sock"
# The compose plugin lives in the cache, not in ~/.docker.
export DOCKER_CONFIG="$CACHE/docker-config"

T0=$(date +%s)
TSTEP=$T0
step() {
	now=$(date +%s)
	printf '=== [%4ds] %s\n' "$((now - T0))" "$*"
	TSTEP=$now
}
done_step() {
	printf '    done in %ds\n' "$(($(date +%s) - TSTEP))"
}
fail() {
	echo "deploy-test: FAIL: $*" >&2
	exit 1
}

. "$REPO/scripts/deploy-test-lib.sh"
. "$REPO/scripts/deploy-test-checks.sh"

# main: the whole run. Called from the last line together with exit, so
# that the shell never reads this file again after the run: an edit made
# meanwhile (a checkout) cannot be half-read as the script's tail.
main() {
	case "${1:-all}" in
	all)
		trap 'teardown $?' EXIT
		trap 'exit 130' INT TERM
		build_all
		test_all
		;;
	build)
		# the images only (cache warm-up); the engine stops at the end
		trap 'teardown $?' EXIT
		trap 'exit 130' INT TERM
		build_all
		;;
	test)
		# the checks only, against the images of an earlier run (debugging)
		trap 'teardown $?' EXIT
		trap 'exit 130' INT TERM
		start_engine
		test_all
		;;
	down)
		KEEP=0
		teardown 0
		;;
	*)
		echo "usage: $0 [all|build|test|down]" >&2
		exit 2
		;;
	esac
}

main "$@"; exit "$?"
