// Package verdict judges a submission against a problem package: compile,
// run the tests, compare / check / interact, score, and produce the result
// of the wire protocol (docs/protocol.md). It knows nothing of NATS or
// HTTP: `docket run` and the queue worker both call Judge.
//
// It must not import the worker, the bridge, or NATS or HTTP packages; of
// docket's own it imports the sandbox, langs, protocol (the result's
// types), internal/safedir and verdict's subpackages.
package verdict

import "github.com/docketjudge/docket/protocol"

// The verdicts and the result of the wire protocol are package
// protocol's, one definition for the worker, the bridge and the judge;
// verdict fills them, under the names it has always used.
type (
	Verdict       = protocol.Verdict
	Result        = protocol.Result
	CompileResult = protocol.CompileResult
	TestResult    = protocol.TestResult
	StepResult    = protocol.StepResult
	GroupResult   = protocol.GroupResult
	LimitsUsed    = protocol.LimitsUsed
)

// Verdict codes (protocol's).
const (
	AC  = protocol.AC
	WA  = protocol.WA
	PE  = protocol.PE
	TLE = protocol.TLE
	MLE = protocol.MLE
	OLE = protocol.OLE
	RE  = protocol.RE
	CE  = protocol.CE
	SE  = protocol.SE
	SK  = protocol.SK
)

// Verdict sources beyond the sandbox's (cpu_time, wall_time, memory_cgroup,
// output, stderr, disk, file_size, exit_code, signal, seccomp, sandbox);
// SourceHeap (heap.go).
const (
	SourceStdout     = "stdout"     // the default comparison
	SourceChecker    = "checker"    // a special judge
	SourceInteractor = "interactor" // an interactive problem's validator
	SourceManager    = "manager"    // a Communication task's manager
	SourceCompiler   = "compiler"
	SourceJudge      = "judge" // docket itself
)

// SystemError is the result of a submission that could not be judged at
// all (its package or its files would not load): SE with msg as the
// error, in the shape of every result (empty tests and groups, not null).
func SystemError(msg string) *Result {
	return &Result{V: protocol.Version, Verdict: SE, Tests: []TestResult{}, Groups: []GroupResult{}, Error: msg}
}

// severity orders verdicts for "the worst error": the higher, the worse.
func severity(v Verdict) int {
	switch v {
	case AC:
		return 0
	case SK:
		return 1
	case PE:
		return 2
	case WA:
		return 3
	case OLE:
		return 4
	case RE:
		return 5
	case MLE:
		return 6
	case TLE:
		return 7
	case CE:
		return 8
	case SE:
		return 9
	}
	return 10
}
