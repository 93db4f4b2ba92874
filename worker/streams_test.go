package worker

import (
	"context"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
)

func TestHeartbeatFollowsShortestDeadline(t *testing.T) {
	for _, tc := range []struct {
		ack     time.Duration
		backoff []time.Duration
		want    time.Duration
	}{
		{30 * time.Second, nil, 10 * time.Second},
		{30 * time.Second, []time.Duration{6 * time.Second, time.Minute}, 2 * time.Second},
		{3 * time.Second, []time.Duration{time.Minute}, time.Second},
	} {
		c := Config{AckWait: tc.ack, BackOff: tc.backoff}
		if got := c.heartbeat(); got != tc.want {
			t.Errorf("AckWait %v BackOff %v: heartbeat %v, want %v", tc.ack, tc.backoff, got, tc.want)
		}
	}
}

// The consumer is created, then updated in place, with what the worker is
// configured with (a real embedded JetStream server).
func TestEnsureConsumerIdempotentWithBackOff(t *testing.T) {
	_, _, js := embeddedJS(t)
	ctx := context.Background()
	opts := protocol.ConsumerOptions{Prefix: "docket", Queue: "default", AckWait: 30 * time.Second, MaxDeliver: 4}
	if _, err := protocol.EnsureConsumer(ctx, js, opts); err != nil {
		t.Fatal(err)
	}
	opts.BackOff = []time.Duration{5 * time.Second, 20 * time.Second, time.Minute}
	c, err := protocol.EnsureConsumer(ctx, js, opts)
	if err != nil {
		t.Fatalf("update with BackOff: %v", err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Config.BackOff) != 3 || info.Config.BackOff[1] != 20*time.Second || info.Config.MaxDeliver != 4 {
		t.Errorf("consumer config after update: backoff %v max deliver %d", info.Config.BackOff, info.Config.MaxDeliver)
	}
}
