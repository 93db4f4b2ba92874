package execcli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Main is docket-exec: `docket exec` as a binary of its own, with the same
// flags, output and exit codes. args are the arguments after the
// program's name.
func Main(args []string) int {
	const name = "docket-exec"
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	f := Define(fs)
	// Silent while parsing: a bad flag points at --help instead of
	// printing it all, as docket's commands do.
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeHelp(os.Stdout, fs, name)
			return ExitOK
		}
		fmt.Fprintf(os.Stderr, "run '%s --help' for usage\n", name)
		return ExitUsage
	}
	return Command{Name: name, Open: OpenOneRun}.Run(f, fs.Args())
}

// writeHelp is docket-exec's --help, laid out as docket's commands' are.
func writeHelp(w io.Writer, fs *flag.FlagSet, name string) {
	about := strings.Replace(About, "docket's flags", name+"'s flags", 1)
	fmt.Fprintf(w, "usage: %s %s\n\n%s\n", name, Synopsis, about)
	fmt.Fprintln(w, "\nflags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	writeEnv(w)
	fmt.Fprintf(w, "\nexample:\n  %s\n", Example(name))
}
