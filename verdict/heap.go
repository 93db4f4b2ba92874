package verdict

import (
	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/sandbox"
)

// SourceHeap is the verdict source of a run that exhausted the
// runtime's own heap limit (the JVM's -Xmx): MLE, though the cgroup's
// limit was not reached.
const SourceHeap = "memory_heap"

// heapExhausted turns a run that exited with the language's
// oom_exit_code into MLE. Only the exit code decides, never the
// program's output; a program that exits so on purpose only turns its
// RE into MLE.
func heapExhausted(lang *langs.Language, res *sandbox.Result) *sandbox.Result {
	if res == nil || lang.OOMExitCode == 0 || res.Status != sandbox.RE ||
		res.Source != sandbox.SourceExitCode || res.ExitCode != lang.OOMExitCode {
		return res
	}
	cp := *res
	cp.Status, cp.Source = sandbox.MLE, SourceHeap
	return &cp
}
