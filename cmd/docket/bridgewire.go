package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/docketjudge/docket/bridge"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

func init() {
	register("bridge", "the SSE bridge against DOCKET_NATS_URL", runBridge)
	register("token", "mint a per-submission bridge token: docket token SUBMISSION_ID", runToken)
}

// bridgeEnv is the bridge's configuration.
type bridgeEnv struct {
	BridgeAddr   string        `envconfig:"BRIDGE_ADDR" default:"127.0.0.1:8080" desc:"bridge listener"`
	BridgeToken  string        `envconfig:"BRIDGE_TOKEN" desc:"operator bearer token (docket serve: generated in DATA_DIR/bridge-token when unset)"`
	BridgeSecret string        `envconfig:"BRIDGE_HMAC_SECRET" desc:"secret of per-submission tokens (docket serve: generated in DATA_DIR/bridge-hmac-secret when unset)"`
	BridgeCORS   []string      `envconfig:"BRIDGE_CORS_ORIGINS" desc:"origins allowed to read cross-origin, comma-separated (* for any)"`
	DataDir      string        `envconfig:"DATA_DIR" default:"./.docket" desc:"docket serve's data directory (where generated bridge secrets live)"`
	MaxConns     int           `envconfig:"BRIDGE_MAX_CONNS" default:"1024" desc:"concurrent event streams in total; more get 429"`
	MaxPerClient int           `envconfig:"BRIDGE_MAX_CONNS_PER_CLIENT" default:"8" desc:"concurrent event streams per client address; more get 429"`
	Heartbeat    time.Duration `envconfig:"BRIDGE_HEARTBEAT" default:"15s" desc:"interval of the SSE heartbeat comment"`
}

// secretFile returns the value, or the content of a file in dir, created
// with a random value when missing.
func secretFile(value, dir, name string) (string, error) {
	if value != "" {
		return value, nil
	}
	p := filepath.Join(dir, name)
	if b, err := os.ReadFile(p); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	b := make([]byte, 24)
	rand.Read(b)
	v := hex.EncodeToString(b)
	return v, os.WriteFile(p, []byte(v+"\n"), 0o600)
}

func newBridge(js jetstream.JetStream, qe queueEnv, be bridgeEnv, dataDir string, log zerolog.Logger) (*bridge.Bridge, error) {
	tok, err := secretFile(be.BridgeToken, dataDir, "bridge-token")
	if err != nil {
		return nil, err
	}
	sec, err := secretFile(be.BridgeSecret, dataDir, "bridge-hmac-secret")
	if err != nil {
		return nil, err
	}
	return bridge.New(js, bridgeConfig(qe, be, tok, sec, log))
}

// bridgeConfig is the bridge's configuration from the environment, with
// the operator token and HMAC secret given.
func bridgeConfig(qe queueEnv, be bridgeEnv, token, secret string, log zerolog.Logger) bridge.Config {
	return bridge.Config{Prefix: qe.SubjectPrefix, Token: token, HMACSecret: []byte(secret),
		CORSOrigins: be.BridgeCORS, Logger: log, CreateStreams: true,
		MaxConns: be.MaxConns, MaxConnsPerClient: be.MaxPerClient, Heartbeat: be.Heartbeat}
}

var serveBridge *bridge.Bridge

// mountBridge adds the bridge's routes to serve's mux.
func mountBridge(mux *http.ServeMux, js jetstream.JetStream, qe queueEnv, dataDir string, log zerolog.Logger) error {
	var be bridgeEnv
	if err := envProcess(&be); err != nil {
		return err
	}
	b, err := newBridge(js, qe, be, dataDir, log.With().Str("component", "bridge").Logger())
	if err != nil {
		return err
	}
	serveBridge = b
	mux.Handle("/v1/", b.Handler())
	mux.Handle("/watch/", b.Handler())
	return nil
}

func bridgeReady() error {
	if serveBridge == nil {
		return errors.New("bridge not started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return serveBridge.Ready(ctx)
}

func runBridge(args []string) int {
	fs := flag.NewFlagSet("bridge", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: docket bridge\n\nServes GET /v1/submissions/{id}/events (SSE), GET /v1/submissions/{id}, /watch/{id}, /livez, /readyz.\n")
		envUsageAll()
		usagef(&bridgeEnv{})
	}
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	qe, err := loadQueueEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "docket bridge:", err)
		return exitUsage
	}
	var be bridgeEnv
	if err := envProcess(&be); err != nil {
		fmt.Fprintln(os.Stderr, "docket bridge:", err)
		return exitUsage
	}
	if be.BridgeToken == "" && be.BridgeSecret == "" {
		fmt.Fprintln(os.Stderr, "docket bridge: set DOCKET_BRIDGE_TOKEN and/or DOCKET_BRIDGE_HMAC_SECRET")
		return exitUsage
	}
	log := qe.logger("bridge")
	nc, err := qe.connect("docket-bridge")
	if err != nil {
		log.Error().Err(err).Msg("no NATS")
		return exitSystem
	}
	defer nc.Drain()
	js, _ := jsFor(nc)
	b, err := bridge.New(js, bridgeConfig(qe, be, be.BridgeToken, be.BridgeSecret, log))
	if err != nil {
		log.Error().Err(err).Msg("bridge")
		return exitSystem
	}
	srv := &http.Server{Addr: be.BridgeAddr, Handler: b.Handler(), ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(b.CloseStreams) // open SSE streams would hold Shutdown up
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdownServer(srv)
	}()
	log.Info().Str("addr", be.BridgeAddr).Msg("bridge listening")
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error().Err(err).Msg("bridge")
		return exitSystem
	}
	return exitOK
}

func runToken(args []string) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(os.Stderr, "usage: docket token SUBMISSION_ID\n\nPrints the per-submission bridge token: hex(HMAC-SHA256(secret, \"docket-submission-v1:\" + id)),\nwith DOCKET_BRIDGE_HMAC_SECRET (or docket serve's DATA_DIR/bridge-hmac-secret).\n")
		usagef(&bridgeEnv{})
		if len(args) == 1 {
			return exitOK
		}
		return exitUsage
	}
	if !bridge.ValidID(args[0]) {
		fmt.Fprintln(os.Stderr, "docket token: invalid submission id")
		return exitUsage
	}
	var be bridgeEnv
	if err := envProcess(&be); err != nil {
		fmt.Fprintln(os.Stderr, "docket token:", err)
		return exitUsage
	}
	sec := be.BridgeSecret
	if sec == "" {
		b, err := os.ReadFile(filepath.Join(be.DataDir, "bridge-hmac-secret"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "docket token: set DOCKET_BRIDGE_HMAC_SECRET (or run docket serve first):", err)
			return exitUsage
		}
		sec = strings.TrimSpace(string(b))
	}
	fmt.Println(bridge.SubmissionToken([]byte(sec), args[0]))
	return exitOK
}
