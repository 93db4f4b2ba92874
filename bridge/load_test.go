package bridge

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The load tests open many event streams against a real bridge on an
// embedded NATS server, each on its own submission with that submission's
// token, from raw TCP connections (no client goroutine unless it reads),
// so that what is measured is the bridge's (and the NATS server's) cost.
// DOCKET_BRIDGE_LOAD_STREAMS sets how many (the soak uses 5000).

func loadStreams(t *testing.T, short int) int {
	v := os.Getenv("DOCKET_BRIDGE_LOAD_STREAMS")
	if v == "" {
		return short
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 2 {
		t.Fatalf("DOCKET_BRIDGE_LOAD_STREAMS=%q: want a number of streams, at least 2", v)
	}
	return n
}

// rawStream is an SSE client on a bare connection.
type rawStream struct {
	conn net.Conn
	got  bytes.Buffer // what was read so far
}

// openRaw opens the events of id with its per-submission token and reads
// until the text until has arrived; it returns how long that took.
func openRaw(addr, id, until string) (*rawStream, time.Duration, error) {
	start := time.Now()
	c, err := net.DialTimeout("tcp", addr, waitLimit)
	if err != nil {
		return nil, 0, err
	}
	s := &rawStream{conn: c}
	fmt.Fprintf(c, "GET /v1/submissions/%s/events%s HTTP/1.1\r\nHost: bridge\r\nAccept: text/event-stream\r\n\r\n", id, tokenQuery(id))
	if err := s.readUntil(until, waitLimit); err != nil {
		c.Close()
		return nil, 0, fmt.Errorf("%s: %w (read %q)", id, err, truncate(s.got.String(), 300))
	}
	return s, time.Since(start), nil
}

func (s *rawStream) readUntil(want string, limit time.Duration) error {
	s.conn.SetReadDeadline(time.Now().Add(limit))
	defer s.conn.SetReadDeadline(time.Time{})
	var buf [512]byte
	for !strings.Contains(s.got.String(), want) {
		n, err := s.conn.Read(buf[:])
		s.got.Write(buf[:n])
		if err != nil {
			return err
		}
	}
	return nil
}

// heapAndStacks is the memory the Go runtime holds for live objects and
// goroutine stacks, after a collection.
func heapAndStacks() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

// openMany publishes a started event for n submissions and opens a stream
// on each, reading until that event has arrived.
func (e *env) openMany(prefix string, n int) []*rawStream {
	e.t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%d", prefix, i)
		e.publish(ids[i], "started", nil)
	}
	out := make([]*rawStream, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			s, _, err := openRaw(e.srv.Listener.Addr().String(), id, "event: started")
			if err != nil {
				errs <- err
				return
			}
			out[i] = s
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		for _, s := range out {
			s.conn.Close()
		}
	})
	return out
}

// TestMemoryPerStream states the memory an open event stream costs the
// process (bridge, HTTP server and the embedded NATS server together, as
// in docket serve), as a figure per stream, and bounds it.
func TestMemoryPerStream(t *testing.T) {
	n := loadStreams(t, 400)
	e := newEnv(t, func(c *Config) { c.MaxConns, c.MaxConnsPerClient = -1, -1 })
	e.openMany("warm", 20) // the first streams pay for one-time setup
	before := heapAndStacks()
	e.openMany("m", n)
	after := heapAndStacks()
	per := float64(after-before) / float64(n) / 1024
	t.Logf("memory per open stream: %.1f KiB (%d streams, heap+stacks %d -> %d KiB)", per, n, before>>10, after>>10)
	if per > maxKiBPerStream {
		t.Errorf("%.1f KiB per stream, want at most %d", per, maxKiBPerStream)
	}
}

// maxKiBPerStream bounds what one open stream may cost. Measured: about
// 34 KiB (105 KiB when each stream had a consumer of its own).
const maxKiBPerStream = 64

// TestContestHall is the short form of the contest-hall load: n streams
// (600; DOCKET_BRIDGE_LOAD_STREAMS=5000 for the soak's form), each on its
// own submission with its token, half of them slow readers that never
// read past their history. Memory per stream stays under
// maxKiBPerStream, a new client gets a judged submission's history and
// the operator endpoints answer within maxLatency while they are open,
// and every reading client gets its submission to the end.
func TestContestHall(t *testing.T) {
	n := loadStreams(t, 600)
	e := newEnv(t, func(c *Config) { c.MaxConns, c.MaxConnsPerClient = -1, -1 })
	e.openMany("warm", 20)
	before := heapAndStacks()
	streams := e.openMany("hall", n)
	per := float64(heapAndStacks()-before) / float64(n) / 1024
	t.Logf("%d streams open: %.1f KiB per stream", n, per)
	if per > maxKiBPerStream {
		t.Errorf("%.1f KiB per stream, want at most %d", per, maxKiBPerStream)
	}
	readers := make(chan error, n)
	for _, s := range streams[n/2:] { // the second half reads to the end
		go func() { readers <- s.readUntil("event: final", 4*waitLimit) }()
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("hall-%d", i)
		e.publish(id, "test", testEvent(1, "secret/1", "AC"))
		e.finish(id, "AC", 100)
	}
	e.checkLatency(t, "a new client's history of a judged submission", func() error {
		s, _, err := openRaw(e.srv.Listener.Addr().String(), "hall-0", "event: final")
		if err == nil {
			s.conn.Close()
		}
		return err
	})
	for _, path := range []string{"/livez", "/readyz", "/v1/submissions/hall-1"} {
		e.checkLatency(t, "GET "+path, func() error {
			if code, body := e.status(path, opAuth); code != 200 {
				return fmt.Errorf("%d %s", code, body)
			}
			return nil
		})
	}
	for range streams[n/2:] {
		if err := <-readers; err != nil {
			t.Fatalf("a reading client did not get its final event: %v", err)
		}
	}
}

// maxLatency bounds an answer under load: generous, since the machine is
// shared; the test logs the actual figure.
const maxLatency = 5 * time.Second

func (e *env) checkLatency(t *testing.T, what string, f func() error) {
	t.Helper()
	start := time.Now()
	if err := f(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	d := time.Since(start)
	t.Logf("%s: %v", what, d.Round(time.Microsecond))
	if d > maxLatency {
		t.Errorf("%s took %v, want under %v", what, d, maxLatency)
	}
}
