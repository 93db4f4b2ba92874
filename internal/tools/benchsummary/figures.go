package main

// figure is one figure of `make bench`: docket's metric, the baseline's
// and their ratio (units as the benchmark reports them), in one benchmark.
type figure struct {
	id       string // stable, for the results file and links
	name     string // what docket does, without the unit
	unit     string
	bench    string // the benchmark's name, without -GOMAXPROCS
	docket   string // metric of docket's side
	baseline string // metric of the baseline, "" for none
	ratio    string // metric of docket/baseline, "" for none
	against  string // what the baseline is
	target   target
	headline bool // shown in the README
}

// target is what a figure should reach: op applied to the ratio, or to
// the value itself when the figure has no baseline.
type target struct {
	text  string  // as the docs show it
	op    string  // "<=", "<", ">=", "about", or "" for none
	limit float64 // for "about", met within 10% of it
}

var (
	report = target{text: "report"} // shown for its own sake, no target
	floor  = target{text: "floor"}  // a lower bound nothing can beat
)

func le(v float64, text string) target { return target{text: text, op: "<=", limit: v} }
func lt(v float64, text string) target { return target{text: text, op: "<", limit: v} }
func ge(v float64, text string) target { return target{text: text, op: ">=", limit: v} }
func about(v float64, text string) target {
	return target{text: text, op: "about", limit: v}
}

// aboutBand is how far from its value an "about" target may be.
const aboutBand = 0.10

// met says whether v reaches the target; ok is false for no target.
func (t target) met(v float64) (met, ok bool) {
	switch t.op {
	case "<=":
		return v <= t.limit, true
	case "<":
		return v < t.limit, true
	case ">=":
		return v >= t.limit, true
	case "about":
		return v >= t.limit*(1-aboutBand) && v <= t.limit*(1+aboutBand), true
	}
	return false, false
}

const (
	forkExec     = "fork+exec"
	isolateRun   = "isolate --run"
	isolateWarm  = "isolate --run back to back, its cgroup lock warm"
	isolateBash  = "bash loop of isolate --run + diff"
	isolateLoop  = "isolate --run loop, compared in-process"
	forkExecLoop = "fork+exec loop"
)

var figures = []figure{
	{"run-true", "sandbox run /bin/true", "ms", "BenchmarkOverhead/true", "sandbox-median-ms", "plain-median-ms", "ratio", forkExec, le(1.5, "<= 1.5"), true},
	{"run-aplusb", "sandbox run static a+b", "ms", "BenchmarkOverhead/aplusb", "sandbox-median-ms", "plain-median-ms", "ratio", forkExec, le(1.5, "<= 1.5"), false},
	{"run-true-teardown", "sandbox run /bin/true + its teardown", "ms", "BenchmarkOverhead/true", "with-teardown-median-ms", "plain-median-ms", "with-teardown-ratio", forkExec, report, false},
	{"run-aplusb-teardown", "sandbox run static a+b + its teardown", "ms", "BenchmarkOverhead/aplusb", "with-teardown-median-ms", "plain-median-ms", "with-teardown-ratio", forkExec, report, false},
	{"run-after-pause", "sandbox run /bin/true after a 250 ms pause", "ms", "BenchmarkAfterPause", "sandbox-median-ms", "plain-median-ms", "ratio", "fork+exec after the same pause", report, false},
	{"run-cpu", "sandbox run /bin/true, CPU of the whole machine", "ms", "BenchmarkRunCPU", "sandbox-cpu-ms/run", "plain-cpu-ms/run", "sandbox/plain", forkExec, report, false},
	{"run-cpu-netns", "sandbox run /bin/true with a network namespace made per run, CPU of the whole machine", "ms", "BenchmarkRunCPU", "netns-per-run-cpu-ms/run", "plain-cpu-ms/run", "netns-per-run/plain", forkExec, report, false},
	{"exec", "docket exec -- /bin/true", "ms", "BenchmarkExecCommand", "docket-median-ms", "isolate-median-ms", "docket/isolate", isolateRun, le(1, "<= 1"), true},
	{"exec-warm", "docket exec -- /bin/true", "ms", "BenchmarkExecCommand", "docket-median-ms", "isolate-warm-median-ms", "docket/isolate-warm", isolateWarm, le(1, "<= 1"), false},
	{"exec-floor", "docket exec -- /bin/true", "ms", "BenchmarkExecCommand", "docket-median-ms", "plain-median-ms", "docket/plain", forkExec, floor, false},
	{"docket-exec", "docket-exec -- /bin/true", "ms", "BenchmarkExecCommand", "docket-exec-median-ms", "isolate-median-ms", "docket-exec/isolate", isolateRun, le(1, "<= 1"), false},
	{"docket-exec-warm", "docket-exec -- /bin/true", "ms", "BenchmarkExecCommand", "docket-exec-median-ms", "isolate-warm-median-ms", "docket-exec/isolate-warm", isolateWarm, le(1, "<= 1"), false},
	{"docket-exec-floor", "docket-exec -- /bin/true", "ms", "BenchmarkExecCommand", "docket-exec-median-ms", "plain-median-ms", "docket-exec/plain", forkExec, floor, false},
	{"exec-client", "docket-exec-client -- /bin/true through docket-exec --serve", "ms", "BenchmarkExecCommand", "docket-exec-client-median-ms", "isolate-median-ms", "docket-exec-client/isolate", isolateRun, le(1, "<= 1"), true},
	{"exec-client-warm", "docket-exec-client -- /bin/true through docket-exec --serve", "ms", "BenchmarkExecCommand", "docket-exec-client-median-ms", "isolate-warm-median-ms", "docket-exec-client/isolate-warm", isolateWarm, le(1, "<= 1"), false},
	{"exec-client-floor", "docket-exec-client -- /bin/true through docket-exec --serve", "ms", "BenchmarkExecCommand", "docket-exec-client-median-ms", "plain-median-ms", "docket-exec-client/plain", forkExec, floor, false},
	{"judge", "submission, time per test", "ms", "BenchmarkJudge100", "docket-ms/test", "isolate-bash-ms/test", "docket/isolate-bash", isolateBash, le(0.33, "<= 0.33"), true},
	{"judge-isolate-loop", "submission, time per test", "ms", "BenchmarkJudge100", "docket-ms/test", "isolate-ms/test", "docket/isolate", isolateLoop, le(0.33, "<= 0.33"), false},
	{"judge-floor", "submission, time per test", "ms", "BenchmarkJudge100", "docket-ms/test", "plain-ms/test", "docket/plain", forkExecLoop, floor, false},
	{"judge-parallel", "submission, tests in parallel, time per test", "ms", "BenchmarkJudge100", "parallel-ms/test", "isolate-bash-ms/test", "parallel/isolate-bash", isolateBash, le(0.33, "<= 0.33"), false},
	{"judge-parallel-isolate-loop", "submission, tests in parallel, time per test", "ms", "BenchmarkJudge100", "parallel-ms/test", "isolate-ms/test", "parallel/isolate", isolateLoop, le(0.33, "<= 0.33"), false},
	{"judge-parallel-floor", "submission, tests in parallel, time per test", "ms", "BenchmarkJudge100", "parallel-ms/test", "plain-ms/test", "parallel/plain", forkExecLoop, floor, false},
	{"judge-outside", "submission, wall time outside sandbox runs", "%", "BenchmarkJudge100", "%outside-sandbox", "", "", "", lt(10, "< 10"), false},
	{"noise-spread", "CPU time spread (max-min)/median of 1 s", "", "BenchmarkTimingNoise", "sandbox-spread", "plain-spread", "spread-ratio", "rusage outside", about(1, "about 1"), false},
	{"noise-stddev", "CPU time stddev of 1 s", "ms", "BenchmarkTimingNoise", "sandbox-cpu-stddev-ms", "plain-cpu-stddev-ms", "", "rusage outside", report, false},
	{"fair-cpu", "parallel tests: CPU time of 250 ms of work", "ms", "BenchmarkParallelFairness", "parallel-cpu-median-ms", "alone-cpu-median-ms", "parallel/alone", "one test at a time", about(1, "about 1"), false},
	{"fair-spread", "parallel tests: CPU time spread (max-min)/median", "", "BenchmarkParallelFairness", "parallel-spread", "alone-spread", "", "one at a time", report, false},
	{"communication", "Communication test, 2 processes", "ms", "BenchmarkCommunication", "comm-ms/test", "3batch-ms", "comm/3batch", "3 batch tests", lt(1, "< 1"), true},
	{"communication-cpu", "Communication test, 2 processes, CPU of the judge and its children", "ms", "BenchmarkCommunication", "comm-cpu-ms/test", "3batch-cpu-ms", "cpu-comm/3batch", "3 batch tests", report, false},
	{"grader-compile", "compile with a C++ grader", "ms", "BenchmarkGraderCompile", "grader-compile-ms", "plain-compiles-ms", "grader/plain", "plain compiles of the submission and of the grader", le(1.05, "<= 1 (1.05 with noise)"), false},
	{"queue", "queue", "judged/s", "BenchmarkBurst", "queue-judged/s", "bare-judged/s", "ratio", "bare pipeline", ge(0.95, ">= 0.95"), true},
}
