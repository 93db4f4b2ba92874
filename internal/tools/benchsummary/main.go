// Command benchsummary turns `make bench`'s results into figures and docs.
//
// Reading the output of `go test -bench` (the file `make bench` tees it
// to), it prints one table of docket's figures: docket's figure, the
// baseline measured in the same run, their ratio and the target. A figure
// whose benchmark did not run says so; one whose baseline was skipped (no
// isolate here) says that. When a benchmark ran several times (-count),
// each metric is the median of its values. With -json it also writes the
// run's machine-readable results (figures, host, date, commit):
//
//	go run ./internal/tools/benchsummary -json bin/bench.json -commit SHA bin/bench.txt
//
// With -docs it generates docs/performance.md and the README's figures
// block (between its figures markers) from a results file:
//
//	go run ./internal/tools/benchsummary -docs docs/bench/results.json
//
// It must not import any of docket's packages: it reads benchmark output
// and its own results files, nothing else.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	jsonOut := flag.String("json", "", "also write the run's results to this file")
	commit := flag.String("commit", "", "docket's commit the run measured (for -json)")
	version := flag.String("version", "", "docket's git describe the run measured (for -json)")
	docs := flag.String("docs", "", "generate the docs from this results file instead")
	root := flag.String("root", ".", "the repository root, for -docs")
	flag.Parse()
	var err error
	if *docs != "" {
		err = writeDocs(*root, *docs)
	} else {
		err = summarize(flag.Arg(0), *jsonOut, *commit, *version)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchsummary:", err)
		os.Exit(1)
	}
}

// summarize prints the table of the benchmark output in path (stdin when
// empty) and writes the results file jsonOut when set.
func summarize(path, jsonOut, commit, version string) error {
	in := io.Reader(os.Stdin)
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	r, err := parse(in)
	if err != nil {
		return err
	}
	if len(r) == 0 {
		return fmt.Errorf("no benchmark results in the input")
	}
	write(os.Stdout, r)
	if jsonOut == "" {
		return nil
	}
	if commit == "" {
		return fmt.Errorf("-json needs -commit: the results name the commit they measured")
	}
	res := Results{Schema: schemaVersion, Date: runDate(path), Commit: commit, Version: version,
		Host: thisHost(), Figures: collect(r)}
	return writeResults(jsonOut, res)
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
	for i, fr := range collect(r) {
		f := figures[i]
		if _, ran := r[f.bench]; !ran {
			fmt.Fprintf(tw, "%s\t(%s not run)\t\t\t%s\n", f.label(), f.bench, f.target.text)
			continue
		}
		if fr.Value == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.label(), format(*fr.Value),
			cell(f.baseline, fr.baselineValue()), cell(f.ratio, fr.Ratio), f.target.text)
	}
	tw.Flush()
}

// label is the figure's row name in the table: its unit and baseline.
func (f figure) label() string {
	s := f.name
	if f.unit != "" {
		s += ", " + f.unit
	}
	switch {
	case f.against == "":
		return s
	case f.target == floor:
		return s + " (floor: " + f.against + ")"
	}
	return s + " (baseline: " + f.against + ")"
}

// cell is a metric's value, "-" for a row without the metric, "skipped"
// when the benchmark did not report it.
func cell(unit string, v *float64) string {
	switch {
	case unit == "":
		return "-"
	case v == nil:
		return "skipped"
	}
	return format(*v)
}

func format(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
