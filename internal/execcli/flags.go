package execcli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DurationLimit defines a limit flag: a Go duration with a unit, greater
// than zero. A bare number is refused with the units named: "2" could
// mean seconds or milliseconds. docket's other commands use it too.
func DurationLimit(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	d := def
	fs.Var((*limitFlag)(&d), name, usage)
	return &d
}

type limitFlag time.Duration

func (d *limitFlag) String() string {
	if d == nil || *d == 0 {
		return ""
	}
	return time.Duration(*d).String()
}

func (d *limitFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		if _, e := strconv.ParseFloat(s, 64); e == nil {
			return fmt.Errorf("%q has no unit: write e.g. 2s or 1500ms (units: ns, us, ms, s, m, h)", s)
		}
		return fmt.Errorf("%q is not a duration: write e.g. 2s or 1500ms (units: ns, us, ms, s, m, h)", s)
	}
	if v <= 0 {
		return fmt.Errorf("%s: must be greater than zero", s)
	}
	*d = limitFlag(v)
	return nil
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// parseSize reads "256M", "64K", "1G" or a byte count.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := int64(1)
	for suf, m := range map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30} {
		if strings.HasSuffix(s, suf) || strings.HasSuffix(s, suf+"B") || strings.HasSuffix(s, suf+"IB") {
			s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, "IB"), "B"), suf)
			mult = m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
