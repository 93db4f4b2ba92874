// Package benchref holds what docket's benchmarks share to measure docket
// against a baseline in the same run: the reference sandbox isolate
// (found or built by scripts/isolate.sh) and the statistics they report.
//
// It must not import any other package of docket's; only benchmarks import
// it.
package benchref

import (
	"math"
	"sort"
	"time"
)

// Stats summarises a sample of durations.
type Stats struct {
	Median, P95, Min, Max, Stddev time.Duration
}

// Summarize gives d's median (the upper one for an even count), 95th
// percentile, min, max and population standard deviation; d is not
// reordered.
func Summarize(d []time.Duration) Stats {
	if len(d) == 0 {
		return Stats{}
	}
	s := append([]time.Duration{}, d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var sum float64
	for _, x := range s {
		sum += float64(x)
	}
	mean := sum / float64(len(s))
	var sq float64
	for _, x := range s {
		sq += (float64(x) - mean) * (float64(x) - mean)
	}
	return Stats{Median: s[len(s)/2], P95: s[len(s)*95/100], Min: s[0], Max: s[len(s)-1],
		Stddev: time.Duration(math.Sqrt(sq / float64(len(s))))}
}

// Median is Summarize(d).Median.
func Median(d []time.Duration) time.Duration { return Summarize(d).Median }

// Spread is (max-min)/median, the relative width of the sample.
func (s Stats) Spread() float64 {
	if s.Median == 0 {
		return 0
	}
	return float64(s.Max-s.Min) / float64(s.Median)
}

// Ms is d in milliseconds, the unit the benchmarks report.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
