package natscluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Three nodes form a JetStream cluster; an R3 stream survives the SIGKILL
// of its leader (a new one is elected, publishes go on), and the killed
// node, restarted, catches up with what it missed.
func TestClusterFailoverAndCatchUp(t *testing.T) {
	c := Start(t, 3)
	if got := strings.Count(c.URLsFrom(1), ","); got != 2 || !strings.HasPrefix(c.URLsFrom(1), c.Nodes[1].URL()) {
		t.Errorf("URLsFrom(1) = %s", c.URLsFrom(1))
	}
	js, err := jetstream.New(c.Connect())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var s jetstream.Stream
	for { // the first R3 stream can race the meta leader's election
		s, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}, Replicas: 3})
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	publish := func(from, to int) {
		for i := from; i < to; i++ {
			if _, err := js.Publish(ctx, "t.x", []byte(fmt.Sprint(i))); err != nil {
				t.Fatalf("publish %d: %v", i, err)
			}
		}
	}
	publish(0, 100)
	leader, err := c.Leader(ctx, js, "T")
	if err != nil {
		t.Fatal(err)
	}
	c.Kill(leader)
	if c.Nodes[leader].Running() {
		t.Fatal("killed node still running")
	}
	start := time.Now()
	next, err := c.Leader(ctx, js, "T")
	if err != nil {
		t.Fatal(err)
	}
	if next == leader {
		t.Fatalf("leader still %s after its kill", c.Nodes[leader].Name)
	}
	publish(100, 200)
	t.Logf("new leader %s after %v", c.Nodes[next].Name, time.Since(start).Round(time.Millisecond))
	c.Restart(leader)
	c.WaitHealthy(60 * time.Second)
	if err := c.WaitCurrent(ctx, js, "T"); err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 200 {
		t.Errorf("stream holds %d messages, want 200", info.State.Msgs)
	}
	// Freeze/Thaw and Stop work on a live node.
	c.Freeze(next)
	c.Thaw(next)
	c.Stop(next)
	if c.Nodes[next].Running() {
		t.Error("stopped node still running")
	}
}
