// Package natstest is the one helper for tests against a real NATS
// server: an embedded nats-server with JetStream, in process, storing in
// the test's temporary directory and shut down with the test (Start),
// clients on it (Connect) and docket's streams on it (Streams). Tests of
// clusters and faults run real nats-server processes instead
// (internal/natscluster).
//
// It must not import any of docket's packages but protocol (for the
// streams); only tests import it.
package natstest

import (
	"context"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Option changes the server's options before it starts.
type Option func(*server.Options)

// InProcessOnly keeps the server off the network: clients reach it with
// nats.InProcessServer (Connect does).
func InProcessOnly() Option { return func(o *server.Options) { o.DontListen = true } }

// ServerName names the server (its advisories and stream infos say it).
func ServerName(name string) Option { return func(o *server.Options) { o.ServerName = name } }

// JetStreamLimits bounds JetStream's memory and file storage, in bytes.
func JetStreamLimits(memory, store int64) Option {
	return func(o *server.Options) { o.JetStreamMaxMemory, o.JetStreamMaxStore = memory, store }
}

// Start runs an embedded JetStream server on a free loopback port.
func Start(tb testing.TB, opts ...Option) *server.Server {
	tb.Helper()
	o := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: tb.TempDir(), NoSigs: true, NoLog: true}
	for _, opt := range opts {
		opt(o)
	}
	s, err := server.NewServer(o)
	if err != nil {
		tb.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		tb.Fatal("embedded nats-server not ready after 10s")
	}
	tb.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// Connect opens a connection to s and its JetStream context, closed with
// the test: over TCP as any client would, or in process when the server
// does not listen (InProcessOnly).
func Connect(tb testing.TB, s *server.Server, opts ...jetstream.JetStreamOpt) (*nats.Conn, jetstream.JetStream) {
	tb.Helper()
	url, how := s.ClientURL(), []nats.Option(nil)
	if s.Addr() == nil {
		url, how = "", []nats.Option{nats.InProcessServer(s)}
	}
	nc, err := nats.Connect(url, how...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	js, err := jetstream.New(nc, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return nc, js
}

// Streams creates docket's streams with their default options (the
// "docket" prefix, one replica) on js, within 10 s.
func Streams(tb testing.TB, js jetstream.JetStream) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := protocol.EnsureStreams(ctx, js, protocol.StreamOptions{}); err != nil {
		tb.Fatal(err)
	}
}
