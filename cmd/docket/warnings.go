package main

import (
	"flag"
	"fmt"

	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
)

// quietFlag is --quiet, which silences a package's warnings on stderr
// (never in --json, nor in a worker's log).
func quietFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("quiet", false, "do not print the package's warnings (its trusted programs, statements linked out of it)")
}

// printWarnings tells a person what a package's warnings say, on stderr:
// a plain line each, naming the package.
func printWarnings(cmd string, p *problem.Problem, quiet bool) {
	if quiet {
		return
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(stderr, "%s: warning: %s: %s\n", cmd, p.ID, w.Message)
	}
}

// runJSON is docket run's --json: the result, with the package's
// warnings beside its fields (a worker's results never carry them).
type runJSON struct {
	*verdict.Result
	PackageWarnings []problem.Warning `json:"package_warnings,omitempty"`
}
