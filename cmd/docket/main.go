// Command docket is the judge worker's single binary. This file only
// dispatches subcommands; each lives in its own file.
package main

import (
	"flag"
	"fmt"
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

func usage() {
	fmt.Fprintf(os.Stderr, "docket: a judge worker for online judges and contest systems\n\nusage: docket <command> [flags]\n\ncommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(os.Stderr, "\nEvery command takes --help. Configuration: flags and DOCKET_* environment variables.\n")
}

func main() {
	if os.Getenv("DOCKET_ESCAPE") == "1" && len(os.Args) > 1 {
		// Inside the sandbox, as selftest's hostile program.
		os.Exit(escapeMain(os.Args[1:]))
	}
	if len(os.Args) < 2 {
		usage()
		os.Exit(exitUsage)
	}
	name := os.Args[1]
	if name == "help" || name == "-h" || name == "--help" {
		usage()
		os.Exit(exitOK)
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "docket: unknown command %q\n\n", name)
		usage()
		os.Exit(exitUsage)
	}
	os.Exit(cmd.run(os.Args[2:]))
}

// parseArgs parses a subcommand's flags: --help exits 0, a bad flag 2.
func parseArgs(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK, false
		}
		return exitUsage, false
	}
	return 0, true
}
