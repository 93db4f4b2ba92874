package natstest

import (
	"context"
	"testing"

	"github.com/docketjudge/docket/protocol"
)

// The options reach the server, an in-process-only server has no
// address and is reached all the same, and Streams creates docket's
// streams.
func TestStartOptionsAndStreams(t *testing.T) {
	s := Start(t, InProcessOnly(), ServerName("natstest-self"), JetStreamLimits(32<<20, 64<<20))
	if s.Name() != "natstest-self" || s.Addr() != nil {
		t.Errorf("server %q at %v; want natstest-self, no address", s.Name(), s.Addr())
	}
	if c := s.JetStreamConfig(); c == nil || c.MaxMemory != 32<<20 || c.MaxStore != 64<<20 {
		t.Errorf("JetStream config %+v; want 32 MiB memory, 64 MiB store", c)
	}
	nc, js := Connect(t, s)
	if !nc.IsConnected() {
		t.Fatal("not connected in process")
	}
	Streams(t, js)
	for _, name := range []string{protocol.JobsStream, protocol.ResultsStream, protocol.EventsStream, protocol.DeadLetterStream} {
		if _, err := js.Stream(context.Background(), name); err != nil {
			t.Errorf("stream %s: %v", name, err)
		}
	}
}
