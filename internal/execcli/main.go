package execcli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Main is docket-exec: `docket exec` as a binary of its own, with the same
// flags, output and exit codes. args are the arguments after the
// program's name.
func Main(args []string) int {
	return Command{Name: "docket-exec", Open: OpenOneRun}.Main(args)
}

// Main parses args (the arguments after the program's name) as
// docket-exec's and runs them: --help is written to c's stdout, a bad
// flag to its stderr. The server (serve.go) runs each client's command
// line through it.
func (c Command) Main(args []string) int {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(c.stderr())
	f := Define(fs)
	// Silent while parsing: a bad flag points at --help instead of
	// printing it all, as docket's commands do.
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeHelp(c.stdout(), fs, c.Name)
			return ExitOK
		}
		fmt.Fprintf(c.stderr(), "run '%s --help' for usage\n", c.Name)
		return ExitUsage
	}
	return c.Run(f, fs.Args())
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
