// Command docket-exec is `docket exec` alone: one command run in the
// sandbox, its measurements printed, with exactly docket exec's flags,
// output and exit codes. It links the sandbox and nothing of the worker
// (NATS, languages, logging), so it starts several times faster than the
// docket binary: for scripts and tools that run one program per process.
//
// It must not import any of docket's packages but internal/execcli, nor
// NATS, languages or logging: its start time is its point.
package main

import (
	"os"

	"github.com/docketjudge/docket/internal/execcli"
)

func main() { os.Exit(execcli.Main(os.Args[1:])) }
