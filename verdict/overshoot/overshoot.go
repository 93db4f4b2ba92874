// Package overshoot is the wall-clock allowance a run gets past its time
// limit, written as DOMjudge writes its "timelimit overshoot": "Ns"
// seconds, "N%" of the time limit, or two of them joined by "+" (their
// sum), "|" (the larger) or "&" (the smaller); N a whole number. The
// default, "1s|10%", is DOMjudge's: a 5 s problem gets 1 s, a 20 s one 2 s.
//
// It must not import any other package of docket's.
package overshoot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrSyntax is what every refused overshoot wraps.
var ErrSyntax = errors.New("not an overshoot: want Ns, N% or two of them joined by +, | or & (1s|10%)")

// Bounds on each term: an overshoot is a margin, not a second limit.
const (
	maxSeconds = 3600
	maxPercent = 1000
)

// DefaultText is the overshoot where no one sets one.
const DefaultText = "1s|10%"

// Overshoot is a parsed overshoot. The zero value means "not set": Or
// and Wall use the default for it.
type Overshoot struct {
	text  string
	terms []term
	op    byte // 0 for a single term, else '+', '|' or '&'
}

// term is one "Ns" or "N%".
type term struct {
	n       int64
	percent bool
}

// Default is DefaultText parsed.
var Default = MustParse(DefaultText)

// Parse reads an overshoot; a refusal wraps ErrSyntax and quotes s.
func Parse(s string) (Overshoot, error) {
	s = strings.TrimSpace(s)
	o := Overshoot{text: s}
	rest := s
	if i := strings.IndexAny(s, "+|&"); i >= 0 {
		o.op, rest = s[i], s[i+1:]
		t, err := parseTerm(s[:i])
		if err != nil {
			return Overshoot{}, fmt.Errorf("%q: %w", s, err)
		}
		o.terms = append(o.terms, t)
	}
	t, err := parseTerm(rest)
	if err != nil {
		return Overshoot{}, fmt.Errorf("%q: %w", s, err)
	}
	o.terms = append(o.terms, t)
	return o, nil
}

// MustParse is Parse for constants.
func MustParse(s string) Overshoot {
	o, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return o
}

func parseTerm(s string) (term, error) {
	s = strings.TrimSpace(s)
	if len(s) < 2 {
		return term{}, ErrSyntax
	}
	unit := s[len(s)-1]
	if unit != 's' && unit != '%' {
		return term{}, ErrSyntax
	}
	n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
	if err != nil || n < 0 || s[0] == '+' {
		return term{}, ErrSyntax
	}
	t := term{n: n, percent: unit == '%'}
	if (t.percent && n > maxPercent) || (!t.percent && n > maxSeconds) {
		return term{}, fmt.Errorf("%w; each term at most %ds or %d%%", ErrSyntax, maxSeconds, maxPercent)
	}
	return t, nil
}

// IsZero reports an Overshoot that was never set.
func (o Overshoot) IsZero() bool { return len(o.terms) == 0 }

// Or is o, or def when o is not set.
func (o Overshoot) Or(def Overshoot) Overshoot {
	if o.IsZero() {
		return def
	}
	return o
}

// String is the overshoot as written ("" when not set).
func (o Overshoot) String() string { return o.text }

// Of is the margin past tl; the default's when o is not set.
func (o Overshoot) Of(tl time.Duration) time.Duration {
	o = o.Or(Default)
	a := o.terms[0].of(tl)
	if o.op == 0 {
		return a
	}
	b := o.terms[1].of(tl)
	switch o.op {
	case '+':
		return a + b
	case '|':
		return max(a, b)
	default: // '&'
		return min(a, b)
	}
}

// Wall is the wall-clock limit of a run whose time limit is tl.
func (o Overshoot) Wall(tl time.Duration) time.Duration { return tl + o.Of(tl) }

func (t term) of(tl time.Duration) time.Duration {
	if t.percent {
		return tl * time.Duration(t.n) / 100
	}
	return time.Duration(t.n) * time.Second
}

// Decode lets envconfig read an overshoot from the environment. A blank
// value is "not set": the default applies.
func (o *Overshoot) Decode(s string) error {
	if strings.TrimSpace(s) == "" {
		*o = Overshoot{}
		return nil
	}
	p, err := Parse(s)
	if err != nil {
		return err
	}
	*o = p
	return nil
}
