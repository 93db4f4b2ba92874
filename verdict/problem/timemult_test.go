package problem

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The limit is problemtools': max(1, ceil(slowest × multiplier /
// resolution)) × resolution, and the safety margin multiplies it.
func TestTimeMultipliersFormula(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		m       TimeMultipliers
		slowest time.Duration
		limit   time.Duration
		tle     time.Duration
	}{
		{legacyMultipliers, 310 * ms, 2 * time.Second, 4 * time.Second}, // 1.55 s up to 2 s
		{legacyMultipliers, 200 * ms, time.Second, 2 * time.Second},     // exactly 1 s stays 1 s
		{legacyMultipliers, 400 * ms, 2 * time.Second, 4 * time.Second}, // exactly 2 s stays 2 s
		{legacyMultipliers, 401 * ms, 3 * time.Second, 6 * time.Second}, // a millisecond over: the next second
		{legacyMultipliers, 0, time.Second, 2 * time.Second},            // never below one step
		{multipliers2023, 310 * ms, time.Second, 1500 * ms},             // 0.62 s up to 1 s
		{multipliers2023, 1600 * ms, 4 * time.Second, 6 * time.Second},  // 3.2 s up to 4 s
		{TimeMultipliers{ACToTimeLimit: 2, TimeLimitToTLE: 1.5, Resolution: 0.1}, 310 * ms, 700 * ms, 1050 * ms},
		{TimeMultipliers{ACToTimeLimit: 2, TimeLimitToTLE: 1.5, Resolution: 0.5}, 310 * ms, time.Second, 1500 * ms},
		{TimeMultipliers{ACToTimeLimit: 2, TimeLimitToTLE: 2, Resolution: 0.25}, 10 * ms, 250 * ms, 500 * ms}, // one step of 0.25 s, not 1 s
		{TimeMultipliers{ACToTimeLimit: 5, TimeLimitToTLE: 2, Resolution: 2}, 500 * ms, 4 * time.Second, 8 * time.Second},
		{TimeMultipliers{ACToTimeLimit: 3, TimeLimitToTLE: 1, Resolution: 1}, 1 * time.Second, 3 * time.Second, 3 * time.Second},
	} {
		got := tc.m.TimeLimit(tc.slowest)
		if got != tc.limit {
			t.Errorf("%v: slowest %v: limit %v, want %v", tc.m, tc.slowest, got, tc.limit)
		}
		if tle := tc.m.TLELimit(got); tle != tc.tle {
			t.Errorf("%v: limit %v: TLE limit %v, want %v", tc.m, got, tle, tc.tle)
		}
	}
	if s := FormatSeconds(1500 * ms); s != "1.5" {
		t.Errorf("FormatSeconds(1.5s) = %q", s)
	}
	if s := FormatSeconds(2 * time.Second); s != "2" {
		t.Errorf("FormatSeconds(2s) = %q", s)
	}
}

// problem.yaml's multipliers: the legacy keys and the 2023-07 ones, the
// defaults of the package's format version, and what is refused.
func TestTimeMultipliersKeys(t *testing.T) {
	for _, tc := range []struct {
		yaml         string
		ac, tle, res float64
		acKey        string
		err          string
	}{
		{yaml: "name: x\n", ac: 5, tle: 2, res: 1, acKey: "time_multiplier 5 (legacy default)"},
		{yaml: "problem_format_version: legacy\n", ac: 5, tle: 2, res: 1, acKey: "time_multiplier 5 (legacy default)"},
		{yaml: "problem_format_version: 2023-07-draft\n", ac: 2, tle: 1.5, res: 1, acKey: "ac_to_time_limit 2 (2023-07 default)"},
		{yaml: "problem_format_version: 2025-09\n", ac: 2, tle: 1.5, res: 1, acKey: "ac_to_time_limit 2 (2023-07 default)"},
		{yaml: "limits: {time_multiplier: 3, time_safety_margin: 1.2}\n", ac: 3, tle: 1.2, res: 1, acKey: "time_multiplier 3"},
		{yaml: "problem_format_version: 2023-07-draft\nlimits:\n  time_multipliers: {ac_to_time_limit: 4, time_limit_to_tle: 3}\n  time_resolution: 0.5\n",
			ac: 4, tle: 3, res: 0.5, acKey: "time_multipliers.ac_to_time_limit 4"},
		{yaml: "limits:\n  time_multipliers: {ac_to_time_limit: 2.5}\n", ac: 2.5, tle: 2, res: 1, acKey: "time_multipliers.ac_to_time_limit 2.5"},
		{yaml: "limits: {time_multiplier: 3, time_multipliers: {ac_to_time_limit: 4}}\n", err: "both time_multiplier and time_multipliers.ac_to_time_limit"},
		{yaml: "limits: {time_safety_margin: 3, time_multipliers: {time_limit_to_tle: 4}}\n", err: "both time_safety_margin and time_multipliers.time_limit_to_tle"},
		{yaml: "limits: {time_multiplier: -1}\n", err: "limits.time_multiplier: -1 is not a positive number"},
		{yaml: "limits: {time_multiplier: .nan}\n", err: "limits.time_multiplier: NaN is not a positive number"},
		{yaml: "limits: {time_multipliers: {time_limit_to_tle: 1e9}}\n", err: "limits.time_multipliers.time_limit_to_tle: 1e+09 is not a positive number up to 100"},
		{yaml: "limits: {time_resolution: 0}\n", err: "limits.time_resolution: 0 is not a positive number of seconds"},
		{yaml: "limits: {time_multipliers: 2}\n", err: "problem.yaml"},
	} {
		t.Run(strings.TrimSpace(tc.yaml), func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "p")
			write(t, d, map[string]string{"problem.yaml": tc.yaml, "data/secret/1.in": "1\n", "data/secret/1.ans": "1\n"})
			p, err := Load(d)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := p.Limits.TimeMultipliers
			if m.ACToTimeLimit != tc.ac || m.TimeLimitToTLE != tc.tle || m.Resolution != tc.res || m.ACTerm() != tc.acKey {
				t.Errorf("multipliers %+v, want %g (%s) %g %g", m, tc.ac, tc.acKey, tc.tle, tc.res)
			}
			if p.Limits.Time != 0 {
				t.Errorf("time limit %v, want none stated", p.Limits.Time)
			}
		})
	}
}
