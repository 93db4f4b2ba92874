package protocol

import "strings"

// Subjects are the subjects of one prefix ("docket").
type Subjects struct{ Prefix string }

// Job is the subject a backend publishes a submission on:
// <prefix>.jobs.<queue>.<id>. The id in the subject lets a reader find a
// waiting job by its id alone (the bridge's "queued" state), and a worker
// refuses a job whose submission_id is not the one its subject names.
func (s Subjects) Job(queue, id string) string { return s.Prefix + ".jobs." + queue + "." + id }

// QueueJobs is the subject of protocol v1's first form,
// <prefix>.jobs.<queue> with no id, still taken by every worker so that
// a backend written before the id was added keeps working (its waiting
// jobs are just not found by id).
func (s Subjects) QueueJobs(queue string) string { return s.Prefix + ".jobs." + queue }

// JobsFilter is the filter of a queue's consumer: both forms.
func (s Subjects) JobsFilter(queue string) []string {
	return []string{s.QueueJobs(queue), s.QueueJobs(queue) + ".*"}
}

// AllJobs is the jobs stream's subject: every queue, both forms.
func (s Subjects) AllJobs() string { return s.Prefix + ".jobs.>" }

// JobsByID matches a submission's job on any queue.
func (s Subjects) JobsByID(id string) string { return s.Prefix + ".jobs.*." + id }

// Events is the subject of a submission's progress events.
func (s Subjects) Events(id string) string { return s.Prefix + ".events." + id }

// Results is the subject of a submission's final result.
func (s Subjects) Results(id string) string { return s.Prefix + ".results." + id }

// DeadLetter is the subject of the answers to jobs that name no valid id.
func (s Subjects) DeadLetter() string { return s.Prefix + ".deadletter" }

// ParseJob splits a job subject into its queue and its id ("" for the
// first form). ok is false for a subject that is neither form: a queue
// or an id outside the rules, or more tokens (docket.jobs.a.b.c).
func (s Subjects) ParseJob(subject string) (queue, id string, ok bool) {
	rest, found := strings.CutPrefix(subject, s.Prefix+".jobs.")
	if !found {
		return "", "", false
	}
	queue, id, _ = strings.Cut(rest, ".")
	if !ValidQueue(queue) || (id != "" && !ValidID(id)) {
		return queue, id, false
	}
	return queue, id, true
}

// ValidID reports whether s is a valid submission (or problem) id: 1-128
// characters of [A-Za-z0-9_-], so one subject token.
func ValidID(s string) bool { return ValidToken(s, 128, "") }

// ValidQueue reports whether s is a valid queue name: 1-64 characters of
// [A-Za-z0-9_-], one subject token.
func ValidQueue(s string) bool { return ValidToken(s, 64, "") }

// ValidPrefix reports whether s is a valid subject prefix: tokens of
// [A-Za-z0-9_-] joined by dots (no wildcard, no space, no empty token).
func ValidPrefix(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, t := range strings.Split(s, ".") {
		if !ValidToken(t, 64, "") {
			return false
		}
	}
	return true
}

// ValidToken reports whether s is 1 to max bytes, each of [A-Za-z0-9_-]
// or of extra. A loop rather than a regular expression: one of a counted
// repetition ({1,128}) compiled at start-up cost every docket command
// half a millisecond.
func ValidToken(s string, max int, extra string) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' ||
			strings.IndexByte(extra, c) >= 0
		if !ok {
			return false
		}
	}
	return true
}
