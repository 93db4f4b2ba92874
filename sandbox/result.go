package sandbox

import "time"

// Status classifies how a run ended.
type Status string

// The statuses.
const (
	OK  Status = "OK"  // exited 0 within every limit
	TLE Status = "TLE" // CPU or wall time
	MLE Status = "MLE" // memory cgroup limit
	OLE Status = "OLE" // stdout/stderr cap, the file-size limit, or the writable space
	RE  Status = "RE"  // non-zero exit or a signal
	SE  Status = "SE"  // the sandbox failed; never the program's fault
)

// Sources say which measurement decided a status (verdict_source).
const (
	SourceNone     = ""
	SourceCPU      = "cpu_time"
	SourceWall     = "wall_time"
	SourceMemory   = "memory_cgroup"
	SourceOutput   = "output"    // stdout cap on a pipe
	SourceStderr   = "stderr"    // stderr cap
	SourceDisk     = "disk"      // the writable space (/box and /tmp) filled
	SourceFileSize = "file_size" // RLIMIT_FSIZE (SIGXFSZ)
	SourceExitCode = "exit_code"
	SourceSignal   = "signal"
	SourceSeccomp  = "seccomp" // killed by SIGSYS: a forbidden system call
	SourceSandbox  = "sandbox"
)

// Result is what a run did and what it cost.
type Result struct {
	Status   Status
	Source   string // verdict_source
	ExitCode int
	Signal   int
	CPUTime  time.Duration // user+system of the whole tree (cgroup)
	UserTime time.Duration
	SysTime  time.Duration
	WallTime time.Duration
	Memory   int64 // peak bytes of the target tree (cgroup), helper excluded
	// Stdout and Stderr hold the output when Cmd.Stdout / Cmd.Stderr were nil.
	Stdout []byte
	Stderr []byte
	// StderrDropped is how many bytes of stderr were read past the cap
	// and dropped (Limits.TruncateStderr).
	StderrDropped int64
	// Error explains an SE: which setup stage failed and how.
	Error string
	// Started and Ended are when the target was released and when it
	// ended (monotonic): which side of a pair ended first.
	Started, Ended time.Time
	// First: of a RunPair, this side ended before the other could see
	// its end (see RunPair).
	First bool
}
