# docket: build, test, benchmark, run. Run as root: the sandbox needs it
# for namespaces, cgroups and the uid switch (tests that cannot run say why).

GO      ?= go
BIN     := bin/docket
PKGS    := ./...
# The sandbox helper is a cgo constructor when cgo is available.
export CGO_ENABLED ?= 1

.PHONY: build test bench run deps vet clean

build:
	$(GO) build -o $(BIN) ./cmd/docket

# System packages the tests need (Debian names). Only installed when missing.
deps:
	@command -v gcc >/dev/null && test -e /usr/lib/x86_64-linux-gnu/libc.a || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc libc6-dev)

vet:
	$(GO) vet $(PKGS)

test: deps vet
	$(GO) test -count=1 -timeout 20m $(PKGS)

# Benchmarks report ratios against a baseline measured in the same run.
bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 300x ./sandbox/

# Until the queue worker lands (issue 4), `make run` shows the sandbox on
# this host: the probe and escape checks, then one judged-style run.
run: build
	./$(BIN) selftest
	./$(BIN) exec --time 1s --memory 64M -- /bin/sh -c 'echo hello from the sandbox; id'

clean:
	rm -rf bin
