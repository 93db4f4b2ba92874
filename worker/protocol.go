package worker

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
)

// PoisonError marks a job that can never succeed. It gets a final result with
// Verdict and the message, and is terminated, never redelivered.
type PoisonError struct {
	Verdict verdict.Verdict
	Msg     string
	Err     error // the cause, when there is one to match (langs.ErrFileName)
}

// Error is the message the final result carries.
func (e *PoisonError) Error() string { return e.Msg }

// Unwrap returns the cause, when there is one.
func (e *PoisonError) Unwrap() error { return e.Err }

func poison(v verdict.Verdict, f string, a ...any) error {
	return &PoisonError{Verdict: v, Msg: fmt.Sprintf(f, a...)}
}

// DecodeJob parses and validates a job. The submission id is returned
// even for an invalid job when it could be read, so that the final error
// result reaches the right subject.
func DecodeJob(data []byte, maxSource int) (*protocol.Job, error) {
	var j protocol.Job
	if err := json.Unmarshal(data, &j); err != nil {
		// Salvage the id for the error result if it is there.
		var probe struct {
			ID string `json:"submission_id"`
		}
		json.Unmarshal(data, &probe)
		j.SubmissionID = probe.ID
		return &j, poison(verdict.SE, "malformed job: %v", err)
	}
	if !protocol.ValidID(j.SubmissionID) {
		return &j, poison(verdict.SE, "invalid submission_id %q: 1-128 characters of [A-Za-z0-9_-]", truncate(j.SubmissionID, 140))
	}
	if j.V != protocol.Version {
		return &j, poison(verdict.SE, "unsupported protocol version v=%d (this worker speaks v=%d)", j.V, protocol.Version)
	}
	if j.Language == "" && !verdict.OutputFilesAlone(sortedNames(j.Files)) {
		return &j, poison(verdict.SE, "job has no language (only a submission of output files alone, each named output_<codename>.txt, may have none)")
	}
	if (j.Problem == "") == (j.InlineProblem == nil) {
		return &j, poison(verdict.SE, "job needs exactly one of problem and inline_problem")
	}
	if j.Problem != "" && !protocol.ValidID(j.Problem) {
		return &j, poison(verdict.SE, "invalid problem id %q", truncate(j.Problem, 140))
	}
	if len(j.Files) == 0 {
		return &j, poison(verdict.CE, "the submission has no files")
	}
	total := 0
	for _, name := range sortedNames(j.Files) {
		body := j.Files[name]
		if err := verdict.ValidFileName(name); err != nil {
			// The names are the contestant's choice, carried as they
			// chose them: a refused one is CE, as the judge itself says
			// (a job that cannot be decoded at all is SE).
			return &j, &PoisonError{Verdict: verdict.CE, Msg: err.Error(), Err: err}
		}
		total += len(body)
	}
	if maxSource > 0 && total > maxSource {
		return &j, poison(verdict.CE, "the submission's files hold %d bytes, over the limit of %d", total, maxSource)
	}
	if j.EntryPoint != "" {
		if err := langs.ValidEntryPoint(j.EntryPoint); err != nil {
			// The contestant's (or backend's) choice, like the names: CE.
			return &j, &PoisonError{Verdict: verdict.CE, Msg: err.Error(), Err: err}
		}
	}
	if ip := j.InlineProblem; ip != nil {
		if len(ip.Tests) == 0 {
			return &j, poison(verdict.SE, "inline_problem has no tests")
		}
		if len(ip.Tests) > 1000 {
			return &j, poison(verdict.SE, "inline_problem has %d tests, over 1000", len(ip.Tests))
		}
	}
	if l := j.Limits; l != nil && (l.TimeMs < 0 || l.MemoryMB < 0 || l.OutputMB < 0 || l.TimeMs > 600000) {
		return &j, poison(verdict.SE, "job limits out of range")
	}
	if _, err := problem.ParseFeedbackPolicy(string(j.FeedbackPolicy)); err != nil {
		return &j, poison(verdict.SE, "job feedback_policy: %v", err)
	}
	return &j, nil
}

// checkJobSubject refuses a job whose subject names another submission
// than its submission_id (<prefix>.jobs.<queue>.<id>): the bridge finds a
// waiting job by the subject's id, so the two must agree. The first form,
// with no id in the subject, names none and is not checked.
func checkJobSubject(subj protocol.Subjects, subject string, job *protocol.Job) error {
	_, id, _ := subj.ParseJob(subject)
	if id != "" && id != job.SubmissionID {
		return poison(verdict.SE, "the job's subject %s names submission %q, its submission_id is %q: they must be the same",
			truncate(subject, 160), truncate(id, 140), job.SubmissionID)
	}
	return nil
}

// EffectiveFeedback is a submission's feedback policy: the job's, else the
// package's docket.feedback, else the worker's default, else samples. The
// job decides last because the backend knows what neither the package nor
// the worker does: whether this is a contest, a practice session or the
// analysis after one.
func EffectiveFeedback(job, pkg, worker problem.FeedbackPolicy) problem.FeedbackPolicy {
	for _, p := range []problem.FeedbackPolicy{job, pkg, worker} {
		if p != "" {
			return p
		}
	}
	return problem.DefaultFeedback
}

// sortedNames lists a job's file names in order, so that a job with two
// refused names is refused for the same one on every worker.
func sortedNames(files map[string]string) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
