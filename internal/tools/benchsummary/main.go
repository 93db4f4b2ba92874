// Command benchsummary reads the output of `go test -bench` (the file
// `make bench` tees it to) and prints issue 14's figures as one table:
// docket's figure, the baseline measured in the same run, their ratio and
// the target. A figure whose benchmark did not run says so; one whose
// baseline was skipped (no isolate here) says that. When a benchmark ran
// several times (-count), each metric is the median of its values.
//
// It must not import any of docket's packages: it reads benchmark output,
// nothing else.
//
//	go run ./internal/tools/benchsummary bin/bench.txt
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// figure is one row: the metrics (units as the benchmark reports them) of
// docket, of the baseline and of their ratio, in one benchmark.
type figure struct {
	name, bench             string
	docket, baseline, ratio string // "" when the row has none
	target                  string
}

var figures = []figure{
	{"sandbox run /bin/true, ms (baseline: fork+exec)", "BenchmarkOverhead/true", "sandbox-median-ms", "plain-median-ms", "ratio", "<= 1.5"},
	{"sandbox run static a+b, ms (baseline: fork+exec)", "BenchmarkOverhead/aplusb", "sandbox-median-ms", "plain-median-ms", "ratio", "<= 1.5"},
	{"sandbox run /bin/true + its teardown, ms (baseline: fork+exec)", "BenchmarkOverhead/true", "with-teardown-median-ms", "plain-median-ms", "with-teardown-ratio", "report"},
	{"sandbox run static a+b + its teardown, ms (baseline: fork+exec)", "BenchmarkOverhead/aplusb", "with-teardown-median-ms", "plain-median-ms", "with-teardown-ratio", "report"},
	{"sandbox run /bin/true after a 250 ms pause, ms (baseline: fork+exec after the same pause)", "BenchmarkAfterPause", "sandbox-median-ms", "plain-median-ms", "ratio", "report"},
	{"sandbox run /bin/true, CPU of the whole machine, ms (baseline: fork+exec)", "BenchmarkRunCPU", "sandbox-cpu-ms/run", "plain-cpu-ms/run", "sandbox/plain", "report"},
	{"the same, a network namespace per run as before (baseline: fork+exec)", "BenchmarkRunCPU", "netns-per-run-cpu-ms/run", "plain-cpu-ms/run", "netns-per-run/plain", "report"},
	{"docket exec -- /bin/true, ms (baseline: isolate --run)", "BenchmarkExecCommand", "docket-median-ms", "isolate-median-ms", "docket/isolate", "<= 1"},
	{"docket exec -- /bin/true, ms (baseline: isolate --run back to back, its cgroup lock warm)", "BenchmarkExecCommand", "docket-median-ms", "isolate-warm-median-ms", "docket/isolate-warm", "<= 1"},
	{"docket exec -- /bin/true, ms (floor: fork+exec)", "BenchmarkExecCommand", "docket-median-ms", "plain-median-ms", "docket/plain", "floor"},
	{"docket-exec -- /bin/true, ms (baseline: isolate --run)", "BenchmarkExecCommand", "docket-exec-median-ms", "isolate-median-ms", "docket-exec/isolate", "<= 1"},
	{"docket-exec -- /bin/true, ms (baseline: isolate --run back to back, its cgroup lock warm)", "BenchmarkExecCommand", "docket-exec-median-ms", "isolate-warm-median-ms", "docket-exec/isolate-warm", "<= 1"},
	{"docket-exec -- /bin/true, ms (floor: fork+exec)", "BenchmarkExecCommand", "docket-exec-median-ms", "plain-median-ms", "docket-exec/plain", "floor"},
	{"docket-exec-client -- /bin/true through docket-exec --serve, ms (baseline: isolate --run)", "BenchmarkExecCommand", "docket-exec-client-median-ms", "isolate-median-ms", "docket-exec-client/isolate", "<= 1"},
	{"docket-exec-client -- /bin/true through docket-exec --serve, ms (baseline: isolate --run back to back, its cgroup lock warm)", "BenchmarkExecCommand", "docket-exec-client-median-ms", "isolate-warm-median-ms", "docket-exec-client/isolate-warm", "<= 1"},
	{"docket-exec-client -- /bin/true through docket-exec --serve, ms (floor: fork+exec)", "BenchmarkExecCommand", "docket-exec-client-median-ms", "plain-median-ms", "docket-exec-client/plain", "floor"},
	{"submission, ms per test (baseline: bash loop of isolate --run + diff)", "BenchmarkJudge100", "docket-ms/test", "isolate-bash-ms/test", "docket/isolate-bash", "<= 0.33"},
	{"submission, ms per test (baseline: isolate --run loop, compared in-process)", "BenchmarkJudge100", "docket-ms/test", "isolate-ms/test", "docket/isolate", "<= 0.33"},
	{"submission, ms per test (floor: fork+exec loop)", "BenchmarkJudge100", "docket-ms/test", "plain-ms/test", "docket/plain", "floor"},
	{"submission, tests in parallel, ms per test (baseline: bash loop of isolate --run + diff)", "BenchmarkJudge100", "parallel-ms/test", "isolate-bash-ms/test", "parallel/isolate-bash", "<= 0.33"},
	{"submission, tests in parallel, ms per test (baseline: isolate --run loop, compared in-process)", "BenchmarkJudge100", "parallel-ms/test", "isolate-ms/test", "parallel/isolate", "<= 0.33"},
	{"submission, tests in parallel, ms per test (floor: fork+exec loop)", "BenchmarkJudge100", "parallel-ms/test", "plain-ms/test", "parallel/plain", "floor"},
	{"submission, % of wall time outside sandbox runs", "BenchmarkJudge100", "%outside-sandbox", "", "", "< 10"},
	{"CPU time spread (max-min)/median of 1 s (baseline: rusage outside)", "BenchmarkTimingNoise", "sandbox-spread", "plain-spread", "spread-ratio", "about 1"},
	{"CPU time stddev of 1 s, ms (baseline: rusage outside)", "BenchmarkTimingNoise", "sandbox-cpu-stddev-ms", "plain-cpu-stddev-ms", "", "report"},
	{"parallel tests: CPU time of 250 ms of work, ms (baseline: one test at a time)", "BenchmarkParallelFairness", "parallel-cpu-median-ms", "alone-cpu-median-ms", "parallel/alone", "about 1"},
	{"parallel tests: CPU time spread (max-min)/median (baseline: one at a time)", "BenchmarkParallelFairness", "parallel-spread", "alone-spread", "", "report"},
	{"Communication test, 2 processes, ms (baseline: 3 batch tests)", "BenchmarkCommunication", "comm-ms/test", "3batch-ms", "comm/3batch", "< 1"},
	{"Communication test, 2 processes, CPU of the judge and its children, ms (baseline: 3 batch tests)", "BenchmarkCommunication", "comm-cpu-ms/test", "3batch-cpu-ms", "cpu-comm/3batch", "report"},
	{"compile with a C++ grader, ms (baseline: plain compiles of the submission and of the grader)", "BenchmarkGraderCompile", "grader-compile-ms", "plain-compiles-ms", "grader/plain", "<= 1 (1.05 with noise)"},
	{"queue, judged/s (baseline: bare pipeline)", "BenchmarkBurst", "queue-judged/s", "bare-judged/s", "ratio", ">= 0.95"},
}

func main() {
	in := io.Reader(os.Stdin)
	if len(os.Args) > 1 {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchsummary:", err)
			os.Exit(2)
		}
		defer f.Close()
		in = f
	}
	results, err := parse(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchsummary:", err)
		os.Exit(2)
	}
	if len(results) == 0 {
		fmt.Fprintln(os.Stderr, "benchsummary: no benchmark results in the input")
		os.Exit(1)
	}
	write(os.Stdout, results)
}

// results maps a benchmark (its name without the -GOMAXPROCS suffix) to
// its metrics, each the values of its runs.
type results map[string]map[string][]float64

var procsSuffix = regexp.MustCompile(`-\d+$`)

// parse reads go test -bench's result lines: name, iterations, then pairs
// of value and unit.
func parse(r io.Reader) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // a benchmark's log line, not its result
		}
		name := procsSuffix.ReplaceAllString(f[0], "")
		if res[name] == nil {
			res[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q of %s: %w", name, f[i], f[i+1], err)
			}
			res[name][f[i+1]] = append(res[name][f[i+1]], v)
		}
	}
	return res, sc.Err()
}

// metric is the median of a benchmark's values of unit.
func (r results) metric(bench, unit string) (float64, bool) {
	v := append([]float64{}, r[bench][unit]...)
	if len(v) == 0 {
		return 0, false
	}
	sort.Float64s(v)
	return v[len(v)/2], true
}

// write prints the table; a row whose docket metric is missing is left
// out when its benchmark ran (docket-exec in a tree without it).
func write(w io.Writer, r results) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tdocket\tbaseline\tratio\ttarget")
	for _, f := range figures {
		if _, ran := r[f.bench]; !ran {
			fmt.Fprintf(tw, "%s\t(%s not run)\t\t\t%s\n", f.name, f.bench, f.target)
			continue
		}
		d, ok := r.metric(f.bench, f.docket)
		if !ok {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.name, format(d), r.cell(f.bench, f.baseline), r.cell(f.bench, f.ratio), f.target)
	}
	tw.Flush()
}

// cell is a metric's value, "-" for a row without it, "skipped" when the
// benchmark did not report it.
func (r results) cell(bench, unit string) string {
	if unit == "" {
		return "-"
	}
	v, ok := r.metric(bench, unit)
	if !ok {
		return "skipped"
	}
	return format(v)
}

func format(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
