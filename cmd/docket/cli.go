package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/docketjudge/docket/internal/execcli"
)

// Flags are parsed by the standard flag package with one addition: they may
// come before and after positional arguments (docket run FILE --problem
// DIR). A small loop over flag.Parse does it; a CLI library would be a new
// dependency for this alone, and every command already speaks flag.

// helpText is what a command's --help prints besides its flags.
type helpText struct {
	synopsis string // after "docket NAME"
	about    string // what the command does, exit codes
	example  string // one command line
}

var helps = map[string]helpText{}

// newFlags is a command's flag set; its --help prints h, the flags, the
// DOCKET_* variables the command reads (from envGroups, which the
// configuration reference is generated from) and the example.
func newFlags(name string, h helpText) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	helps[name] = h
	fs.Usage = func() { writeHelp(fs.Output(), fs, h) }
	return fs
}

func writeHelp(w io.Writer, fs *flag.FlagSet, h helpText) {
	fmt.Fprintf(w, "usage: docket %s %s\n\n%s\n", fs.Name(), h.synopsis, strings.TrimRight(h.about, "\n"))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		out := fs.Output()
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(out)
	}
	writeEnvFor(w, fs.Name())
	if h.example != "" {
		fmt.Fprintf(w, "\nexample:\n  %s\n", h.example)
	}
}

// writeEnvFor lists the DOCKET_* variables command cmd acts on: those of
// the configuration structs envGroups says it loads, narrowed by usedBy.
func writeEnvFor(w io.Writer, cmd string) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	header := false
	for _, g := range envGroups {
		if !contains(g.commands, cmd) {
			continue
		}
		vars, err := structVars(g.spec)
		if err != nil {
			continue
		}
		for _, v := range vars {
			if u, ok := g.usedBy[v.key]; ok && !contains(u, cmd) {
				continue
			}
			if !header {
				fmt.Fprintln(w, "\nenvironment:")
				header = true
			}
			def := v.def
			if def == "" {
				def = "-"
			}
			fmt.Fprintf(tw, "  %s\t%s\tdefault %s\t%s\n", v.key, typeName(v.typ), def, v.desc)
		}
	}
	tw.Flush()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseArgs parses a subcommand's flags anywhere among its arguments:
// --help prints the help on stdout and exits 0, a bad flag exits 2. "--"
// ends the flags: whatever follows is positional, so a file named "-x"
// is passed as "-- -x" and never becomes an option.
func parseArgs(fs *flag.FlagSet, args []string) (int, bool) {
	if err := parseInterspersed(fs, args); err != nil {
		return usageError(fs, err), false
	}
	return 0, true
}

// parseLeading parses flags up to the first positional argument only: for
// docket exec, whose positional arguments are a command line with flags
// of its own.
func parseLeading(fs *flag.FlagSet, args []string) (int, bool) {
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	if err != nil {
		return usageError(fs, err), false
	}
	return 0, true
}

func usageError(fs *flag.FlagSet, err error) int {
	if errors.Is(err, flag.ErrHelp) {
		out := fs.Output()
		fs.SetOutput(stdout)
		fs.Usage()
		fs.SetOutput(out)
		return exitOK
	}
	// flag has printed the error; point at the help rather than print it all.
	fmt.Fprintf(stderr, "run 'docket %s --help' for usage\n", fs.Name())
	return exitUsage
}

func parseInterspersed(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		used := len(args) - len(rest)
		if used > 0 && args[used-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	// Leave exactly pos as fs.Args().
	return fs.Parse(append([]string{"--"}, pos...))
}

// durationLimit is a limit given on the command line: a Go duration with
// a unit, greater than zero (execcli, shared with docket-exec).
var durationLimit = execcli.DurationLimit

// positiveFlag is an integer limit that must be greater than zero.
type positiveFlag int

func positiveInt(fs *flag.FlagSet, name string, usage string) *int {
	var n int
	fs.Var((*positiveFlag)(&n), name, usage)
	return &n
}

func (n *positiveFlag) String() string {
	if n == nil || *n == 0 {
		return ""
	}
	return strconv.Itoa(int(*n))
}

func (n *positiveFlag) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("%q: want a whole number greater than zero", s)
	}
	*n = positiveFlag(v)
	return nil
}
