package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sampleResults(t *testing.T) Results {
	t.Helper()
	r, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	return Results{Schema: schemaVersion, Date: "2026-12-05T10:00:00Z", Commit: "8cef06512345",
		Host:    Host{CPU: "Test CPU", Cores: 2, Kernel: "6.1.0", Cgroup: "v2", Go: "go1.26", LoadAverage: "1 1 1"},
		Figures: collect(r)}
}

func byID(t *testing.T, res Results, id string) FigureResult {
	t.Helper()
	for _, f := range res.Figures {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no figure %q", id)
	return FigureResult{}
}

// Every figure is in the results, measured or not; met applies the target
// to the ratio, or to the value of a figure without a baseline, and is
// absent without a target or without a baseline's value.
func TestCollect(t *testing.T) {
	res := sampleResults(t)
	if len(res.Figures) != len(figures) {
		t.Fatalf("%d figures, want %d", len(res.Figures), len(figures))
	}
	for _, c := range []struct {
		id, status string
		met        string // "yes", "no", "-"
	}{
		{"run-true", measured, "no"},         // ratio 2.111 against <= 1.5
		{"communication", measured, "yes"},   // 0.9738 against < 1
		{"judge-outside", measured, "no"},    // 14 % against < 10
		{"exec", baselineNotMeasured, "-"},   // no isolate
		{"exec-floor", measured, "-"},        // a floor has no target
		{"docket-exec", notMeasured, "-"},    // the benchmark ran without it
		{"queue", notMeasured, "-"},          // the benchmark did not run
		{"run-aplusb", notMeasured, "-"},     // nor this sub-benchmark
		{"communication-cpu", measured, "-"}, // report
	} {
		f := byID(t, res, c.id)
		if f.Status != c.status || metCell(f) != c.met {
			t.Errorf("%s: status %q met %s, want %q %s", c.id, f.Status, metCell(f), c.status, c.met)
		}
		if f.Measures == "" {
			t.Errorf("%s: no description of how it is measured", c.id)
		}
	}
	if f := byID(t, res, "judge"); *f.Value != 9 {
		t.Errorf("judge: value %v, want the median of 9.549, 9 and 8", *f.Value)
	}
	if err := res.check(); err != nil {
		t.Errorf("collected results fail their own check: %v", err)
	}
}

func TestTargetMet(t *testing.T) {
	for _, c := range []struct {
		t      target
		v      float64
		met    bool
		hasTgt bool
	}{
		{le(1.5, ""), 1.5, true, true},
		{le(1.5, ""), 1.51, false, true},
		{lt(1, ""), 1, false, true},
		{ge(0.95, ""), 0.95, true, true},
		{ge(0.95, ""), 0.94, false, true},
		{about(1, ""), 1.09, true, true},
		{about(1, ""), 0.89, false, true},
		{about(1, ""), 1.11, false, true},
		{report, 5, false, false},
		{floor, 5, false, false},
	} {
		met, ok := c.t.met(c.v)
		if met != c.met || ok != c.hasTgt {
			t.Errorf("%+v on %v: met %v ok %v, want %v %v", c.t, c.v, met, ok, c.met, c.hasTgt)
		}
	}
}

// summarize writes the results file with the host, the commit, and the
// date the benchmark output was last written; it needs the commit.
func TestSummarizeWritesResults(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "bench.txt"), filepath.Join(dir, "bench.json")
	if err := os.WriteFile(in, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 12, 5, 9, 30, 0, 0, time.UTC)
	if err := os.Chtimes(in, when, when); err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout, _ = os.Open(os.DevNull)
	err := summarize(in, out, "", "")
	if err == nil {
		t.Errorf("summarize without a commit wrote results")
	}
	err = summarize(in, out, "0123456789abcdef", "v0.1.0-dirty")
	os.Stdout = stdout
	if err != nil {
		t.Fatal(err)
	}
	res, err := readResults(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Date != "2026-12-05T09:30:00Z" || res.Commit != "0123456789abcdef" || res.Version != "v0.1.0-dirty" {
		t.Errorf("date %q commit %q version %q", res.Date, res.Commit, res.Version)
	}
	if res.Host.Cores < 1 || res.Host.Kernel == "unknown" || res.Host.CPU == "" || !strings.HasPrefix(res.Host.Cgroup, "v") {
		t.Errorf("host %+v", res.Host)
	}
}

// A results file that is not what benchsummary writes is refused, with
// an error naming the file and what is wrong in it.
func TestReadResultsRefusesBadFiles(t *testing.T) {
	good := sampleResults(t)
	for name, c := range map[string]struct {
		edit func(*Results)
		raw  string
		want string
	}{
		"schema":       {edit: func(r *Results) { r.Schema = 2 }, want: "schema 2"},
		"date":         {edit: func(r *Results) { r.Date = "yesterday" }, want: "date"},
		"commit":       {edit: func(r *Results) { r.Commit = "HEAD; rm -rf" }, want: "commit"},
		"no figures":   {edit: func(r *Results) { r.Figures = nil }, want: "figures: none"},
		"no host":      {edit: func(r *Results) { r.Host.Cores = 0 }, want: "host"},
		"duplicate id": {edit: func(r *Results) { r.Figures[1].ID = r.Figures[0].ID }, want: `id "run-true" twice`},
		"status":       {edit: func(r *Results) { r.Figures[0].Status = "great" }, want: `(id "run-true"): status "great"`},
		"measured without value": {edit: func(r *Results) {
			f := &r.Figures[0]
			f.Value = nil
		}, want: `(id "run-true")`},
		"not measured with value": {edit: func(r *Results) {
			f := &r.Figures[len(r.Figures)-1]
			v := 1.0
			f.Value = &v
		}, want: `(id "queue")`},
		"benchmark":   {edit: func(r *Results) { r.Figures[0].Benchmark = "`x`" }, want: "benchmark"},
		"unknown key": {raw: `{"schema":1,"extra":true}`, want: `unknown field "extra"`},
		"trailing":    {raw: "{\"schema\":1}\n{}", want: "data after"},
		"not json":    {raw: "figures: 3", want: "invalid character"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.json")
			raw := []byte(c.raw)
			if c.edit != nil {
				var r Results
				b, _ := json.Marshal(good)
				_ = json.Unmarshal(b, &r) // a deep copy
				c.edit(&r)
				raw, _ = json.Marshal(r)
			}
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readResults(path)
			if !errors.Is(err, errBadResults) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want errBadResults naming %s and %q", err, path, c.want)
			}
		})
	}
}
