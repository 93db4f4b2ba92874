# deploy-test-lib.sh: the engine and the images for scripts/deploy-test.sh
# (sourced; it sets REPO, CACHE, RUN, DOCKER_HOST, step and fail).

# packages installs the engine (Debian 12: docker.io 20.10, containerd
# 1.6, runc 1.1) and debootstrap when missing. --no-install-recommends: no
# apparmor, criu or needrestart. Without systemd the package's own
# service start is refused (policy-rc.d); dockerd is started below.
packages() {
	step "packages: docker.io, debootstrap"
	if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			docker.io debootstrap >/dev/null
	fi
	dockerd --version
	runc --version | head -1
	done_step
}

# start_engine: a private dockerd. Its own socket, exec root and pid file
# under $RUN, its data root in the cache (images and build layers survive
# for the next run). Networking: no iptables rules, no ip_forward change,
# no NAT, no default docker0 bridge. Compose's bridge network still joins
# its containers and its DNS (127.0.0.11) resolves service names;
# published ports go through docker-proxy; builds use the host network.
start_engine() {
	step "private dockerd"
	if docker info >/dev/null 2>&1; then
		echo "    already running (a kept run)"
		return 0
	fi
	LINKS_BEFORE=$(links)
	mkdir -p "$RUN" "$CACHE/engine" "$DOCKER_CONFIG/cli-plugins"
	setsid dockerd \
		--host "$DOCKER_HOST" \
		--data-root "$CACHE/engine" \
		--exec-root "$RUN/exec" \
		--pidfile "$RUN/dockerd.pid" \
		--storage-driver overlay2 \
		--exec-opt native.cgroupdriver=cgroupfs \
		--iptables=false --ip-forward=false --ip-masq=false --bridge=none \
		>"$RUN/dockerd.log" 2>&1 </dev/null &
	echo "$!" >"$RUN/dockerd.started"
	for _ in $(seq 60); do
		if docker info >/dev/null 2>&1; then
			docker version --format 'client {{.Client.Version}}, engine {{.Server.Version}} (API {{.Server.APIVersion}})'
			done_step
			return 0
		fi
		sleep 1
	done
	tail -20 "$RUN/dockerd.log" >&2
	fail "dockerd did not come up"
}

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

# debian_image: debian:bookworm and debian:bookworm-slim from a
# debootstrap minbase tarball (cached), with the real image's suites.
debian_image() {
	step "debian:bookworm(-slim) from debootstrap"
	if ! have_image debian:bookworm-slim; then
		tarball="$CACHE/debian-bookworm-minbase.tar"
		if [ ! -f "$tarball" ]; then
			root="$CACHE/rootfs.tmp"
			rm -rf "$root"
			debootstrap --variant=minbase bookworm "$root" "$MIRROR" >/dev/null
			rm -rf "$root/var/lib/apt/lists/"* "$root/var/cache/apt/archives/"*.deb "$root/etc/apt/sources.list"
			debian_sources >"$root/etc/apt/sources.list.d/debian.sources"
			tar -C "$root" -cf "$tarball.tmp" .
			mv "$tarball.tmp" "$tarball"
			rm -rf "$root"
		fi
		docker import -c 'CMD ["bash"]' "$tarball" debian:bookworm >/dev/null
		docker tag debian:bookworm debian:bookworm-slim
	fi
	done_step
}

debian_sources() {
	cat <<-EOF
	Types: deb
	URIs: $MIRROR
	Suites: bookworm bookworm-updates
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

	Types: deb
	URIs: $MIRROR-security
	Suites: bookworm-security
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
}

# golang_image: the Dockerfile's build stage image, golang:1.26-bookworm,
# made of the local Debian image, gcc and this host's Go toolchain. The
# host's extra CAs go in too: where egress TLS is intercepted, `go mod
# download` in the build only verifies the proxy with them.
golang_image() {
	image=$(sed -n 's/^ARG GO_IMAGE=//p' "$REPO/deploy/Dockerfile")
	step "$image: Debian, gcc and the host's $(go env GOVERSION)"
	if ! have_image "$image"; then
		ctx="$RUN/ctx-golang"
		mkdir -p "$ctx/ca"
		cp -a "$(go env GOROOT)" "$ctx/go"
		for c in /usr/local/share/ca-certificates/*.crt; do
			[ -f "$c" ] && cp "$c" "$ctx/ca/"
		done
		cat >"$ctx/Dockerfile" <<-'EOF'
		FROM debian:bookworm
		COPY ca/ /usr/local/share/ca-certificates/
		RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates git gcc libc6-dev make pkg-config && rm -rf /var/lib/apt/lists/*
		COPY go /usr/local/go
		ENV GOPATH=/go GOTOOLCHAIN=local PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		WORKDIR /go
		EOF
		docker build -q --network host -t "$image" "$ctx" >/dev/null
		rm -rf "$ctx"
	fi
	done_step
}

# nats_image: the compose file's nats image, with nats-server built from
# the version go.mod pins. Debian-based, not Alpine: the health check needs
# wget. Its entrypoint is nats-server, as in the official image.
nats_image() {
	version=$(awk '$1 == "github.com/nats-io/nats-server/v2" { print $2 }' "$REPO/go.mod")
	image=$(sed -n 's/^ *image: *\(nats:[^ ]*\).*/\1/p' "$REPO/docker-compose.yml" | head -1)
	step "$image: nats-server $version from its Go module"
	if ! have_image "$image"; then
		bin="$CACHE/bin/nats-server-$version"
		if [ ! -x "$bin" ]; then
			mkdir -p "$CACHE/bin"
			GOBIN="$RUN/gobin" CGO_ENABLED=0 go install -trimpath -ldflags='-s -w' \
				"github.com/nats-io/nats-server/v2@$version"
			mv "$RUN/gobin/nats-server" "$bin"
		fi
		ctx="$RUN/ctx-nats"
		mkdir -p "$ctx"
		cp "$bin" "$ctx/nats-server"
		cat >"$ctx/Dockerfile" <<-'EOF'
		FROM debian:bookworm-slim
		RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends wget && rm -rf /var/lib/apt/lists/*
		COPY nats-server /usr/local/bin/nats-server
		ENTRYPOINT ["nats-server"]
		EOF
		docker build -q --network host -t "$image" "$ctx" >/dev/null
		rm -rf "$ctx"
	fi
	done_step
}

# compose_plugin: docker compose $COMPOSE_VERSION built from its module.
# `go install module@version` refuses it (its go.mod has exclude
# directives), so it is built with the module as the main module.
compose_plugin() {
	step "docker compose $COMPOSE_VERSION from its Go module"
	plugin="$DOCKER_CONFIG/cli-plugins/docker-compose"
	if ! "$plugin" version 2>/dev/null | grep -q "$COMPOSE_VERSION"; then
		mod="github.com/docker/compose/v2@$COMPOSE_VERSION"
		dir=$(go mod download -json "$mod" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
		src="$RUN/compose-src"
		rm -rf "$src"
		cp -r "$dir" "$src"
		chmod -R u+w "$src"
		(cd "$src" && CGO_ENABLED=0 go build -trimpath \
			-ldflags="-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
			-o "$plugin.tmp" ./cmd)
		mv "$plugin.tmp" "$plugin"
		rm -rf "$src"
	fi
	docker compose version
	done_step
}

# docket_image: deploy/Dockerfile as it is. The legacy builder (no
# buildx), on the host network (the engine does no NAT).
# The build stage is tagged too, so that the prune below keeps its layers
# (go mod download) for the next run and drops only what earlier runs
# built: without it the cache grew by about 2 GB a run.
docket_image() {
	step "docket:local from deploy/Dockerfile"
	(cd "$REPO" && docker build -q --network host -f deploy/Dockerfile --target build -t docket:deploy-test-build . &&
		docker build -q --network host -f deploy/Dockerfile -t docket:local .) >/dev/null
	docker image prune -f >/dev/null
	docker image ls docket:local --format 'docket:local {{.Size}}'
	done_step
}

build_all() {
	[ "$(id -u)" = 0 ] || fail "run as root"
	packages
	start_engine
	debian_image
	golang_image
	nats_image
	compose_plugin
	docket_image
}

# teardown STATUS: compose down, stop our dockerd by its pid, remove what
# it left (mounts under our directories, the compose network's bridge),
# then check that nothing of ours is left. DOCKET_DEPLOY_KEEP=1 skips it.
teardown() {
	status=$1
	trap - EXIT
	if [ "$KEEP" = 1 ]; then
		echo "DOCKET_DEPLOY_KEEP=1: stack and dockerd left running ($DOCKER_HOST)"
		exit "$status"
	fi
	step "teardown"
	if [ -S "$RUN/docker.sock" ] && docker info >/dev/null 2>&1; then
		bridge=$(docker network inspect -f '{{.Id}}' "$NET" 2>/dev/null | cut -c1-12) || true
		# the file requires the bridge's secrets even to stop it
		DOCKET_BRIDGE_TOKEN=${DOCKET_BRIDGE_TOKEN:-down} DOCKET_BRIDGE_HMAC_SECRET=${DOCKET_BRIDGE_HMAC_SECRET:-down} \
			compose down -v --remove-orphans --timeout 10 >/dev/null 2>&1 || true
	fi
	stop_dockerd || status=1
	# dockerd leaves its default netns bind mount (and after a crash, more)
	grep -E " ($RUN|$CACHE/engine)/" /proc/self/mountinfo | awk '{ print $5 }' | sort -r |
		while read -r m; do umount -l "$m" || true; done
	if [ -n "${bridge:-}" ] && ip link show "br-$bridge" >/dev/null 2>&1; then
		ip link delete "br-$bridge"
	fi
	rm -rf "$RUN"
	left=$(grep -cE " ($RUN|$CACHE/engine)/" /proc/self/mountinfo || true)
	[ "$left" = 0 ] || { echo "deploy-test: $left mounts left" >&2; status=1; }
	if [ -n "${bridge:-}" ] && ip link show "br-$bridge" >/dev/null 2>&1; then
		echo "deploy-test: the compose network's bridge br-$bridge is left" >&2
		status=1
	fi
	# Other engines on the host may add or remove interfaces meanwhile:
	# a difference is shown, and only our own bridge above fails the run.
	if [ -n "${LINKS_BEFORE:-}" ] && [ "$(links)" != "$LINKS_BEFORE" ]; then
		echo "deploy-test: note: the host's network interfaces changed during the run:" >&2
		printf '%s\n' "$LINKS_BEFORE" >"$CACHE/links-before"
		links | diff "$CACHE/links-before" - >&2 || true
	fi
	printf '=== total %ds, exit %s\n' "$(($(date +%s) - T0))" "$status"
	exit "$status"
}

# links: the host's network interfaces (a run must leave none behind:
# no docker0, no compose bridge, no veth).
links() { ip -o link show | awk -F': ' '{ print $2 }' | sed 's/@.*//' | sort; }

stop_dockerd() {
	pid=$(cat "$RUN/dockerd.pid" 2>/dev/null || cat "$RUN/dockerd.started" 2>/dev/null || true)
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || return 0
	for _ in $(seq 30); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 1
	done
	kill -KILL "$pid" 2>/dev/null || true
	sleep 1
	if kill -0 "$pid" 2>/dev/null; then
		echo "deploy-test: dockerd $pid still runs" >&2
		return 1
	fi
}

compose() {
	docker compose -p "$PROJECT" -f "$REPO/docker-compose.yml" -f "$RUN/compose.override.yml" "$@"
}
