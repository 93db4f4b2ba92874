package main

import (
	"fmt"
	"runtime/debug"
)

// version is set by the Makefile's build (-ldflags "-X main.version=...",
// from git describe); a plain go build leaves "dev".
var version = "dev"

// commit is the Makefile's git rev-parse HEAD, used when the build
// information has no vcs.revision.
var commit = ""

func init() {
	register("version", "the build's version and commit", runVersion)
}

func runVersion(args []string) int {
	fs := newFlags("version", helpText{
		about:   "Prints the version (set at build time by make build) and the commit it was built from\n(vcs.revision; \"+dirty\" when the tree had uncommitted changes). Also: docket --version.",
		example: "docket version",
	})
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	fmt.Fprintln(stdout, versionLine())
	return exitOK
}

// versionLine is "docket VERSION (commit REV[+dirty], GOVERSION)", from
// the build information the go command embeds.
func versionLine() string {
	rev, dirty, gover := commit, false, ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		gover = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if rev == "" {
		rev = "unknown"
	}
	if dirty {
		rev += "+dirty"
	}
	return fmt.Sprintf("docket %s (commit %s, %s)", version, rev, gover)
}
