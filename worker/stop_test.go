package worker

import (
	"context"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// giveBackFixture is a real embedded server with one job on a queue
// whose AckWait is a minute, fetched once.
func giveBackFixture(t *testing.T) (*Worker, jetstream.Consumer, jetstream.Msg, func()) {
	t.Helper()
	ns, nc, js := embeddedJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cons, err := protocol.EnsureConsumer(ctx, js, protocol.ConsumerOptions{Prefix: "docket", Queue: "stop", AckWait: time.Minute, MaxDeliver: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, protocol.Subjects{Prefix: "docket"}.QueueJobs("stop"), []byte(`{"v":1}`)); err != nil {
		t.Fatal(err)
	}
	msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	stopServer := func() { ns.Shutdown(); ns.WaitForShutdown() }
	return &Worker{nc: nc}, cons, msg, stopServer
}

// A job given back is confirmed by the server and redelivered at once,
// not after AckWait.
func TestGiveBackConfirmedAndRedeliveredAtOnce(t *testing.T) {
	w, cons, msg, _ := giveBackFixture(t)
	if !w.giveBack(zerolog.Nop(), msg) {
		t.Fatal("the server did not confirm the nak")
	}
	again, err := cons.Next(jetstream.FetchMaxWait(2 * time.Second))
	if err != nil {
		t.Fatalf("not redelivered within 2 s of the nak (AckWait is a minute): %v", err)
	}
	md, _ := again.Metadata()
	if md == nil || md.NumDelivered != 2 {
		t.Errorf("redelivery metadata %+v, want the second delivery", md)
	}
}

// A nak the server never processed is reported as not given back: a
// plain publish would have been buffered and called a success.
func TestGiveBackUnconfirmedWithoutServer(t *testing.T) {
	w, _, msg, stopServer := giveBackFixture(t)
	stopServer()
	start := time.Now()
	if w.giveBack(zerolog.Nop(), msg) {
		t.Error("a nak with no server to answer it reported as confirmed")
	}
	if d := time.Since(start); d > nakConfirmTimeout+time.Second {
		t.Errorf("giveBack took %v, want at most its timeout %v", d, nakConfirmTimeout)
	}
}
