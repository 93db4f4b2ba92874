package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// schemaVersion is the results file's format; a reader refuses others.
const schemaVersion = 1

// Figure statuses.
const (
	measured            = "measured"
	baselineNotMeasured = "baseline-not-measured" // docket's side only (no isolate here)
	notMeasured         = "not-measured"          // the benchmark did not run or report it
)

// Results is the machine-readable record of one `make bench` run.
type Results struct {
	Schema  int            `json:"schema"`
	Date    string         `json:"date"`    // end of the run, RFC 3339, UTC
	Commit  string         `json:"commit"`  // docket's commit
	Version string         `json:"version"` // git describe, "-dirty" when the tree was
	Host    Host           `json:"host"`
	Figures []FigureResult `json:"figures"`
}

// Host is the machine the run measured.
type Host struct {
	CPU         string `json:"cpu"`
	Cores       int    `json:"cores"`
	Kernel      string `json:"kernel"`
	Cgroup      string `json:"cgroup"`
	Go          string `json:"go"`
	LoadAverage string `json:"load_average"` // at the end of the run: the machine may be shared
}

// FigureResult is one figure of a run.
type FigureResult struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Measures  string    `json:"measures"`
	Benchmark string    `json:"benchmark"`
	Unit      string    `json:"unit"`
	Value     *float64  `json:"value"`
	Baseline  *Baseline `json:"baseline"` // nil for a figure without one
	Ratio     *float64  `json:"ratio"`
	Target    string    `json:"target"`
	Met       *bool     `json:"met"` // nil when there is no target or nothing measured
	Status    string    `json:"status"`
	Headline  bool      `json:"headline"`
}

// Baseline is what a figure is measured against in the same run.
type Baseline struct {
	Name  string   `json:"name"`
	Value *float64 `json:"value"`
}

// collect builds every figure's result from a run's benchmark output.
func collect(r results) []FigureResult {
	out := make([]FigureResult, 0, len(figures))
	for _, f := range figures {
		fr := FigureResult{ID: f.id, Name: f.name, Measures: method(f.bench), Benchmark: f.bench,
			Unit: f.unit, Target: f.target.text, Status: notMeasured, Headline: f.headline}
		if f.against != "" {
			fr.Baseline = &Baseline{Name: f.against}
		}
		if v, ok := r.metric(f.bench, f.docket); ok {
			fr.Value = &v
			fr.Status = measured
			fr.Ratio = r.optMetric(f.bench, f.ratio)
			if fr.Baseline != nil {
				fr.Baseline.Value = r.optMetric(f.bench, f.baseline)
				if fr.Baseline.Value == nil {
					fr.Status = baselineNotMeasured
				}
			}
			fr.Met = metTarget(f, fr)
		}
		out = append(out, fr)
	}
	return out
}

// metTarget applies f's target to the ratio, or to the value of a figure
// without a baseline.
func metTarget(f figure, fr FigureResult) *bool {
	v := fr.Ratio
	if fr.Baseline == nil {
		v = fr.Value
	}
	if v == nil {
		return nil
	}
	met, ok := f.target.met(*v)
	if !ok {
		return nil
	}
	return &met
}

func (r results) optMetric(bench, unit string) *float64 {
	if unit == "" {
		return nil
	}
	v, ok := r.metric(bench, unit)
	if !ok {
		return nil
	}
	return &v
}

// thisHost describes the machine benchsummary runs on, the one the
// benchmarks ran on.
func thisHost() Host {
	return Host{
		CPU:         cpuModel(),
		Cores:       runtime.NumCPU(),
		Kernel:      firstLine("/proc/sys/kernel/osrelease"),
		Cgroup:      cgroupVersion(),
		Go:          runtime.Version(),
		LoadAverage: loadAverage(),
	}
}

// loadAverage is the 1, 5 and 15 minute load averages.
func loadAverage() string {
	f := strings.Fields(firstLine("/proc/loadavg"))
	return strings.Join(f[:min(3, len(f))], " ")
}

func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// cgroup2Magic is the file system type of a cgroup v2 mount (statfs(2)).
const cgroup2Magic = 0x63677270

// cgroupVersion is the hierarchy the sandbox finds: v2 when
// /sys/fs/cgroup is cgroup2, "v1 (hybrid)" when v2 is mounted beside the
// v1 controllers, else v1.
func cgroupVersion() string {
	isV2 := func(p string) bool {
		var st syscall.Statfs_t
		return syscall.Statfs(p, &st) == nil && st.Type == cgroup2Magic
	}
	switch {
	case isV2("/sys/fs/cgroup"):
		return "v2"
	case isV2("/sys/fs/cgroup/unified"):
		return "v1 (hybrid, v2 mounted at /sys/fs/cgroup/unified)"
	}
	return "v1"
}

// runDate is when the run ended: the output file's last write.
func runDate(path string) string {
	t := time.Now()
	if st, err := os.Stat(path); err == nil {
		t = st.ModTime()
	}
	return t.UTC().Format(time.RFC3339)
}

func writeResults(path string, res Results) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// errBadResults marks a results file that is not one benchsummary wrote.
var errBadResults = errors.New("bad results file")

// readResults reads and checks a results file; errors name the file and
// the figure or key at fault.
func readResults(path string) (Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Results{}, err
	}
	var res Results
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return Results{}, fmt.Errorf("%s: %w: %w", path, errBadResults, err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return Results{}, fmt.Errorf("%s: %w: data after the JSON object", path, errBadResults)
	}
	if err := res.check(); err != nil {
		return Results{}, fmt.Errorf("%s: %w: %w", path, errBadResults, err)
	}
	return res, nil
}
