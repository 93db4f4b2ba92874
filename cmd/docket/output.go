package main

import (
	"io"
	"os"

	"github.com/docketjudge/docket/internal/termsafe"
)

// The CLI's output streams. Everything a person reads goes through
// stdout and stderr, which escape what a terminal would act on
// (termsafe.Text): compile logs, feedback, stderr excerpts and file
// names come from submissions and packages, and docket's own messages
// hold no control character but newline and tab. JSON goes through
// jsonOut (and the logs through a termsafe.JSONWriter), which escapes
// inside strings and keeps the document's meaning. Each looks up
// os.Stdout or os.Stderr when it writes.
var (
	stdout  = termsafe.Writer(osStream{&os.Stdout})
	stderr  = termsafe.Writer(osStream{&os.Stderr})
	jsonOut = termsafe.JSONWriter(osStream{&os.Stdout})
)

type osStream struct{ f **os.File }

func (s osStream) Write(b []byte) (int, error) { return (*s.f).Write(b) }

var _ io.Writer = osStream{}
