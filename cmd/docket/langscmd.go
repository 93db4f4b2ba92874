package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

func init() {
	register("langs", "the language catalog on this host: each language, its version, or why it is unavailable", runLangs)
}

func runLangs(args []string) int {
	fs := flag.NewFlagSet("langs", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: docket langs [--json]\n\nflags:\n")
		fs.PrintDefaults()
		envUsage()
	}
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	cat, _, err := loadCatalog()
	if err != nil {
		fmt.Fprintln(os.Stderr, "docket langs:", err)
		return exitUsage
	}
	av := cat.Probe(context.Background())
	if *asJSON {
		type row struct {
			ID, Name, Version, Reason string
			Available                 bool
			Extensions                []string
			TimeMultiplier            float64
		}
		var rows []row
		for _, a := range av {
			rows = append(rows, row{a.Language.ID, a.Language.Name, a.Version, a.Reason, a.Available, a.Language.Extensions, a.Language.TimeMultiplier})
		}
		json.NewEncoder(os.Stdout).Encode(rows)
		return exitOK
	}
	for _, a := range av {
		state := a.Version
		if !a.Available {
			state = "UNAVAILABLE: " + a.Reason
		}
		fmt.Printf("%-11s %-24s %-16s x%-4g %s\n", a.Language.ID, a.Language.Name, strings.Join(a.Language.Extensions, " "), a.Language.TimeMultiplier, state)
	}
	return exitOK
}
