#!/bin/sh
# fuzz.sh TIME: fuzz every native Go fuzz target in the repository for
# TIME each (e.g. 3s, 60s). Targets are found by grep, so a new
# `func FuzzXxx(f *testing.F)` in any *_test.go is included without
# editing this file. `go test -fuzz` takes one target per run, so each
# runs on its own; the first failure stops the script with its status
# (the failing input is under the package's testdata/fuzz/).
set -eu
time=${1:?usage: fuzz.sh TIME (e.g. 3s)}
go=${GO:-go}
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT

grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . |
	grep -v '^./\.' | sort |
	while read -r file; do
		pkg=./$(dirname "${file#./}")
		sed -n -E 's/^func (Fuzz[A-Za-z0-9_]*)\(f \*testing\.F\).*/\1/p' "$file" |
			while read -r target; do
				echo "fuzz: $pkg $target for $time"
				corpus="$pkg/testdata/fuzz/$target"
				before=$(ls "$corpus" 2>/dev/null | wc -l)
				"$go" test -run='^$' -fuzz="^${target}\$" -fuzztime="$time" "$pkg" >"$log" 2>&1 || {
					after=$(ls "$corpus" 2>/dev/null | wc -l)
					# Go's fuzzing coordinator fails a run whose time ends
					# while a worker is still inside an input ("context
					# deadline exceeded"), with nothing found: on a loaded
					# machine that is not a finding. A finding writes its
					# input to testdata/fuzz; without one, the seed corpus
					# is replayed and must pass.
					if [ "$after" = "$before" ] && grep -q 'context deadline exceeded' "$log" &&
						! grep -q -e 'Failing input written' -e 'panic:' "$log" &&
						"$go" test -count=1 -run="^${target}\$" "$pkg" >/dev/null 2>&1; then
						echo "fuzz: $target: the fuzz time ended inside an input, nothing found (seed corpus passes)"
						continue
					fi
					cat "$log"
					exit 1
				}
				tail -1 "$log"
			done
	done
