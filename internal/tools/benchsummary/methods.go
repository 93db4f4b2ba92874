package main

import "strings"

// methods says how each benchmark measures its figures, by the
// benchmark's name without a sub-benchmark; the results file carries it,
// so that docs/performance.md describes the run it shows.
var methods = map[string]string{
	"BenchmarkOverhead": "One in-process sandbox run in a fresh box against one plain fork+exec of the same program " +
		"(`/bin/true`, and a statically linked a+b), alternated, 300 pairs, medians. " +
		"\"+ its teardown\" adds the box's release to the run.",
	"BenchmarkAfterPause": "One sandbox run of `/bin/true` after 250 ms of nothing, as a quiet worker's first test of a " +
		"submission starts, against plain fork+exec after the same pause, alternated, 20 of each, medians.",
	"BenchmarkRunCPU": "The whole machine's busy CPU time from `/proc/stat` around blocks of 100 back-to-back runs of " +
		"`/bin/true`: in the sandbox as configured (each slot keeps its network namespace), in the sandbox with a " +
		"network namespace made for each run, and by plain fork+exec, alternated, 3 blocks each, medians " +
		"(10 ms ticks: 0.1 ms resolution a run).",
	"BenchmarkExecCommand": "`docket exec -- /bin/true`, `docket-exec -- /bin/true`, `docket-exec-client` against a " +
		"`docket-exec --serve` the benchmark starts (when a C compiler builds it), `isolate --run -- /bin/true` and " +
		"`/bin/true`, each started as a process in turn, 60 rounds, medians; the state directory's probe cache is " +
		"warmed by one run first, as a deployment's is. Then isolate again, 60 runs back to back (\"warm\"): isolate " +
		"joins its cgroups by pid, which takes the kernel's global threadgroup lock, quick when taken again within a " +
		"few ms but waiting for an RCU grace period after a quiet spell, which each of isolate's runs in turn with the " +
		"others comes after.",
	"BenchmarkJudge100": "The 100-test a+b package (101 tests with the sample) judged with a C++ solution, its compile " +
		"cached and untimed, one test at a time and with as many tests at once as the machine has CPUs " +
		"(`DOCKET_PARALLEL_TESTS`); against a bash loop of `isolate --run` and `diff -b` per test, a loop of " +
		"`isolate --run` per test whose output is compared in-process, and, as the floor, plain fork+exec per test of " +
		"the same binary (compiled by the cpp language's command), each output compared. 5 rounds, median time per test of each, and the share of the " +
		"one-at-a-time judging's wall time outside sandbox runs (an upper bound).",
	"BenchmarkTimingNoise": "The CPU time of a fixed loop of about 1 s (calibrated once) in the sandbox, alternated with " +
		"its rusage by plain fork+exec, 20 of each: standard deviation and (max-min)/median; the benchmark's output " +
		"also gives each side's median, min and max.",
	"BenchmarkParallelFairness": "8 tests of the same 250 ms of CPU work, judged one at a time and two at a time, " +
		"alternated, 3 rounds: the median CPU time a test reports, and its spread.",
	"BenchmarkCommunication": "`problems/cms-halves` (a C++ manager and two copies of a C++ submission, each in a " +
		"sandbox slot of its own, joined by FIFOs; 5 tests) judged with its accepted submission, alternated with a " +
		"batch package of as many tests of a trivial C++ a+b, 10 rounds, compiles untimed; each test is timed from the " +
		"end of the compile or of the test before, as a contestant waits for it. The figure is the median " +
		"Communication test against three times the median batch test: a test of two processes runs three programs " +
		"and must cost less than three batch tests. The benchmark's output also gives the median first test of a " +
		"Communication judging, which takes the copies' further slots (the judge then keeps them). The CPU figure is " +
		"the judge's and its children's (`getrusage`, which other users of the machine leave alone).",
	"BenchmarkGraderCompile": "`problems/cms-plus` judged with its accepted C++ submission, compiled with " +
		"`sol/grader.cpp`, against two plain packages' compiles (the same function with a main of its own, and the " +
		"grader with the function stubbed in its file), alternated, 10 rounds, each a whole judging whose compile " +
		"time (`compile.time_ms`) is taken; the ratio is the median of each round's ratio of the first to the sum of " +
		"the other two.",
	"BenchmarkBurst": "A burst of trivial submissions (an inline a+b judged by a Python one-liner, so that the queue's " +
		"share shows; `make bench` publishes 10,000) judged by 2 in-process workers against an embedded JetStream " +
		"server, against the bare pipeline (the same submissions judged by the judge on 2 slots, no NATS). The whole " +
		"burst is published first; then 40 rounds each judge a slice with the bare pipeline and the next slice " +
		"through the queue (its workers started afresh, a round's queue time from their start to its last stored " +
		"result), so that the machine's load drift weighs on both sides. The benchmark's output also gives the " +
		"publish rate, the latency from publish to result and the rounds' lowest, median and highest ratios; it " +
		"fails if a result is lost or duplicated.",
}

// method is how bench measures its figures.
func method(bench string) string {
	base, _, _ := strings.Cut(bench, "/")
	return methods[base]
}
