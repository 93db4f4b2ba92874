package bridge

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
)

// TestSharedFeedNoGapNoDuplicate opens streams on one submission while
// its events are being published, each joining at a different point of
// the history load and the live dispatch: every stream must get every
// event exactly once, in order, and they share one consumer.
func TestSharedFeedNoGapNoDuplicate(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxConnsPerClient = -1 })
	const events, streams = 60, 12
	seqs := make([]uint64, 0, events+1)
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= events; i++ {
			s := e.publish("s-x", "test", testEvent(i, fmt.Sprint("t", i), "AC"))
			mu.Lock()
			seqs = append(seqs, s)
			mu.Unlock()
		}
	}()
	var conns []*sseConn
	for i := 0; i < streams; i++ {
		conns = append(conns, e.openSSE("s-x", opAuth))
		if i == streams/2 {
			if n := e.consumers(); n != 1 {
				t.Errorf("%d consumers for %d streams, want 1", n, i+1)
			}
		}
	}
	<-done
	seqs = append(seqs, e.finish("s-x", "AC", 100))
	for i, c := range conns {
		for j, want := range seqs {
			m := c.next()
			if m.ID != strconv.FormatUint(want, 10) {
				t.Fatalf("stream %d, event %d: id %s, want %d", i, j, m.ID, want)
			}
		}
		c.ended()
	}
}

// TestFreshFeedsWhilePublishing reads a submission that is being
// published through a chain of streams, each its only watcher (so each
// makes a new feed and live consumer, loading history while live events
// arrive) and each resuming with the last id of the one before: together
// they must get every event exactly once, in order.
func TestFreshFeedsWhilePublishing(t *testing.T) {
	e := newEnv(t, nil)
	const events = 80
	seqs := make(chan uint64, events+1)
	go func() {
		for i := 1; i <= events; i++ {
			seqs <- e.publish("s-y", "test", testEvent(i, fmt.Sprint("t", i), "AC"))
		}
		seqs <- e.finish("s-y", "AC", 100)
	}()
	last := ""
	for n := 0; n <= events; {
		hdr := []string{opAuth}
		if last != "" {
			hdr = append(hdr, "Last-Event-ID: "+last)
		}
		c := e.openSSE("s-y", hdr...)
		for k := 0; k < 3 && n <= events; k++ {
			m := c.next()
			if want := strconv.FormatUint(<-seqs, 10); m.ID != want {
				t.Fatalf("event %d: id %s, want %s", n, m.ID, want)
			}
			last = m.ID
			n++
		}
		c.close()
	}
}
