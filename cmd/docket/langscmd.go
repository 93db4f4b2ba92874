package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/docketjudge/docket/internal/safedir"
	"github.com/docketjudge/docket/langs"
)

func init() {
	register("langs", "the language catalog on this host: each language, its version, or why it is unavailable", runLangs)
}

func runLangs(args []string) int {
	fs := newFlags("langs", helpText{
		synopsis: "[--json]",
		about:    "Lists the language catalog: each language's id, aliases, extensions, time multiplier, and the\ninstalled version or why it is unavailable. Exit 2 when the languages file does not load.",
		example:  "docket langs --json",
	})
	asJSON := fs.Bool("json", false, "print JSON")
	refresh := fs.Bool("refresh", false, "ask every toolchain its version again, not from the cache")
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	cat, le, err := loadCatalog()
	if err != nil {
		fmt.Fprintln(stderr, "docket langs:", err)
		return exitUsage
	}
	av := probeLangs(cat, le, *refresh)
	if *asJSON {
		printLangsJSON(av)
		return exitOK
	}
	printLangs(av)
	return exitOK
}

func printLangsJSON(av []langs.Availability) {
	type row struct {
		ID, Name, Version, Reason string
		Available                 bool
		Aliases                   []string
		Extensions                []string
		TimeMultiplier            float64
	}
	rows := []row{}
	for _, a := range av {
		l := a.Language
		rows = append(rows, row{l.ID, l.Name, a.Version, a.Reason, a.Available, l.Aliases, l.Extensions, l.TimeMultiplier})
	}
	json.NewEncoder(jsonOut).Encode(rows)
}

// printLangs writes one line a language: id, name, extensions, aliases,
// time multiplier, then the version or why it is unavailable.
func printLangs(av []langs.Availability) {
	fmt.Fprintf(stdout, "%-11s %-22s %-18s %-16s %-5s %s\n", "ID", "NAME", "EXTENSIONS", "ALIASES", "TIME", "VERSION")
	for _, a := range av {
		l := a.Language
		state := a.Version
		if !a.Available {
			state = "UNAVAILABLE: " + a.Reason
		}
		aliases := strings.Join(l.Aliases, " ")
		if aliases == "" {
			aliases = "-"
		}
		fmt.Fprintf(stdout, "%-11s %-22s %-18s %-16s x%-4g %s\n", l.ID, l.Name, strings.Join(l.Extensions, " "), aliases, l.TimeMultiplier, state)
	}
}

// probeLangs asks the toolchains their versions, remembered for a day in
// DOCKET_CACHE_DIR/langs-versions.json (a JVM's version command alone
// takes seconds). A cache directory docket cannot trust is not used.
func probeLangs(cat *langs.Catalog, le langsEnv, refresh bool) []langs.Availability {
	if err := safedir.Ensure(le.CacheDir, 0o711); err != nil {
		fmt.Fprintf(stderr, "docket langs: versions not cached: cache directory (DOCKET_CACHE_DIR): %v\n", err)
		return cat.Probe(context.Background())
	}
	path := filepath.Join(le.CacheDir, "langs-versions.json")
	vc := langs.OpenVersionCache(path)
	if refresh {
		vc = langs.OpenVersionCache("")
		vc.SetPath(path)
	}
	av := cat.ProbeCached(context.Background(), vc)
	if err := vc.Save(); err != nil {
		fmt.Fprintln(stderr, "docket langs: version cache:", err)
	}
	return av
}
