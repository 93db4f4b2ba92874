package worker

import (
	"testing"
	"time"
)

// A lease holds while heartbeats come within AckWait and is lost, for
// good, after a longer silence (a frozen process).
func TestLeaseLostAfterSilence(t *testing.T) {
	l := newLease(50 * time.Millisecond)
	for range 3 {
		time.Sleep(10 * time.Millisecond)
		if !l.beat() {
			t.Fatal("lease lost while beating within AckWait")
		}
	}
	time.Sleep(80 * time.Millisecond)
	if !l.lost() || l.beat() {
		t.Fatal("lease not lost after a silence longer than AckWait")
	}
	if l.gap < 50*time.Millisecond {
		t.Errorf("gap %v", l.gap)
	}
}

// The fetch pause grows while failures repeat, is taken once per
// failure, and ends with a judged job.
func TestFetchPauseGrowsAndResets(t *testing.T) {
	var p fetchPause
	if p.wait() != 0 {
		t.Fatal("pause before any failure")
	}
	want := []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for i, w := range want {
		p.failed()
		if got := p.wait(); got != w {
			t.Errorf("failure %d: pause %v, want %v", i+1, got, w)
		}
		if p.wait() != 0 {
			t.Errorf("failure %d: pause taken twice", i+1)
		}
	}
	p.ok()
	p.failed()
	if got := p.wait(); got != 2*time.Second {
		t.Errorf("after a judged job: pause %v, want 2s", got)
	}
}
