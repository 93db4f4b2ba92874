package worker

import (
	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
)

// unknownLanguage is the metrics label of a job whose language is not in
// the catalog: a label per raw string would let any job add a time
// series to every scrape.
const unknownLanguage = "unknown"

// catalog is the worker's language catalog: its judge's, else (a
// capacity-test worker judges nothing) the built-in one.
func (w *Worker) catalog() *langs.Catalog {
	if w.judge != nil && w.judge.Langs != nil {
		return w.judge.Langs
	}
	return langs.Builtin()
}

// languageID is the catalog id a job's language (id or alias) resolves
// to, "" when it resolves to none.
func (w *Worker) languageID(name string) string {
	l, err := w.catalog().Lookup(name)
	if err != nil {
		return ""
	}
	return l.ID
}

// languageLabel is the bounded metrics label of a job's language.
func (w *Worker) languageLabel(name string) string {
	if id := w.languageID(name); id != "" {
		return id
	}
	return unknownLanguage
}

// errorResult is the final result of a job that ends before its problem
// is loaded (docs/protocol.md, "Result"): the verdict and reason, and
// what is known without the package: the problem the job names, the
// language's catalog id, the attempt and this worker. max_score and
// limits come from a package, so they are 0 here.
func (w *Worker) errorResult(job *protocol.Job, v verdict.Verdict, msg string, attempt int) *verdict.Result {
	res := &verdict.Result{V: protocol.Version, SubmissionID: job.SubmissionID, Verdict: v, Error: msg,
		Tests: []verdict.TestResult{}, Groups: []verdict.GroupResult{},
		Worker: w.cfg.Name, Attempt: attempt, FeedbackPolicy: w.earlyFeedback(job)}
	if protocol.ValidID(job.Problem) {
		res.Problem = job.Problem
	}
	res.Language = w.languageID(job.Language)
	if v == verdict.CE {
		res.Compile.Log = msg
	}
	return res
}

// jobProblem is the problem a job names, as a result would name it: its
// id, or "inline" for an inline problem; "" for neither.
func jobProblem(job *protocol.Job) string {
	switch {
	case protocol.ValidID(job.Problem):
		return job.Problem
	case job.InlineProblem != nil:
		return "inline"
	}
	return ""
}
