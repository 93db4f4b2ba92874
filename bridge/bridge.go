package bridge

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// Defaults of Config.
const (
	DefaultMaxConnsPerClient = 8
	DefaultMaxConns          = 1024
	DefaultMaxConnsPerToken  = 8
	DefaultHeartbeat         = 15 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultMaxBacklog        = 256
)

// Fixed tunables.
const (
	// consumerInactive is the ordered consumers' InactiveThreshold: the
	// server drops a consumer nobody pulls from for this long, which covers
	// a bridge that died without deleting its consumers.
	consumerInactive = 30 * time.Second
	// retryMillis is the reconnect delay the bridge asks EventSource for.
	retryMillis = 1000
	// apiTimeout bounds one JetStream API call made for a request.
	apiTimeout = 10 * time.Second
	// liveBatch is how many events the live consumer buffers at most.
	liveBatch = 256
)

// Config configures a Bridge. The zero value of every field but Token and
// HMACSecret is usable; at least one of those two must be set.
type Config struct {
	// Prefix of the subjects (DOCKET_SUBJECT_PREFIX), default "docket".
	Prefix string
	// Token is the operator bearer token (DOCKET_BRIDGE_TOKEN): it reads
	// every submission, and only from the Authorization header. Empty:
	// operator access is disabled.
	Token string
	// HMACSecret is the key of per-submission tokens, used as given (see
	// SubmissionToken; SecretKey turns a secret's text, as in
	// DOCKET_BRIDGE_HMAC_SECRET or a file, into it). Empty:
	// per-submission tokens are disabled.
	HMACSecret []byte
	// MaxConnsPerClient and MaxConns bound the concurrent SSE streams per
	// client address (see TrustedProxies) and in total (defaults 8 and
	// 1024; negative: unlimited).
	MaxConnsPerClient, MaxConns int
	// MaxConnsPerToken bounds the concurrent SSE streams opened with one
	// per-submission token (default 8; negative: unlimited), so that a
	// token handed to a browser, or leaked, cannot take a hall's worth of
	// streams even where many clients share one address. The operator
	// token is bounded by MaxConns only: a backend may relay many streams
	// through it.
	MaxConnsPerToken int
	// Heartbeat is the interval of the SSE comment heartbeat, default 15s.
	Heartbeat time.Duration
	// WriteTimeout bounds one write to an event stream, default 30s: a
	// client that stops reading is cut when its socket buffers are full
	// for that long, instead of holding a stream slot forever.
	WriteTimeout time.Duration
	// MaxBacklog is how many events a stream may fall behind its
	// submission, default 256: a client further behind after a write that
	// blocked for a second (it does not read) is dropped with a
	// ": dropped" comment saying why, and resumes with Last-Event-ID.
	MaxBacklog int
	// CORSOrigins are the Origins allowed to read cross-origin ("*" for
	// any). Default none.
	CORSOrigins []string
	// Logger receives the bridge's logs; the zero Logger discards them.
	Logger zerolog.Logger

	// CreateStreams makes New create the protocol's streams that are
	// missing, with Streams (the same configuration a worker given the
	// same options creates), so that the bridge can start before any
	// worker. Existing streams are left as they are.
	CreateStreams bool
	// Streams sizes the streams CreateStreams creates: give it the
	// workers' replicas and ages. Its Prefix is Config's.
	Streams protocol.StreamOptions
	// TrustedProxies are the reverse proxies (addresses and CIDRs, see
	// ParseTrustedProxies) whose forwarding header names the client for
	// MaxConnsPerClient. Empty: the header is ignored and the client is
	// the TCP peer.
	TrustedProxies []netip.Prefix
	// ForwardedHeader is the header the trusted proxies write:
	// HeaderXForwardedFor (the default) or HeaderForwarded (RFC 7239,
	// its for= parameters). Only one is read, the one the proxies are
	// known to write: a client can send the other unchanged through them.
	ForwardedHeader string
	// ClientIP names the client of a request for MaxConnsPerClient,
	// replacing the rule of TrustedProxies (for tests, or a proxy that
	// speaks neither header).
	ClientIP func(r *http.Request) string
}

// Bridge serves the HTTP side. Create it with New.
type Bridge struct {
	js        jetstream.JetStream
	cfg       Config
	log       zerolog.Logger
	opHash    [32]byte // sha256 of the operator token
	anyOrigin bool
	origins   map[string]bool

	mu      sync.Mutex
	perIP   map[string]int
	perTok  map[string]int
	total   int
	streams map[*sseStream]struct{}
	handles map[string]jetstream.Stream

	hub hub
}

// New returns a bridge reading from js. With cfg.CreateStreams it creates
// the streams that are missing, within 10 s.
func New(js jetstream.JetStream, cfg Config) (*Bridge, error) {
	if js == nil {
		return nil, errors.New("bridge: nil JetStream")
	}
	if cfg.Token == "" && len(cfg.HMACSecret) == 0 {
		return nil, errors.New("bridge: neither an operator token nor an HMAC secret is set, so nobody could read anything")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = protocol.DefaultPrefix
	}
	if !protocol.ValidPrefix(cfg.Prefix) {
		return nil, fmt.Errorf("bridge: invalid subject prefix %q", cfg.Prefix)
	}
	if cfg.MaxConnsPerClient == 0 {
		cfg.MaxConnsPerClient = DefaultMaxConnsPerClient
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.MaxConnsPerToken == 0 {
		cfg.MaxConnsPerToken = DefaultMaxConnsPerToken
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.MaxBacklog <= 0 {
		cfg.MaxBacklog = DefaultMaxBacklog
	}
	cfg.Streams.Prefix = cfg.Prefix
	cfg.Streams = cfg.Streams.WithDefaults()
	switch http.CanonicalHeaderKey(cfg.ForwardedHeader) {
	case "", HeaderXForwardedFor:
		cfg.ForwardedHeader = HeaderXForwardedFor
	case HeaderForwarded:
		cfg.ForwardedHeader = HeaderForwarded
	default:
		return nil, fmt.Errorf("bridge: forwarded header %q: want %s or %s", cfg.ForwardedHeader, HeaderXForwardedFor, HeaderForwarded)
	}
	b := &Bridge{
		js:      js,
		cfg:     cfg,
		log:     cfg.Logger,
		origins: map[string]bool{},
		perIP:   map[string]int{},
		perTok:  map[string]int{},
		streams: map[*sseStream]struct{}{},
		handles: map[string]jetstream.Stream{},
		hub:     hub{feeds: map[string]*feed{}},
	}
	if b.cfg.ClientIP == nil {
		b.cfg.ClientIP = b.clientAddr
	}
	if cfg.Token != "" {
		b.opHash = sha256.Sum256([]byte(cfg.Token))
	}
	for _, o := range cfg.CORSOrigins {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		if o == "*" {
			b.anyOrigin = true
		} else if o != "" {
			b.origins[o] = true
		}
	}
	if cfg.CreateStreams {
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		if err := b.EnsureStreams(ctx); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// EnsureStreams creates the protocol's streams that do not exist
// (protocol.CreateMissingStreams with Config.Streams). It never changes an
// existing stream, so it is safe to call from every replica and next to
// workers, which own the streams' configuration.
func (b *Bridge) EnsureStreams(ctx context.Context) error {
	if err := protocol.CreateMissingStreams(ctx, b.js, b.cfg.Streams); err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	return nil
}

// Ready reports whether the bridge can serve: the NATS connection is up
// and both streams exist. The error says what is missing.
func (b *Bridge) Ready(ctx context.Context) error {
	nc := b.js.Conn()
	if nc == nil {
		return errors.New("no NATS connection")
	}
	if !nc.IsConnected() {
		return fmt.Errorf("NATS connection is %s", strings.ToLower(nc.Status().String()))
	}
	for _, name := range []string{protocol.EventsStream, protocol.ResultsStream} {
		if _, err := b.stream(ctx, name, true); err != nil {
			if errors.Is(err, jetstream.ErrStreamNotFound) {
				return fmt.Errorf("stream %s does not exist", name)
			}
			return fmt.Errorf("stream %s: %w", name, err)
		}
	}
	return nil
}

// CloseStreams ends every open SSE stream now; clients reconnect with
// Last-Event-ID (to this or another replica). Call it when shutting down,
// e.g. with http.Server.RegisterOnShutdown, since Shutdown itself waits
// for streams that would otherwise never end.
func (b *Bridge) CloseStreams() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.streams {
		s.cancel()
	}
}

// stream returns a handle on a stream, cached; fresh asks the server again.
func (b *Bridge) stream(ctx context.Context, name string, fresh bool) (jetstream.Stream, error) {
	b.mu.Lock()
	h := b.handles[name]
	b.mu.Unlock()
	if h != nil && !fresh {
		return h, nil
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	h, err := b.js.Stream(ctx, name)
	if err != nil {
		b.forget(name)
		return nil, err
	}
	b.mu.Lock()
	b.handles[name] = h
	b.mu.Unlock()
	return h, nil
}

func (b *Bridge) forget(name string) {
	b.mu.Lock()
	delete(b.handles, name)
	b.mu.Unlock()
}

// lastMsg is the last message on subject in stream name, nil when there
// is none.
func (b *Bridge) lastMsg(ctx context.Context, name, subject string) (*jetstream.RawStreamMsg, error) {
	h, err := b.stream(ctx, name, false)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	m, err := h.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		b.forget(name) // the stream may have been recreated differently
		return nil, err
	}
	return m, nil
}

func (b *Bridge) subjects() protocol.Subjects { return protocol.Subjects{Prefix: b.cfg.Prefix} }

// Handler returns the bridge's HTTP handler.
func (b *Bridge) Handler() http.Handler { return http.HandlerFunc(b.serveHTTP) }

type route int

const (
	routeNone route = iota
	routeLivez
	routeReadyz
	routeResult
	routeEvents
	routeWatch
)

// match maps a path to a route and the submission id it names (not yet
// validated).
func match(path string) (route, string) {
	switch path {
	case "/livez":
		return routeLivez, ""
	case "/readyz":
		return routeReadyz, ""
	}
	if rest, ok := strings.CutPrefix(path, "/v1/submissions/"); ok {
		if id, ok := strings.CutSuffix(rest, "/events"); ok && id != "" && !strings.Contains(id, "/") {
			return routeEvents, id
		}
		if rest != "" && !strings.Contains(rest, "/") {
			return routeResult, rest
		}
		return routeNone, ""
	}
	if id, ok := strings.CutPrefix(path, "/watch/"); ok && id != "" && !strings.Contains(id, "/") {
		return routeWatch, id
	}
	return routeNone, ""
}

func (b *Bridge) serveHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			b.log.Error().Interface("panic", v).Str("path", r.URL.Path).Msg("bridge: handler panicked")
			writeError(w, http.StatusInternalServerError, "internal error")
		}
	}()
	rt, id := match(r.URL.Path)
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if !b.cors(w, r, preflight) {
		writeError(w, http.StatusForbidden, "origin not allowed")
		return
	}
	if rt == routeNone {
		writeError(w, http.StatusNotFound, "no such route: "+r.URL.Path)
		return
	}
	allow := "GET, OPTIONS"
	if rt == routeLivez || rt == routeReadyz {
		allow = "GET, HEAD, OPTIONS"
	}
	switch {
	case r.Method == http.MethodOptions:
		w.Header().Set("Allow", allow)
		w.WriteHeader(http.StatusNoContent)
		return
	case r.Method == http.MethodGet:
	case r.Method == http.MethodHead && (rt == routeLivez || rt == routeReadyz):
	default:
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed; use GET")
		return
	}
	switch rt {
	case routeLivez:
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return
	case routeReadyz:
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if err := b.Ready(ctx); err != nil {
			writeError(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
		return
	}
	if !protocol.ValidID(id) {
		writeError(w, http.StatusBadRequest, "invalid submission id: want 1-128 characters of [A-Za-z0-9_-]")
		return
	}
	status, msg, who, tok := b.authorize(r, id)
	if status != http.StatusOK {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="docket"`)
		}
		writeError(w, status, msg)
		return
	}
	switch rt {
	case routeResult:
		b.serveResult(w, r, id, who)
	case routeEvents:
		b.serveEvents(w, r, id, who, tok)
	case routeWatch:
		serveWatch(w, r)
	}
}

// authorize checks the request's tokens for submission id: 200 and whom
// the answer is for (the jury with the operator token, the contestant
// with a per-submission token, which tok is then, in lower case), 401
// when there is no token, 403 when none opens id.
func (b *Bridge) authorize(r *http.Request, id string) (status int, msg string, who viewer, tok string) {
	var header string
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
			return http.StatusUnauthorized, "the Authorization header must be \"Bearer <token>\"", contestant, ""
		}
		header = strings.TrimSpace(tok)
	}
	query := r.URL.Query().Get("token")
	if header == "" && query == "" {
		return http.StatusUnauthorized, "a token is needed: Authorization: Bearer <token>, or ?token=<token>", contestant, ""
	}
	if header != "" && b.isOperator(header) {
		return http.StatusOK, "", jury, ""
	}
	if header != "" && b.opensSubmission(header, id) {
		return http.StatusOK, "", contestant, strings.ToLower(header)
	}
	if query != "" && b.opensSubmission(query, id) {
		return http.StatusOK, "", contestant, strings.ToLower(query)
	}
	return http.StatusForbidden, "this token does not give access to submission " + id, contestant, ""
}

func (b *Bridge) isOperator(tok string) bool {
	if b.cfg.Token == "" {
		return false
	}
	h := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(h[:], b.opHash[:]) == 1
}

func (b *Bridge) opensSubmission(tok, id string) bool {
	if len(b.cfg.HMACSecret) == 0 {
		return false
	}
	return tokenOpens(b.cfg.HMACSecret, tok, id, time.Now())
}

// cors sets the CORS headers of an allowed origin and answers a
// preflight. It returns false for a preflight from an origin that is not
// allowed.
func (b *Bridge) cors(w http.ResponseWriter, r *http.Request, preflight bool) bool {
	origin := r.Header.Get("Origin")
	if !b.anyOrigin && len(b.origins) > 0 {
		w.Header().Add("Vary", "Origin")
	}
	if origin == "" {
		return true
	}
	h := w.Header()
	switch {
	case b.anyOrigin:
		h.Set("Access-Control-Allow-Origin", "*")
	case b.origins[origin]:
		h.Set("Access-Control-Allow-Origin", origin)
	default:
		return !preflight
	}
	if preflight {
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Last-Event-ID, Cache-Control")
		h.Set("Access-Control-Max-Age", "600")
	}
	return true
}

// acquire takes a stream slot for client ip and per-submission token tok
// ("" for the operator token).
func (b *Bridge) acquire(ip, tok string) (release func(), msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cfg.MaxConns > 0 && b.total >= b.cfg.MaxConns {
		return nil, fmt.Sprintf("too many event streams on this bridge (limit %d)", b.cfg.MaxConns)
	}
	if b.cfg.MaxConnsPerClient > 0 && b.perIP[ip] >= b.cfg.MaxConnsPerClient {
		return nil, fmt.Sprintf("too many concurrent event streams from this client (limit %d)", b.cfg.MaxConnsPerClient)
	}
	if tok != "" && b.cfg.MaxConnsPerToken > 0 && b.perTok[tok] >= b.cfg.MaxConnsPerToken {
		return nil, fmt.Sprintf("too many concurrent event streams with this token (limit %d)", b.cfg.MaxConnsPerToken)
	}
	b.total++
	b.perIP[ip]++
	if tok != "" {
		b.perTok[tok]++
	}
	var once sync.Once
	return func() { once.Do(func() { b.release(ip, tok) }) }, ""
}

func (b *Bridge) release(ip, tok string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total--
	if b.perIP[ip]--; b.perIP[ip] <= 0 {
		delete(b.perIP, ip)
	}
	if tok == "" {
		return
	}
	if b.perTok[tok]--; b.perTok[tok] <= 0 {
		delete(b.perTok, tok)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	writeRawJSON(w, status, body)
}

func writeRawJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(body)
	if len(body) > 0 && body[len(body)-1] != '\n' {
		w.Write([]byte{'\n'})
	}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
