// Command docket is the judge worker's single binary. This file only
// dispatches subcommands; each lives in its own file.
//
// It may import any of docket's packages, and must not import those that
// exist for tests (internal/natstest, internal/natscluster,
// internal/testguard, internal/testprog, internal/kernel,
// internal/benchref).
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

type command struct {
	summary string
	run     func(args []string) int
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string) int) {
	commands[name] = command{summary, run}
}

// Exit codes shared by the subcommands.
const (
	exitOK     = 0
	exitFailed = 1 // the judged program or check failed
	exitUsage  = 2
	exitSystem = 3 // docket or the host failed
)

func usage(w io.Writer) {
	fmt.Fprintf(w, "docket: a judge worker for online judges and contest systems\n\nusage: docket <command> [flags] [arguments]\n\ncommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nEvery command takes --help (its flags, the DOCKET_* variables it reads, an example).\n"+
		"Flags may come before or after arguments; \"--\" ends them (docket run --problem DIR -- -file.c).\n"+
		"Exit codes: 0 success or AC, 1 another verdict or a failed check, 2 usage or configuration error, 3 host error.\n\n"+
		"example:\n  docket run --problem problems/aplusb problems/aplusb/submissions/accepted/main.c\n")
}

func main() {
	if os.Getenv("DOCKET_ESCAPE") == "1" && len(os.Args) > 1 {
		// Inside the sandbox, as selftest's hostile program.
		os.Exit(escapeMain(os.Args[1:]))
	}
	if len(os.Args) < 2 {
		usage(stderr)
		os.Exit(exitUsage)
	}
	name := os.Args[1]
	switch name {
	case "help", "-h", "--help":
		if len(os.Args) > 2 {
			if cmd, ok := commands[os.Args[2]]; ok {
				os.Exit(cmd.run(append(os.Args[3:], "--help")))
			}
		}
		usage(stdout)
		os.Exit(exitOK)
	case "--version", "-version":
		os.Exit(runVersion(nil))
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "docket: unknown command %q\n\n", name)
		usage(stderr)
		os.Exit(exitUsage)
	}
	os.Exit(cmd.run(os.Args[2:]))
}
