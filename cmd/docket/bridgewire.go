package main

import (
	"net/http"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

type jetstreamJS = jetstream.JetStream

// mountBridge adds the SSE bridge's routes (when the bridge package is
// wired in) to mux.
func mountBridge(mux *http.ServeMux, js jetstream.JetStream, qe queueEnv, log zerolog.Logger) error {
	return nil
}

func bridgeReady() error { return nil }
