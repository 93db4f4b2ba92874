package benchref

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	s := Summarize([]time.Duration{4, 2, 8, 6})
	if s.Median != 6 || s.Min != 2 || s.Max != 8 || s.Stddev != 2 {
		t.Errorf("Summarize(4 2 8 6) = %+v, want median 6, min 2, max 8, stddev 2", s)
	}
	if got := s.Spread(); got != 1 {
		t.Errorf("spread %v, want (8-2)/6 = 1", got)
	}
	var hundred []time.Duration
	for i := 100; i >= 1; i-- {
		hundred = append(hundred, time.Duration(i))
	}
	if p := Summarize(hundred).P95; p != 96 {
		t.Errorf("P95 of 1..100 = %v, want the 96th smallest (index 95)", p)
	}
	if (Stats{}).Spread() != 0 || Summarize(nil) != (Stats{}) {
		t.Error("an empty sample is all zero")
	}
}
