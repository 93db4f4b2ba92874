package main

import "github.com/docketjudge/docket/internal/execcli"

func init() {
	register("exec", "run one command in the sandbox and print its measurements", runExec)
}

// runExec is docket exec; the command itself is in internal/execcli, which
// the small docket-exec binary runs too.
func runExec(args []string) int {
	fs := newFlags("exec", helpText{synopsis: execcli.Synopsis, about: execcli.About, example: execcli.Example("docket exec")})
	f := execcli.Define(fs)
	if code, ok := parseLeading(fs, args); !ok {
		return code
	}
	return execcli.Command{Name: "docket exec", Open: execcli.OpenOneRun}.Run(f, fs.Args())
}
