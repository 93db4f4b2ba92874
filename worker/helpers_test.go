package worker

import (
	"context"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/natstest"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// embeddedJS starts an in-process JetStream server with docket's streams.
func embeddedJS(t *testing.T) (*server.Server, *nats.Conn, jetstream.JetStream) {
	t.Helper()
	ns := natstest.Start(t)
	nc, js := natstest.Connect(t, ns)
	natstest.Streams(t, js)
	return ns, nc, js
}

// aplusbStore starts an embedded JetStream server whose problem store holds
// problems/aplusb, a context bounding the test (60 s), and a second
// connection for a worker, closed with the test.
func aplusbStore(t *testing.T) (jetstream.JetStream, context.Context, *nats.Conn) {
	t.Helper()
	ns, _, js := embeddedJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	if _, _, err := Push(ctx, js, "../problems/aplusb"); err != nil {
		t.Fatal(err)
	}
	wnc, _ := natstest.Connect(t, ns)
	return js, ctx, wnc
}
