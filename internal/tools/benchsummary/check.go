package main

import (
	"fmt"
	"math"
	"regexp"
	"time"
)

var (
	commitRE = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
	benchRE  = regexp.MustCompile(`^Benchmark[A-Za-z0-9_]*(/[A-Za-z0-9_.+-]+)*$`)
)

// check refuses a results file a generator could not render faithfully:
// a hand-edited or truncated one fails here, naming what is wrong.
func (res Results) check() error {
	if res.Schema != schemaVersion {
		return fmt.Errorf("schema %d, want %d", res.Schema, schemaVersion)
	}
	if _, err := time.Parse(time.RFC3339, res.Date); err != nil {
		return fmt.Errorf("date: %w", err)
	}
	if !commitRE.MatchString(res.Commit) {
		return fmt.Errorf("commit %q is not a git commit id", res.Commit)
	}
	if res.Host.CPU == "" || res.Host.Kernel == "" || res.Host.Cgroup == "" || res.Host.Cores <= 0 {
		return fmt.Errorf("host: cpu, kernel, cgroup and cores are required")
	}
	if len(res.Figures) == 0 {
		return fmt.Errorf("figures: none")
	}
	seen := map[string]bool{}
	for i, f := range res.Figures {
		if seen[f.ID] {
			return fmt.Errorf("figures[%d]: id %q twice", i, f.ID)
		}
		seen[f.ID] = true
		if err := f.check(); err != nil {
			return fmt.Errorf("figures[%d] (id %q): %w", i, f.ID, err)
		}
	}
	return nil
}

func (f FigureResult) check() error {
	if f.ID == "" || f.Name == "" || f.Target == "" {
		return fmt.Errorf("id, name and target are required")
	}
	if !benchRE.MatchString(f.Benchmark) {
		return fmt.Errorf("benchmark %q is not a benchmark's name", f.Benchmark)
	}
	for _, v := range []*float64{f.Value, f.Ratio, f.baselineValue()} {
		if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
			return fmt.Errorf("a value is not a finite number")
		}
	}
	switch f.Status {
	case measured:
		if f.Value == nil || (f.Baseline != nil && f.Baseline.Value == nil) {
			return fmt.Errorf("status %q without its value and baseline", f.Status)
		}
	case baselineNotMeasured:
		if f.Value == nil || f.Baseline == nil || f.Baseline.Value != nil {
			return fmt.Errorf("status %q needs a value and a baseline without one", f.Status)
		}
	case notMeasured:
		if f.Value != nil || f.Ratio != nil || f.Met != nil || f.baselineValue() != nil {
			return fmt.Errorf("status %q with values", f.Status)
		}
	default:
		return fmt.Errorf("status %q is not %q, %q or %q", f.Status, measured, baselineNotMeasured, notMeasured)
	}
	return nil
}

func (f FigureResult) baselineValue() *float64 {
	if f.Baseline == nil {
		return nil
	}
	return f.Baseline.Value
}
