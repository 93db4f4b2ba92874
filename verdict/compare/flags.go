package compare

import (
	"fmt"
	"strings"
)

// Options select the comparison. The zero value is the Kattis default:
// tokens, any whitespace, ASCII case ignored, no number tolerance.
type Options struct {
	CaseSensitive        bool // case_sensitive: tokens must match byte for byte
	SpaceChangeSensitive bool // space_change_sensitive: whitespace must match byte for byte

	// FloatAbs and FloatRel are the absolute and relative tolerances, used
	// only when HasFloat is set. A negative tolerance is unset (never
	// accepts); if both are negative, numbers compare as strings, as in
	// problemtools. With HasFloat and a tolerance of 0, numbers must be
	// equal in value ("1" equals "1.00").
	FloatAbs, FloatRel float64
	HasFloat           bool

	// Exact is docket's byte-for-byte comparison; it overrides the rest.
	Exact bool
	// WhiteDiff is CMS's white-diff, line by line (white_diff, the
	// comparison of CMS tasks without a comparator); it overrides the
	// rest but Exact.
	WhiteDiff bool
}

// ParseFlags reads the default output validator's flags (problem.yaml
// validator_flags, or the legacy testdata.yaml/problem.yaml equivalents):
// case_sensitive, space_change_sensitive, float_absolute_tolerance ε,
// float_relative_tolerance ε, float_tolerance ε. A flag and its value may
// be separate elements or one element holding both ("float_tolerance 1e-6"):
// every element is split at whitespace. Unknown flags, a missing or
// malformed or negative ε, a tolerance given twice, and float_tolerance next
// to another tolerance are errors (the 2025-09 specification).
func ParseFlags(flags []string) (Options, error) {
	var words []string
	for _, f := range flags {
		words = append(words, strings.Fields(f)...)
	}
	opt := Options{}
	abs, rel, both := false, false, false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch w {
		case "exact":
			// docket's extension: byte-for-byte comparison on request.
			opt.Exact = true
		case "white_diff":
			// docket's extension: CMS's white-diff, for CMS tasks.
			opt.WhiteDiff = true
		case "case_sensitive":
			opt.CaseSensitive = true
		case "space_change_sensitive":
			opt.SpaceChangeSensitive = true
		case "float_absolute_tolerance", "float_relative_tolerance", "float_tolerance":
			if i+1 == len(words) {
				return Options{}, fmt.Errorf("validator flag %s needs a value", w)
			}
			i++
			v, ok := ParseNumber([]byte(words[i]))
			if !ok {
				return Options{}, fmt.Errorf("validator flag %s: %q is not a number", w, words[i])
			}
			if v < 0 {
				return Options{}, fmt.Errorf("validator flag %s: tolerance %s is negative", w, words[i])
			}
			if !opt.HasFloat {
				opt.HasFloat, opt.FloatAbs, opt.FloatRel = true, -1, -1
			}
			switch w {
			case "float_absolute_tolerance":
				if abs || both {
					return Options{}, flagTwice(w, both)
				}
				abs, opt.FloatAbs = true, v
			case "float_relative_tolerance":
				if rel || both {
					return Options{}, flagTwice(w, both)
				}
				rel, opt.FloatRel = true, v
			default:
				if abs || rel || both {
					return Options{}, flagTwice(w, !both)
				}
				both, opt.FloatAbs, opt.FloatRel = true, v, v
			}
		default:
			return Options{}, fmt.Errorf("unknown validator flag %q (known: case_sensitive, space_change_sensitive, float_absolute_tolerance, float_relative_tolerance, float_tolerance)", w)
		}
	}
	return opt, nil
}

func flagTwice(w string, mixed bool) error {
	if mixed {
		return fmt.Errorf("validator flag %s: float_tolerance cannot be combined with float_absolute_tolerance or float_relative_tolerance", w)
	}
	return fmt.Errorf("validator flag %s given twice", w)
}

// String renders the options as validator flags (Exact as "exact", which
// ParseFlags does not accept: it is not a Kattis flag).
func (o Options) String() string {
	if o.Exact {
		return "exact"
	}
	var f []string
	if o.CaseSensitive {
		f = append(f, "case_sensitive")
	}
	if o.SpaceChangeSensitive {
		f = append(f, "space_change_sensitive")
	}
	if o.floats() {
		switch {
		case o.FloatAbs == o.FloatRel:
			f = append(f, "float_tolerance", fmtG(o.FloatAbs))
		default:
			if o.FloatAbs >= 0 {
				f = append(f, "float_absolute_tolerance", fmtG(o.FloatAbs))
			}
			if o.FloatRel >= 0 {
				f = append(f, "float_relative_tolerance", fmtG(o.FloatRel))
			}
		}
	}
	return strings.Join(f, " ")
}

// floats reports whether numbers compare numerically.
func (o Options) floats() bool {
	return o.HasFloat && (o.FloatAbs >= 0 || o.FloatRel >= 0)
}
