package protocol_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/docketjudge/docket/bridge"
	"github.com/docketjudge/docket/internal/natstest"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/worker"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

var streamNames = []string{protocol.JobsStream, protocol.EventsStream, protocol.ResultsStream, protocol.DeadLetterStream}

// TestStreamsIdenticalWhicheverCreates: a worker and a bridge given the
// same options create the same four streams, so that whichever process
// starts first on an empty server, the streams mean the same; and a
// worker starting after a bridge leaves them as they are. Each on its
// own real (embedded) server.
func TestStreamsIdenticalWhicheverCreates(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	byWorker := configsAfter(t, ctx, startWorker)
	byBridge := configsAfter(t, ctx, startBridge)
	bridgeThenWorker := configsAfter(t, ctx, startBridge, startWorker)
	for _, name := range streamNames {
		if !reflect.DeepEqual(byWorker[name], byBridge[name]) {
			t.Errorf("%s created by the worker:\n%+v\nby the bridge:\n%+v", name, byWorker[name], byBridge[name])
		}
		if !reflect.DeepEqual(byWorker[name], bridgeThenWorker[name]) {
			t.Errorf("%s created by the bridge, then a worker started:\n%+v\nwant\n%+v", name, bridgeThenWorker[name], byWorker[name])
		}
	}
	if want := protocol.StreamConfigs(protocol.StreamOptions{})[0]; byWorker[protocol.JobsStream].Duplicates != want.Duplicates {
		t.Errorf("jobs dedup window %v, want %v", byWorker[protocol.JobsStream].Duplicates, want.Duplicates)
	}
}

// configsAfter runs the starters in order against a fresh server and
// returns the configuration of each stream the server then holds.
func configsAfter(t *testing.T, ctx context.Context, starters ...func(*testing.T, context.Context, jetstream.JetStream)) map[string]jetstream.StreamConfig {
	t.Helper()
	srv := natstest.Start(t, natstest.InProcessOnly())
	_, js := natstest.Connect(t, srv)
	for _, start := range starters {
		start(t, ctx, js)
	}
	out := map[string]jetstream.StreamConfig{}
	for _, name := range streamNames {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatalf("stream %s: %v", name, err)
		}
		out[name] = s.CachedInfo().Config
	}
	return out
}

func startWorker(t *testing.T, ctx context.Context, js jetstream.JetStream) {
	t.Helper()
	_, err := worker.New(ctx, js.Conn(), worker.NotJudging(), worker.Config{Mode: worker.ModeCapacityTest, EnsureInfra: true,
		CacheDir: t.TempDir(), InlineDir: t.TempDir(), Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal("worker:", err)
	}
}

func startBridge(t *testing.T, ctx context.Context, js jetstream.JetStream) {
	t.Helper()
	if _, err := bridge.New(js, bridge.Config{Token: "t", CreateStreams: true}); err != nil {
		t.Fatal("bridge:", err)
	}
}
