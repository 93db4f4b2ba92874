# docket: build, test, benchmark, run. Run as root: the sandbox needs it
# for namespaces, cgroups and the uid switch (tests that cannot run say why).

GO      ?= go
BIN     := bin/docket
PKGS    := ./...
# The sandbox helper is a cgo constructor when cgo is available.
export CGO_ENABLED ?= 1

.PHONY: build test race fuzz bench bench-record run deps vet lint lint-funclen lint-doc clean check-problems docs test-cgroup2 deploy-test

# What docket version prints. The commit is also in the build information
# (vcs.revision) when the go command stamps it, which it does not in a git
# worktree or under GOFLAGS=-buildvcs=false; COMMIT covers those.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
# bin/docket-exec is `docket exec` alone, a binary that starts faster
# (internal/execcli; docs/sandbox.md); bin/docket-exec-client, in C, runs
# its command lines through a `docket-exec --serve` (docs/sandbox.md, "A
# warm sandbox for one command per process"), linked statically like it.
CC ?= cc
build:
	$(GO) build -ldflags "-X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(BIN) ./cmd/docket
	$(GO) build -o bin/docket-exec ./cmd/docket-exec
	$(CC) -O2 -Wall -Wextra -static -o bin/docket-exec-client cmd/docket-exec-client/client.c

# System packages the tests need (Debian names): the C toolchain for the
# sandbox tests, and the language catalog's toolchains for the judging
# tests and the example problems. Only installed when one is missing.
APT_PACKAGES := gcc g++ libc6-dev python3 pypy3 nodejs openjdk-17-jdk-headless kotlin rustc chromium zip curl
# The rest of DOMjudge's default languages (langs/domjudge.go), without
# their recommended packages, which the catalog does not use (R's
# recommended library alone depends on 16 packages). Installing them on the
# 2-core development machine (Debian 12, the packages above present) set
# up 73 packages in 86 s, downloads included.
APT_LANG_PACKAGES := fp-compiler ghc ocaml-nox ruby lua5.4 perl swi-prolog-nox r-base-core gnat gfortran gawk bash dash mono-mcs mono-runtime scala php-cli
deps:
	@$(call apt_install,$(APT_PACKAGES),)
	@$(call apt_install,$(APT_LANG_PACKAGES),--no-install-recommends)

# apt_install installs those of the packages $(1) that are missing, with
# apt-get options $(2).
define apt_install
missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) $$missing >/dev/null; \
	fi
endef

vet:
	$(GO) vet $(PKGS)

# Static checks, no test run (CI runs them before make test): staticcheck
# at a pinned version (fetched through the module proxy on first use;
# staticcheck.conf adds the doc-comment checks to its defaults), gofmt -l
# over every Go file, which must list none, then lint-funclen and
# lint-doc.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOFMT ?= $(shell $(GO) env GOROOT)/bin/gofmt
lint:
	$(GO) run $(STATICCHECK) $(PKGS)
	@unformatted=$$($(GOFMT) -l .); \
	if [ -n "$$unformatted" ]; then \
		echo "not gofmt'd (run gofmt -w):"; echo "$$unformatted"; exit 1; \
	fi
	$(MAKE) --no-print-directory lint-funclen
	$(MAKE) --no-print-directory lint-doc

# No function of the sandbox or the worker, tests included, longer than 80 lines (from
# func to the closing brace), so each reads one screen at a time; the
# request decoder is one flat switch over the wire format's fields.
lint-funclen:
	$(GO) run ./internal/tools/funclen -tests -max 80 -except sandbox/nsinit.decodeRequest sandbox worker

# Every package comment says what the package is for and what it must
# not import (a claim in doccheck's checked form is held to the real
# imports); every exported identifier has a doc comment.
lint-doc:
	$(GO) run ./internal/tools/doccheck .

# -p 1: one package at a time. The judging tests measure CPU and wall
# time on a 2-core machine; packages running side by side make their
# timing limits flaky.
# Then the race leg (below) and a short run of every fuzz target
# (scripts/fuzz.sh finds them). cmd/docket alone takes about 15 minutes
# (every language, the example problems, the cluster faults); the timeout
# leaves room for a slower machine, inside CI's 90.
FUZZTIME_SHORT ?= 2s
# scripts/test-each.sh runs one package at a time (so -p 1 holds by
# construction) and names each package as it starts.
test: deps vet
	GO=$(GO) scripts/test-each.sh -p 1 -count=1 -timeout 50m -- $(PKGS)
	$(MAKE) --no-print-directory race
	GO=$(GO) scripts/fuzz.sh $(FUZZTIME_SHORT)

# The race detector over the packages whose code runs concurrently: the
# sandbox (output copiers, watchdogs, the zygote), the judge, the worker,
# the bridge (each SSE stream reads its consumer in a goroutine), the
# language probes (side by side, one version cache) and the NATS cluster
# of the tests. cmd/docket is left out: its tests (every language, the
# cluster faults) take 15 minutes without the detector, which slows Go
# code several-fold. Every test of them, on the 2-core development
# machine shared with other jobs (load 1 to 13): 3.9 to 4.9 minutes when
# some race builds are stale (4.3 with verdict's, after its in-process
# table test came), of which bridge, langs and the NATS cluster take
# about 30 s; 6.5 minutes with a cold cache before they were added (the
# race-built packages compile first).
RACE_PKGS := ./sandbox/... ./verdict/... ./worker/... ./bridge/... ./langs/... ./internal/natscluster/
race: deps
	GO=$(GO) scripts/test-each.sh -race -p 1 -count=1 -timeout 30m -- $(RACE_PKGS)

# The sandbox's escape and measurement tests, and `docket selftest`, on a
# pure cgroup v2 hierarchy: a Debian 12 VM under QEMU (software
# emulation), its image cached outside the repository
# (DOCKET_CGROUP2_CACHE, default /var/cache/docket-cgroup2-vm); the test
# binaries are built here. docs/sandbox.md gives what runs and how long.
test-cgroup2:
	GO=$(GO) scripts/test-cgroup2.sh

# Longer fuzzing, FUZZTIME per target; a failing input is left in the
# package's testdata/fuzz/ (commit it with the fix, as a regression seed).
FUZZTIME ?= 60s
fuzz:
	GO=$(GO) scripts/fuzz.sh $(FUZZTIME)

# Benchmarks report ratios against a baseline measured in the same run,
# interleaved (docs/performance.md). The reference sandbox,
# isolate v1.10.1, is found or built first by scripts/isolate.sh (cache
# /var/cache/docket-bench); without it the benchmarks skip its column,
# saying why, and still report against plain fork+exec. Every result is
# teed to BENCH_OUT, and the run ends with one table of the figures
# built from it (internal/tools/benchsummary), which also writes them,
# with the host, the date and the commit, to BENCH_JSON. bash, for
# pipefail: a failing benchmark fails the target although its output
# goes to tee. The run changes nothing in the tree: `make bench-record`
# makes it the committed one.
BENCH_OUT ?= bin/bench.txt
BENCH_JSON ?= bin/bench.json
bench: SHELL := /bin/bash
bench: .SHELLFLAGS := -eo pipefail -c
bench: deps
	@mkdir -p "$(dir $(BENCH_OUT))" && : >"$(BENCH_OUT)"
	scripts/isolate.sh >/dev/null || echo "isolate unavailable: its columns will be skipped"
	$(GO) test -run '^$$' -bench . -skip 'TimingNoise|AfterPause' -benchtime 300x ./sandbox/ | tee -a "$(BENCH_OUT)"
	# 20 runs, each after a pause of 250 ms, and 20 plain ones alternated.
	$(GO) test -run '^$$' -bench AfterPause -benchtime 20x ./sandbox/ | tee -a "$(BENCH_OUT)"
	# 20 runs of about 1 s of CPU in the sandbox and 20 outside.
	$(GO) test -run '^$$' -bench TimingNoise -benchtime 20x ./sandbox/ | tee -a "$(BENCH_OUT)"
	$(GO) test -run '^$$' -bench ExecCommand -benchtime 60x ./cmd/docket/ | tee -a "$(BENCH_OUT)"
	$(GO) test -run '^$$' -bench Judge100 -benchtime 5x ./verdict/ | tee -a "$(BENCH_OUT)"
	# 8 tests of 250 ms of CPU, one at a time and in parallel, 3 times.
	$(GO) test -run '^$$' -bench ParallelFairness -benchtime 3x ./verdict/ | tee -a "$(BENCH_OUT)"
	# 10 judgings of a 2-process Communication task (5 tests) alternated
	# with 10 of a 5-test batch package; 10 rounds of a compile with a
	# C++ grader and plain compiles of each part. Under a minute each.
	$(GO) test -run '^$$' -bench 'Communication|GraderCompile' -benchtime 10x ./verdict/ | tee -a "$(BENCH_OUT)"
	$(GO) test -run '^$$' -bench . ./verdict/compare/ | tee -a "$(BENCH_OUT)"
	DOCKET_BENCH_BURST=$${DOCKET_BENCH_BURST:-10000} $(GO) test -run '^$$' -bench Burst -benchtime 1x -timeout 60m ./worker/ | tee -a "$(BENCH_OUT)"
	# The queue alone: 1, 8, 16, 64 capacity-mode worker processes (they
	# judge nothing) against a 3-node nats-server cluster.
	DOCKET_CAPACITY_SWEEP=1 $(GO) test -run '^TestCapacitySweep$$' -v -count=1 -timeout 30m ./cmd/docket/ | tee -a "$(BENCH_OUT)"
	$(GO) run ./internal/tools/benchsummary -json "$(BENCH_JSON)" -commit "$(COMMIT)" -version "$(VERSION)" "$(BENCH_OUT)"

# The results of the last `make bench` become the committed ones, from
# which docs/performance.md and the README's figures are generated.
BENCH_RESULTS := docs/bench/results.json
bench-record:
	@test -f "$(BENCH_JSON)" || { echo "no $(BENCH_JSON): run make bench first"; exit 1; }
	@mkdir -p "$(dir $(BENCH_RESULTS))"
	cp "$(BENCH_JSON)" "$(BENCH_RESULTS)"
	$(MAKE) --no-print-directory docs

# The single-machine default: embedded NATS JetStream (data in ./.docket),
# one worker, the bridge on 127.0.0.1:8080, ./problems pushed. Submit from
# another terminal (README).
run: deps build
	./$(BIN) serve

# The generated docs: the configuration reference, from the configuration
# structs (a test in cmd/docket fails when docs/config.md differs from
# it); docs/performance.md and the README's figures block, from the
# committed results of `make bench` (a test in
# internal/tools/benchsummary fails when they differ from it).
docs: build
	./$(BIN) config reference > docs/config.md.tmp && mv docs/config.md.tmp docs/config.md
	$(GO) run ./internal/tools/benchsummary -docs $(BENCH_RESULTS)

# The container deployment run for real (docs/deploy.md, "Run for real"):
# a private dockerd (Debian 12's docker.io, installed if missing), base
# images built locally, the image from deploy/Dockerfile, the compose
# stack with only its published ports moved; selftest at level full, the
# example submissions, a burst that loses the jobs leader and a worker.
# Cache outside the repository: DOCKET_DEPLOY_CACHE (default
# /var/cache/docket-deploy-test, about 6 GB). Time on the 2-core machine
# (shared, load 7-10): 25 min with an empty cache (docket's image 10 min,
# the compose plugin 5), 5 min with a warm one after source changes
# (docket's image from its Go stage on), 2.5 min when nothing changed.
deploy-test:
	scripts/deploy-test.sh

# Judge every example problem's own submissions (also part of go test).
check-problems: build
	@for p in problems/*/; do ./$(BIN) problem check $$p || exit 1; done

clean:
	rm -rf bin
