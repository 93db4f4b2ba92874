# deploy-test-checks.sh: the checks of scripts/deploy-test.sh (sourced;
# the images are built and the private dockerd runs).

# stack_up: docker-compose.yml as it is, only its published ports moved
# (an override file), two workers.
stack_up() {
	step "compose up: 3 NATS nodes, push-problems, 2 workers, bridge"
	cat >"$RUN/compose.override.yml" <<-EOF
	services:
	  nats1:
	    ports: !override
	      - 127.0.0.1:$NATS_PORT:4222
	  bridge:
	    ports: !override
	      - 127.0.0.1:$BRIDGE_PORT:8080
	EOF
	DOCKET_BRIDGE_TOKEN=$(random_hex)
	DOCKET_BRIDGE_HMAC_SECRET=$(random_hex)
	export DOCKET_BRIDGE_TOKEN DOCKET_BRIDGE_HMAC_SECRET
	compose up -d --no-build --scale worker=2 --wait >"$RUN/compose-up.log" 2>&1 ||
		{ tail -30 "$RUN/compose-up.log" >&2; compose logs --tail 20 >&2 || true; fail "compose up"; }
	compose ps --format '{{.Service}} {{.Status}}' | sort
	done_step
}

random_hex() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }

# check_selftest: `docket selftest` in a running worker says full, exit 0;
# the entrypoint left devices read-only (root in the worker cannot widen
# its device allow-list) and made the memory hierarchy writable.
check_selftest() {
	step "docket selftest in a compose worker"
	out="$RUN/selftest-worker.txt"
	compose exec -T worker docket selftest >"$out" 2>&1 || { cat "$out" >&2; fail "selftest in the worker exited non-zero"; }
	sed 's/^/    /' "$out"
	grep -q '^isolation level: full ' "$out" || fail "selftest in the worker: $(head -1 "$out")"
	check_health_selftest
	pid1=$(compose exec -T worker cat /proc/1/comm)
	echo "    PID 1 in the worker: $pid1"
	[ "$pid1" != docket ] || fail "docket is PID 1 in the worker (init: true missing?)"
	if compose exec -T worker test -d /sys/fs/cgroup/devices; then
		# shellcheck disable=SC2016
		if compose exec -T worker sh -c 'echo a >/sys/fs/cgroup/devices/devices.allow' 2>/dev/null; then
			fail "root in the worker widened its devices allow-list"
		fi
		compose exec -T worker sh -c 'grep " /sys/fs/cgroup/" /proc/self/mountinfo' |
			awk '{ print "    " $5, ($6 ~ /(^|,)ro(,|$)/ ? "ro" : "rw") }'
		echo "    writing 'a' to devices.allow in the worker: refused"
	else
		echo "    no devices hierarchy (cgroup v2): the devices check does not apply"
	fi
	done_step
}

# check_health_selftest: the entrypoint ran `docket selftest --once` at
# start (its output is in the container's log), and the worker's health
# check, healthy by now, starts with the same command.
check_health_selftest() {
	cid=$(compose ps -q worker | head -1)
	hc=$(docker inspect -f '{{json .Config.Healthcheck.Test}}' "$cid")
	echo "    health check: $hc"
	case $hc in
	'["CMD-SHELL","docket selftest --once'*) ;;
	*) fail "the worker's health check does not start with docket selftest" ;;
	esac
	health=$(docker inspect -f '{{.State.Health.Status}}' "$cid")
	[ "$health" = healthy ] || fail "the worker is $health, not healthy"
	docker logs "$cid" 2>&1 | grep -q '^isolation level: full ' ||
		fail "the entrypoint's selftest at start did not say full (docker logs $cid)"
	compose exec -T worker docket selftest --once --json | grep -q '"ok": true' ||
		fail "the report kept at start is not ok"
	echo "    entrypoint's selftest at start: full; the worker is $health"
}

# check_default_seccomp: with the engine's default seccomp profile in
# place of the worker's (same capabilities), no box can be made; selftest
# must say so, not `full`, and exit 1.
check_default_seccomp() {
	step "docket selftest under the engine's default seccomp profile"
	out="$RUN/selftest-default-seccomp.txt"
	if docker run --rm --network none --cap-drop ALL \
		--cap-add SYS_ADMIN --cap-add SETUID --cap-add SETGID --cap-add KILL --cap-add CHOWN \
		--cap-add DAC_OVERRIDE --cap-add FOWNER --cap-add MKNOD --cap-add SYS_CHROOT \
		--security-opt apparmor=unconfined --security-opt no-new-privileges=true --cgroupns private \
		--tmpfs /run/docket:size=64m,mode=0755 --tmpfs /var/lib/docket:size=1g,mode=0711 \
		docket:local selftest >"$out" 2>&1; then
		cat "$out" >&2
		fail "selftest exited 0 under the default seccomp profile"
	fi
	head -1 "$out"
	grep 'filesystem' "$out" | head -1
	if grep -q '^isolation level: full ' "$out"; then
		fail "selftest reports full under the default seccomp profile"
	fi
	done_step
}

# host_docket: the image's docket binary, for submissions from the host.
host_docket() {
	cid=$(docker create docket:local)
	docker cp -q "$cid:/usr/local/bin/docket" "$RUN/docket"
	docker rm "$cid" >/dev/null
}

# check_examples: one submission of every problems/<p>/submissions/<dir>/
# from the host through nats1's published port; each must meet its
# directory's expectation (as `docket problem check` reads them).
check_examples() {
	step "example submissions: every problem, every expected verdict"
	host_docket
	mkdir -p "$RUN/examples"
	pids=
	for d in "$REPO"/problems/*/submissions/*/; do
		first=$(find "$d" -mindepth 1 -maxdepth 1 | sort | head -1)
		[ -n "$first" ] || continue
		prob=$(basename "$(dirname "$(dirname "$d")")")
		name="$prob.$(basename "$d")"
		(
			if [ -d "$first" ]; then
				set -- $(find "$first" -type f | sort)
			else
				set -- "$first"
			fi
			DOCKET_NATS_URL=nats://127.0.0.1:$NATS_PORT "$RUN/docket" submit --follow \
				--problem "$prob" --id "ex-$(date +%s)-$(echo "$name" | tr -c 'A-Za-z0-9_\n' '-')" "$@" \
				>"$RUN/examples/$name.out" 2>&1 || true
		) &
		pids="$pids $!"
	done
	# not a bare wait: dockerd is a child of this shell too
	# shellcheck disable=SC2086
	wait $pids
	bad=0
	for f in "$RUN"/examples/*.out; do
		name=$(basename "$f" .out)
		line=$(grep '^verdict ' "$f" | tail -1)
		if meets "${name#*.}" "$line"; then
			printf '    ok   %-40s %s\n' "$name" "$(echo "$line" | awk '{ print $2, $4 }')"
		else
			printf '    FAIL %-40s %s\n' "$name" "${line:-$(tail -3 "$f")}"
			bad=$((bad + 1))
		fi
	done
	[ "$bad" = 0 ] || fail "$bad example submissions missed their expected verdict"
	done_step
}

# meets DIR SUMMARY: the summary line of `docket submit --follow` ("verdict
# WA  score 0/1 ... tests: [AC 3 WA 1] ...") meets what the directory
# promises: accepted = AC at the maximum score; partially_accepted = AC
# strictly between 0 and the maximum; a failure directory = that verdict,
# or (scoring problems) a partial AC with a test of that verdict.
meets() {
	case "$1" in
	accepted) want=AC ;; wrong_answer) want=WA ;; time_limit_exceeded) want=TLE ;;
	run_time_error) want=RE ;; memory_limit_exceeded) want=MLE ;;
	output_limit_exceeded) want=OLE ;; compile_error) want=CE ;;
	presentation_error) want=PE ;; partially_accepted) want=PARTIAL ;;
	*) return 1 ;;
	esac
	echo "$2" | awk -v want="$want" '
	/^verdict / {
		v = $2; split($4, s, "/"); score = s[1] + 0; max = s[2] + 0
		partial = v == "AC" && score > 0 && score < max
		if (want == "AC") exit !(v == "AC" && score == max)
		if (want == "PARTIAL") exit !partial
		exit !(v == want || (partial && index($0, "[" want " ") + index($0, " " want " ") > 0))
	}
	END { if (NR == 0) exit 1 }'
}

# check_burst: N submissions published from a container on the compose
# network (all three NATS URLs); meanwhile the DOCKET_JOBS leader's NATS
# container and worker-1 are killed. Every submission must end with one
# result and exactly one final event.
check_burst() {
	rounds=${DOCKET_DEPLOY_BURST_ROUNDS:-10}
	step "burst of $((rounds * 6)) submissions; the jobs leader's NATS and a worker killed"
	(cd "$REPO" && CGO_ENABLED=0 go build -o "$RUN/deploycheck" ./deploy/deploycheck)
	run=b$(date +%s)
	ids=$(seq "$rounds" | while read -r r; do seq 6 | sed "s/^/$run-$r-/"; done)
	# shellcheck disable=SC2016
	docker run --rm --network "$NET" -e DOCKET_NATS_URL="$URLS" -e ROUNDS="$rounds" -e RUN="$run" \
		--entrypoint sh docket:local -c '
		set -eu
		for r in $(seq "$ROUNDS"); do
			k=0
			for fp in aplusb/submissions/accepted/main.c:aplusb aplusb/submissions/accepted/main.py:aplusb \
				aplusb/submissions/time_limit_exceeded/spin.cpp:aplusb \
				guess-kattis/submissions/accepted/binary_search.cpp:guess-kattis \
				kattis-checker/submissions/accepted/evens_then_odds.cpp:kattis-checker \
				scoring-groups/submissions/accepted/sum.py:scoring-groups; do
				k=$((k + 1))
				docket submit --problem "${fp##*:}" --id "$RUN-$r-$k" "/problems/${fp%%:*}" >/dev/null
			done
		done' >"$RUN/burst.log" 2>&1 &
	pub=$!
	sleep 2
	leader=$(deploycheck leader DOCKET_JOBS)
	victim="$PROJECT-nats${leader#n}-1"
	echo "    $(date +%T) docker kill $victim (DOCKET_JOBS leader $leader) and $PROJECT-worker-1"
	docker kill "$victim" "$PROJECT-worker-1" >/dev/null
	wait "$pub" || { cat "$RUN/burst.log" >&2; fail "publishing the burst"; }
	echo "    $(date +%T) all $((rounds * 6)) published"
	# shellcheck disable=SC2086
	deploycheck -wait 5m done $ids || fail "burst: not every submission got one result and one final"
	compose logs worker 2>&1 | grep -E '"level":"(warn|error)"' | cut -c1-200 | sort | uniq -c | sort -rn | head -5 || true
	done_step
}

# deploycheck ARGS: deploy/deploycheck in a container on the compose
# network, with all three NATS URLs.
deploycheck() {
	docker run --rm --network "$NET" -v "$RUN/deploycheck:/deploycheck:ro" \
		--entrypoint /deploycheck docket:local -nats "$URLS" "$@"
}

test_all() {
	check_default_seccomp
	stack_up
	check_selftest
	check_examples
	check_burst
}
