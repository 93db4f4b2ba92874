package problem

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// TimeMultipliers are how a Kattis package that states no time limit gets
// one from its accepted submissions, as problemtools' verifyproblem
// computes it: the slowest accepted run times ACToTimeLimit, rounded up
// to a whole number (at least 1) of Resolution steps. TimeLimitToTLE is
// the safety margin: a time_limit_exceeded submission must still time
// out with the limit times this.
type TimeMultipliers struct {
	ACToTimeLimit  float64 // legacy limits.time_multiplier (default 5), 2023-07 limits.time_multipliers.ac_to_time_limit (2)
	TimeLimitToTLE float64 // legacy limits.time_safety_margin (default 2), 2023-07 limits.time_multipliers.time_limit_to_tle (1.5)
	Resolution     float64 // limits.time_resolution in seconds (default 1)
	// ACKey and TLEKey name the key each multiplier came from, for
	// messages; ACDefault and TLEDefault the format version ("legacy",
	// "2023-07") whose default it is, "" when the package gave it.
	ACKey, TLEKey         string
	ACDefault, TLEDefault string
}

// MaxTimeMultiplier bounds the multipliers: beyond it is a typo, and the
// product with a slow run would pass MaxTime.
const MaxTimeMultiplier = 100

// The format versions' defaults (problemtools' metadata.py).
var (
	legacyMultipliers = TimeMultipliers{ACToTimeLimit: 5, TimeLimitToTLE: 2, Resolution: 1,
		ACKey: "time_multiplier", TLEKey: "time_safety_margin"}
	multipliers2023 = TimeMultipliers{ACToTimeLimit: 2, TimeLimitToTLE: 1.5, Resolution: 1,
		ACKey: "ac_to_time_limit", TLEKey: "time_limit_to_tle"}
)

// TimeLimit is the limit computed from the slowest accepted run, in
// problemtools' arithmetic: max(1, ceil(slowest × ACToTimeLimit /
// Resolution)) × Resolution seconds, so never below one step.
func (m TimeMultipliers) TimeLimit(slowest time.Duration) time.Duration {
	exact := slowest.Seconds() * m.ACToTimeLimit
	steps := math.Max(1, math.Ceil(exact/m.Resolution))
	return secondsDuration(steps * m.Resolution)
}

// TLELimit is the limit at which a time_limit_exceeded submission must
// still time out: tl × TimeLimitToTLE.
func (m TimeMultipliers) TLELimit(tl time.Duration) time.Duration {
	return secondsDuration(tl.Seconds() * m.TimeLimitToTLE)
}

// secondsDuration rounds s seconds to the nanosecond (2.5 s is 2.5 s,
// not a nanosecond less).
func secondsDuration(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}

// FormatSeconds writes a limit as .timelimit and messages give it: in
// seconds, as short as exact ("2", "1.5").
func FormatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// yamlMultipliers is limits.time_multipliers (2023-07).
type yamlMultipliers struct {
	ACToTimeLimit  *float64 `yaml:"ac_to_time_limit"`
	TimeLimitToTLE *float64 `yaml:"time_limit_to_tle"`
}

// isLegacyVersion: the packages problemtools reads with the legacy keys'
// defaults (no problem_format_version is legacy).
func isLegacyVersion(v string) bool {
	return v == "" || v == "legacy" || v == "legacy-icpc"
}

// applyTimeMultipliers reads the multipliers and the resolution: either
// spelling of each multiplier (the legacy key or the 2023-07 one, not
// both), else the default of the package's format version.
func (l *loader) applyTimeMultipliers(p *Problem, y *yamlProblem) {
	m := multipliers2023
	m.ACDefault, m.TLEDefault = "2023-07", "2023-07"
	if isLegacyVersion(y.ProblemFormatVersion) {
		m = legacyMultipliers
		m.ACDefault, m.TLEDefault = "legacy", "legacy"
	}
	lim := &y.Limits
	l.multiplier(&m.ACToTimeLimit, &m.ACKey, &m.ACDefault, lim.TimeMultiplier, "time_multiplier", lim.Multipliers.ACToTimeLimit, "time_multipliers.ac_to_time_limit")
	l.multiplier(&m.TimeLimitToTLE, &m.TLEKey, &m.TLEDefault, lim.SafetyMargin, "time_safety_margin", lim.Multipliers.TimeLimitToTLE, "time_multipliers.time_limit_to_tle")
	if r := lim.Resolution; r != nil {
		if !(*r > 0) || *r > MaxTime.Seconds() {
			l.errorf("problem.yaml limits.time_resolution: %v is not a positive number of seconds up to %v", *r, MaxTime.Seconds())
		} else {
			m.Resolution = *r
		}
	}
	p.Limits.TimeMultipliers = m
}

// multiplier sets *dst from the legacy key or the 2023-07 one, whichever
// is given; both is an error, as is a value that is not a positive number
// up to MaxTimeMultiplier.
func (l *loader) multiplier(dst *float64, src, dflt *string, legacy *float64, legacyKey string, v2023 *float64, key2023 string) {
	v, key := legacy, legacyKey
	switch {
	case legacy != nil && v2023 != nil:
		l.errorf("problem.yaml limits: both %s and %s are given; give one", legacyKey, key2023)
		return
	case legacy == nil && v2023 == nil:
		return
	case legacy == nil:
		v, key = v2023, key2023
	}
	if !(*v > 0) || *v > MaxTimeMultiplier {
		l.errorf("problem.yaml limits.%s: %v is not a positive number up to %d", key, *v, MaxTimeMultiplier)
		return
	}
	*dst, *src, *dflt = *v, key, ""
}

// String says the multipliers and where they came from.
func (m TimeMultipliers) String() string {
	return fmt.Sprintf("%s, %s, time_resolution %gs", m.ACTerm(), m.TLETerm(), m.Resolution)
}

// ACTerm is the limit's multiplier for a message: "time_multiplier 5
// (legacy default)".
func (m TimeMultipliers) ACTerm() string { return term(m.ACKey, m.ACToTimeLimit, m.ACDefault) }

// TLETerm is the safety margin for a message.
func (m TimeMultipliers) TLETerm() string { return term(m.TLEKey, m.TimeLimitToTLE, m.TLEDefault) }

func term(key string, v float64, dflt string) string {
	if dflt != "" {
		return fmt.Sprintf("%s %g (%s default)", key, v, dflt)
	}
	return fmt.Sprintf("%s %g", key, v)
}
