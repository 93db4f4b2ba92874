package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkOverhead/true-2   	     300	   2000000 ns/op	  1.900 sandbox-median-ms	  3.0 sandbox-p95-ms	  0.9000 plain-median-ms	  2.111 ratio
--- BENCH: BenchmarkExecCommand-2
    bench_test.go:86: no cmd/docket-exec in this tree: docket-exec not measured
BenchmarkExecCommand-2   	      10	  25042996 ns/op	  17.46 docket-median-ms	  16.65 docket/plain	  1.048 plain-median-ms
BenchmarkJudge100-2   	3	2361707134 ns/op	16.00 %outside-sandbox	9.549 docket-ms/test
BenchmarkJudge100-2   	3	2361707134 ns/op	12.00 %outside-sandbox	9.000 docket-ms/test
BenchmarkJudge100-2   	3	2361707134 ns/op	14.00 %outside-sandbox	8.000 docket-ms/test
BenchmarkCommunication-2   	10	888450641 ns/op	7.561 3batch-cpu-ms	6.792 3batch-ms	8.744 comm-cpu-ms/test	9.561 comm-first-ms	6.614 comm-ms/test	0.9738 comm/3batch	1.156 cpu-comm/3batch
`

// The table has a row per figure, its cells the medians of the runs; a
// benchmark that did not run, or a baseline it skipped, says so; the rows
// of a binary that was not measured are left out.
func TestSummary(t *testing.T) {
	r, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	write(&b, r)
	rows := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		cells := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
		rows[cells[0]] = cells[1:]
	}
	for fig, want := range map[string][]string{
		"figure": {"docket", "baseline", "ratio", "target"},
		"sandbox run /bin/true, ms (baseline: fork+exec)":                                              {"1.9", "0.9", "2.111", "<= 1.5"},
		"sandbox run static a+b, ms (baseline: fork+exec)":                                             {"(BenchmarkOverhead/aplusb not run)", "<= 1.5"},
		"docket exec -- /bin/true, ms (baseline: isolate --run)":                                       {"17.46", "skipped", "skipped", "<= 1"},
		"docket exec -- /bin/true, ms (floor: fork+exec)":                                              {"17.46", "1.048", "16.65", "floor"},
		"submission, time per test, ms (floor: fork+exec loop)":                                        {"9", "skipped", "skipped", "floor"},
		"submission, wall time outside sandbox runs, %":                                                {"14", "-", "-", "< 10"},
		"queue, judged/s (baseline: bare pipeline)":                                                    {"(BenchmarkBurst not run)", ">= 0.95"},
		"Communication test, 2 processes, ms (baseline: 3 batch tests)":                                {"6.614", "6.792", "0.9738", "< 1"},
		"compile with a C++ grader, ms (baseline: plain compiles of the submission and of the grader)": {"(BenchmarkGraderCompile not run)", "<= 1 (1.05 with noise)"},
	} {
		if !slices.Equal(rows[fig], want) {
			t.Errorf("row %q: %q, want %q\n%s", fig, rows[fig], want, b.String())
		}
	}
	if _, ok := rows["docket-exec -- /bin/true, ms (floor: fork+exec)"]; ok {
		t.Errorf("docket-exec's rows are left out when it was not measured:\n%s", b.String())
	}
	if _, ok := rows["sandbox run /bin/true + its teardown, ms (baseline: fork+exec)"]; ok {
		t.Errorf("a figure whose metric the benchmark did not report is left out:\n%s", b.String())
	}
	if len(rows) != 22 {
		t.Errorf("%d rows, want the header and 21 figures:\n%s", len(rows), b.String())
	}
}
