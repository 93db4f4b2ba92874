package bridge

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// bigEvents publishes n test events of about 64 KiB each on id, enough
// to fill any socket buffers of a client that does not read.
func (e *env) bigEvents(id string, n int) {
	e.t.Helper()
	pad := strings.Repeat("x", 64<<10)
	for i := 1; i <= n; i++ {
		ev := testEvent(i, fmt.Sprint("t", i), "AC")
		ev["pad"] = pad
		e.publish(id, "test", ev)
	}
}

// slowRaw opens a stream that reads only its preamble, on a connection
// with a receive buffer of 256 KiB.
func (e *env) slowRaw(id string) *rawStream {
	e.t.Helper()
	c, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		e.t.Fatal(err)
	}
	// Small, so that the server's writes block soon; not below the
	// loopback MSS (64 KiB), or the window never reopens by more than
	// an MSS and the sender waits for zero-window probes.
	c.(*net.TCPConn).SetReadBuffer(256 << 10)
	s := &rawStream{conn: c}
	fmt.Fprintf(c, "GET /v1/submissions/%s/events HTTP/1.1\r\nHost: bridge\r\nConnection: close\r\nAuthorization: Bearer %s\r\n\r\n", id, testToken)
	if err := s.readUntil("event: started", waitLimit); err != nil {
		e.t.Fatalf("slow client: %v", err)
	}
	e.t.Cleanup(func() { c.Close() })
	return s
}

// TestSlowClientDroppedWithReason: a client that falls more than
// MaxBacklog events behind gets a ": dropped" comment saying why and the
// end of the stream, while a client reading the same submission gets
// everything at once.
func TestSlowClientDroppedWithReason(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxBacklog = 4 })
	e.publish("s-slow", "started", nil)
	slow := e.slowRaw("s-slow")
	fast := e.openSSE("s-slow", opAuth)
	fast.next()
	start := time.Now()
	e.bigEvents("s-slow", 100)
	e.finish("s-slow", "WA", 0)
	for i := 0; i < 101; i++ {
		fast.next()
	}
	fast.ended()
	t.Logf("the reading client got 100 events of 64 KiB and final in %v", time.Since(start))
	// Now the slow client reads, its write blocked for over slowWrite:
	// what was in its buffers, then why it ends.
	time.Sleep(slowWrite + 500*time.Millisecond)
	slow.conn.SetReadDeadline(time.Now().Add(waitLimit))
	rest, err := io.ReadAll(slow.conn)
	if err != nil {
		b := slow.got.String() + string(rest)
		t.Fatalf("slow client: %v after %d bytes ending %q", err, len(b), b[max(0, len(b)-200):])
	}
	body := slow.got.String() + string(rest)
	if !strings.Contains(body, ": dropped: this client is ") || !strings.Contains(body, "(limit 4); reconnect with Last-Event-ID") {
		t.Fatalf("slow client's stream ends without saying why: ...%s", truncate(body[max(0, len(body)-300):], 300))
	}
	if strings.Contains(body, "event: final") {
		t.Fatal("the slow client got final: it was not behind")
	}
}

// TestNeverReadingClientsCut: clients that never read stall nobody and
// are cut after WriteTimeout, freeing their slots.
func TestNeverReadingClientsCut(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.WriteTimeout = time.Second; c.MaxConnsPerClient = -1 })
	e.publish("s-never", "started", nil)
	for i := 0; i < 3; i++ {
		e.slowRaw("s-never")
	}
	fast := e.openSSE("s-never", opAuth)
	fast.next()
	e.bigEvents("s-never", 100)
	e.finish("s-never", "AC", 100)
	for i := 0; i < 101; i++ {
		fast.next()
	}
	fast.ended()
	eventually(t, "never-reading clients cut", func() (bool, string) {
		e.b.mu.Lock()
		defer e.b.mu.Unlock()
		return e.b.total == 0, fmt.Sprint(e.b.total, " streams open")
	})
}
