package protocol

// Verdict codes of the wire protocol.
type Verdict string

// The verdicts, as the wire protocol spells them (docs/protocol.md).
const (
	AC  Verdict = "AC"  // accepted
	WA  Verdict = "WA"  // wrong answer
	PE  Verdict = "PE"  // presentation error (a checker said so)
	TLE Verdict = "TLE" // time limit exceeded (CPU or wall time)
	MLE Verdict = "MLE" // memory limit exceeded
	OLE Verdict = "OLE" // output limit exceeded
	RE  Verdict = "RE"  // run-time error: a non-zero exit or a signal
	CE  Verdict = "CE"  // compile error
	SE  Verdict = "SE"  // system / judge error: never the contestant's fault
	SK  Verdict = "SK"  // skipped after an earlier failure
)

// Result is the final result of one submission.
type Result struct {
	V            int           `json:"v"`
	SubmissionID string        `json:"submission_id,omitempty"`
	Problem      string        `json:"problem,omitempty"`
	Digest       string        `json:"problem_digest,omitempty"`
	Language     string        `json:"language,omitempty"`
	Verdict      Verdict       `json:"verdict"`
	Score        float64       `json:"score"`
	MaxScore     float64       `json:"max_score"`
	TimeMs       int64         `json:"time_ms"`
	MemoryKB     int64         `json:"memory_kb"`
	Compile      CompileResult `json:"compile"`
	Tests        []TestResult  `json:"tests"`
	Groups       []GroupResult `json:"groups"`
	Limits       LimitsUsed    `json:"limits"`
	Worker       string        `json:"worker,omitempty"`
	Attempt      int           `json:"attempt,omitempty"`
	Error        string        `json:"error"`
	// ErrorTest names the test whose failure Error quotes (a checker
	// that failed, say): the message is that test's feedback, and a
	// contestant's view hides it with the test's.
	ErrorTest string `json:"error_test,omitempty"`
	// FeedbackPolicy is the submission's effective policy (the worker
	// sets it: job, else package, else its default), so that the bridge
	// can filter a contestant's view without loading the problem.
	FeedbackPolicy FeedbackPolicy `json:"feedback_policy,omitempty"`
}

// CompileResult is the compile step.
type CompileResult struct {
	OK     bool   `json:"ok"`
	Log    string `json:"log"`
	TimeMs int64  `json:"time_ms,omitempty"`
}

// TestResult is one test.
type TestResult struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	// Sample: the test's details are public under the "samples" feedback
	// policy: it is under data/sample, or a CMS or TPS task's public test
	// (judged and scored as the other tests of its group). Always
	// written: a reader that finds no sample field must take the test for
	// a secret one.
	Sample        bool    `json:"sample"`
	Verdict       Verdict `json:"verdict"`
	TimeMs        int64   `json:"time_ms"`
	WallMs        int64   `json:"wall_ms"`
	MemoryKB      int64   `json:"memory_kb"`
	ExitCode      int     `json:"exit_code"`
	Signal        int     `json:"signal"`
	VerdictSource string  `json:"verdict_source"`
	Feedback      string  `json:"feedback"`
	Score         float64 `json:"score"`
	// StderrExcerpt: the first bytes of the program's stderr, in a test
	// whose run failed (RE, TLE, MLE, OLE); a test detail, hidden from a
	// contestant with the feedback.
	StderrExcerpt string       `json:"stderr_excerpt,omitempty"`
	Steps         []StepResult `json:"steps,omitempty"` // two-step problems: each run
	// Passes: a multi-pass problem's runs of the submission, in order.
	Passes []StepResult `json:"passes,omitempty"`
}

// StepResult is one run of a two-step test, or one pass of a multi-pass
// one.
type StepResult struct {
	TimeMs   int64   `json:"time_ms"`
	WallMs   int64   `json:"wall_ms"`
	MemoryKB int64   `json:"memory_kb"`
	Verdict  Verdict `json:"verdict"`
}

// GroupResult is a test group's score.
type GroupResult struct {
	Name     string  `json:"name"`
	Verdict  Verdict `json:"verdict"`
	Score    float64 `json:"score"`
	MaxScore float64 `json:"max_score"`
}

// LimitsUsed reports the limits the submission ran under and where they
// came from.
type LimitsUsed struct {
	TimeMs         int64   `json:"time_ms"`         // per test, after the language multiplier
	BaseTimeMs     int64   `json:"base_time_ms"`    // before it
	TimeSource     string  `json:"time_source"`     // job, problem.yaml, .timelimit, default
	TimeMultiplier float64 `json:"time_multiplier"` // the language's
	MemoryMB       int     `json:"memory_mb"`
	// MemoryReserveMB: what a run of the language gets beyond MemoryMB
	// for its runtime (the JVM's), the limit applying to its heap.
	MemoryReserveMB int `json:"memory_reserve_mb,omitempty"`
	OutputMB        int `json:"output_mb"`
	DiskMB          int `json:"disk_mb"` // a test run's /box and /tmp together

	// WallMs is a test run's wall-clock limit: TimeMs plus the overshoot
	// WallOvershoot ("1s|10%": the larger of 1 s and 10% of TimeMs).
	WallMs        int64  `json:"wall_ms"`
	WallOvershoot string `json:"wall_overshoot"`
}
