package worker

import (
	"sync"

	"github.com/docketjudge/docket/verdict/problem"
	"github.com/rs/zerolog"
)

// warnedPackages logs a package's warnings (problem.Warning: its trusted
// programs, statements linked out of it) once per package digest a
// worker judges with, so that the operator's log says what runs trusted
// even when whoever pushed the package silenced the CLI's warning.
type warnedPackages struct {
	seen sync.Map // problem digest -> struct{}
}

func (w *warnedPackages) log(log zerolog.Logger, p *problem.Problem) {
	if len(p.Warnings) == 0 {
		return
	}
	if _, dup := w.seen.LoadOrStore(p.Digest, struct{}{}); dup {
		return
	}
	for _, pw := range p.Warnings {
		log.Warn().Str("problem", p.ID).Str("problem_digest", p.Digest).Str("code", pw.Code).
			Strs("paths", pw.Paths).Msg(pw.Message)
	}
}
