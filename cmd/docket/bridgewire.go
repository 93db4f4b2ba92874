package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/docketjudge/docket/bridge"
	"github.com/docketjudge/docket/protocol"
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
	BridgeSecret string        `envconfig:"BRIDGE_HMAC_SECRET" desc:"secret of per-submission tokens; the key is its text without leading and trailing spaces, tabs, CRs and LFs (docket serve: generated in DATA_DIR/bridge-hmac-secret when unset)"`
	BridgeCORS   []string      `envconfig:"BRIDGE_CORS_ORIGINS" desc:"origins allowed to read cross-origin, comma-separated (* for any)"`
	DataDir      string        `envconfig:"DATA_DIR" default:"./.docket" desc:"docket serve's data directory (where generated bridge secrets live)"`
	MaxConns     int           `envconfig:"BRIDGE_MAX_CONNS" default:"1024" desc:"concurrent event streams in total; more get 429"`
	MaxPerClient int           `envconfig:"BRIDGE_MAX_CONNS_PER_CLIENT" default:"8" desc:"concurrent event streams per client address; more get 429"`
	MaxPerToken  int           `envconfig:"BRIDGE_MAX_CONNS_PER_TOKEN" default:"8" desc:"concurrent event streams per per-submission token (the operator token is bounded by BRIDGE_MAX_CONNS only); more get 429"`
	Proxies      []string      `envconfig:"BRIDGE_TRUSTED_PROXIES" desc:"reverse proxies (addresses and CIDRs, comma-separated) whose forwarding header names the client for BRIDGE_MAX_CONNS_PER_CLIENT: the right-most address in it that is not one of them; empty: the header is ignored"`
	ProxyHeader  string        `envconfig:"BRIDGE_FORWARDED_HEADER" default:"X-Forwarded-For" desc:"the header the trusted proxies write: X-Forwarded-For or Forwarded (RFC 7239 for=)"`
	Heartbeat    time.Duration `envconfig:"BRIDGE_HEARTBEAT" default:"15s" desc:"interval of the SSE heartbeat comment"`
}

// secretFile returns the value, or the content of a file in dir, created
// with a random value when missing; either trimmed as bridge.SecretKey
// trims, the one rule for which bytes a secret is.
func secretFile(value, dir, name string) (string, error) {
	if v := string(bridge.SecretKey(value)); v != "" {
		return v, nil
	}
	p := filepath.Join(dir, name)
	if b, err := os.ReadFile(p); err == nil && len(bridge.SecretKey(string(b))) > 0 {
		return string(bridge.SecretKey(string(b))), nil
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
	cfg, err := bridgeConfig(qe, be, tok, sec, log)
	if err != nil {
		return nil, err
	}
	return bridge.New(js, cfg)
}

// bridgeConfig is the bridge's configuration from the environment, with
// the operator token and HMAC secret given.
func bridgeConfig(qe queueEnv, be bridgeEnv, token, secret string, log zerolog.Logger) (bridge.Config, error) {
	proxies, err := bridge.ParseTrustedProxies(be.Proxies)
	if err != nil {
		return bridge.Config{}, fmt.Errorf("DOCKET_BRIDGE_TRUSTED_PROXIES: %w", err)
	}
	if h := http.CanonicalHeaderKey(be.ProxyHeader); h != bridge.HeaderXForwardedFor && h != bridge.HeaderForwarded {
		return bridge.Config{}, fmt.Errorf("DOCKET_BRIDGE_FORWARDED_HEADER: forwarded header %q: want %s or %s", be.ProxyHeader, bridge.HeaderXForwardedFor, bridge.HeaderForwarded)
	}
	return bridge.Config{Prefix: qe.SubjectPrefix, Token: token, HMACSecret: []byte(secret),
		CORSOrigins: be.BridgeCORS, Logger: log, CreateStreams: true, Streams: qe.streams(),
		MaxConns: be.MaxConns, MaxConnsPerClient: be.MaxPerClient, MaxConnsPerToken: be.MaxPerToken,
		TrustedProxies: proxies, ForwardedHeader: be.ProxyHeader, Heartbeat: be.Heartbeat}, nil
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
	fs := newFlags("bridge", helpText{
		about:   "Serves GET /v1/submissions/{id}/events (SSE), GET /v1/submissions/{id}, /watch/{id}, /livez, /readyz\nfrom the streams on DOCKET_NATS_URL. Runs until SIGTERM or SIGINT.",
		example: "DOCKET_BRIDGE_HMAC_SECRET=... docket bridge",
	})
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	qe, err := loadQueueEnv()
	if err != nil {
		fmt.Fprintln(stderr, "docket bridge:", err)
		return exitUsage
	}
	var be bridgeEnv
	if err := envProcess(&be); err != nil {
		fmt.Fprintln(stderr, "docket bridge:", err)
		return exitUsage
	}
	if be.BridgeToken == "" && be.BridgeSecret == "" {
		fmt.Fprintln(stderr, "docket bridge: set DOCKET_BRIDGE_TOKEN and/or DOCKET_BRIDGE_HMAC_SECRET")
		return exitUsage
	}
	log := qe.logger("bridge")
	cfg, err := bridgeConfig(qe, be, string(bridge.SecretKey(be.BridgeToken)), string(bridge.SecretKey(be.BridgeSecret)), log)
	if err != nil {
		fmt.Fprintln(stderr, "docket bridge:", err)
		return exitUsage
	}
	nc, err := qe.connect("docket-bridge")
	if err != nil {
		log.Error().Err(err).Msg("no NATS")
		return exitSystem
	}
	defer closeFlushed(nc)
	js, _ := jsFor(nc)
	b, err := bridge.New(js, cfg)
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

const tokenUsage = `Prints the per-submission bridge token (bridge/README.md, "Access"):
  hex(HMAC-SHA256(key, "docket-submission-v1:" + id))
or with --valid-for, one the bridge refuses from now + DURATION on:
  E + "." + hex(HMAC-SHA256(key, "docket-submission-until-v1:" + E + ":" + id)), E in Unix seconds.
The key is DOCKET_BRIDGE_HMAC_SECRET (else docket serve's DATA_DIR/bridge-hmac-secret)
without leading or trailing spaces, tabs, CRs and LFs.
`

func runToken(args []string) int {
	fs := newFlags("token", helpText{
		synopsis: "[--valid-for DURATION] SUBMISSION_ID",
		about:    tokenUsage,
		example:  "docket token --valid-for 2h s-1a2b3c",
	})
	validFor := fs.Duration("valid-for", 0, "the token expires this long from now (0: no expiry)")
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 || !protocol.ValidID(fs.Arg(0)) || *validFor < 0 {
		fmt.Fprintln(stderr, "docket token: want one valid submission id, and a --valid-for that is not negative")
		fs.Usage()
		return exitUsage
	}
	key, err := tokenKey()
	if err != nil {
		fmt.Fprintln(stderr, "docket token:", err)
		return exitUsage
	}
	if *validFor > 0 {
		fmt.Fprintln(stdout, bridge.SubmissionTokenUntil(key, fs.Arg(0), time.Now().Add(*validFor)))
	} else {
		fmt.Fprintln(stdout, bridge.SubmissionToken(key, fs.Arg(0)))
	}
	return exitOK
}

// tokenKey is the key of per-submission tokens: DOCKET_BRIDGE_HMAC_SECRET,
// else docket serve's generated file, trimmed by the one rule.
func tokenKey() ([]byte, error) {
	var be bridgeEnv
	if err := envProcess(&be); err != nil {
		return nil, err
	}
	if key := bridge.SecretKey(be.BridgeSecret); len(key) > 0 {
		return key, nil
	}
	b, err := os.ReadFile(filepath.Join(be.DataDir, "bridge-hmac-secret"))
	if err != nil {
		return nil, fmt.Errorf("set DOCKET_BRIDGE_HMAC_SECRET (or run docket serve first): %w", err)
	}
	if key := bridge.SecretKey(string(b)); len(key) > 0 {
		return key, nil
	}
	return nil, errors.New("the secret file holds only white space")
}
