package protocol

// Job is a submission, published on <prefix>.jobs.<queue>.<submission_id>.
type Job struct {
	V             int               `json:"v"`
	SubmissionID  string            `json:"submission_id"`
	Problem       string            `json:"problem,omitempty"`
	ProblemDigest string            `json:"problem_digest,omitempty"`
	InlineProblem *InlineProblem    `json:"inline_problem,omitempty"`
	Language      string            `json:"language"`
	Files         map[string]string `json:"files"`
	// EntryPoint names the main source file, or for Java and Kotlin the
	// main class (docs/languages.md, "Entry points"); "" for the rules.
	EntryPoint string     `json:"entry_point,omitempty"`
	Limits     *JobLimits `json:"limits,omitempty"`
	// FeedbackPolicy overrides the package's docket.feedback and the
	// worker's default: which tests' details a contestant's view shows.
	FeedbackPolicy FeedbackPolicy `json:"feedback_policy,omitempty"`
}

// JobLimits override the package's.
type JobLimits struct {
	TimeMs   int `json:"time_ms,omitempty"`
	MemoryMB int `json:"memory_mb,omitempty"`
	OutputMB int `json:"output_mb,omitempty"`
}

// InlineProblem is a small problem carried in the job: batch tests judged
// by the default comparison.
type InlineProblem struct {
	Tests          []InlineTest `json:"tests"`
	ValidatorFlags string       `json:"validator_flags,omitempty"`
	TimeMs         int          `json:"time_ms,omitempty"`
	MemoryMB       int          `json:"memory_mb,omitempty"`
}

// InlineTest is one test of an inline problem.
type InlineTest struct {
	Name   string `json:"name,omitempty"`
	Input  string `json:"input"`
	Answer string `json:"answer"`
	// Sample puts the test under data/sample: judged first, and its
	// details public under the "samples" feedback policy.
	Sample bool `json:"sample,omitempty"`
}
