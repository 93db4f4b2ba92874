package main

import (
	"context"
	"fmt"
	"github.com/docketjudge/docket/internal/termsafe"
	"net/http"
	"os"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"
)

// queueEnv is the queue side's configuration (DOCKET_*).
type queueEnv struct {
	NatsURL       string          `envconfig:"NATS_URL" default:"nats://127.0.0.1:4222" desc:"NATS server URL(s), comma-separated"`
	NatsCreds     string          `envconfig:"NATS_CREDS" desc:"NATS credentials file"`
	NatsToken     string          `envconfig:"NATS_TOKEN" desc:"NATS auth token"`
	NatsTLSCA     string          `envconfig:"NATS_TLS_CA" desc:"CA certificate for the NATS server"`
	NatsTLSCert   string          `envconfig:"NATS_TLS_CERT" desc:"client certificate for NATS"`
	NatsTLSKey    string          `envconfig:"NATS_TLS_KEY" desc:"client key for NATS"`
	SubjectPrefix string          `envconfig:"SUBJECT_PREFIX" default:"docket" desc:"prefix of every subject"`
	Queue         string          `envconfig:"QUEUE" default:"default" desc:"queue this worker takes jobs from, and docket submit publishes to (docket.jobs.<queue>.<submission_id>): 1-64 characters of [A-Za-z0-9_-]"`
	AckWait       time.Duration   `envconfig:"ACK_WAIT" default:"30s" desc:"time before an unacknowledged job is redelivered; heartbeats every third of it"`
	MaxDeliver    int             `envconfig:"MAX_DELIVER" default:"5" desc:"deliveries before a job gets a final SE result"`
	BackOff       []time.Duration `envconfig:"BACKOFF" desc:"redelivery delays after the 1st, 2nd, ... unacknowledged delivery, comma-separated (e.g. 10s,30s,2m; at most MAX_DELIVER entries); when set the server uses them in place of ACK_WAIT"`
	Replicas      int             `envconfig:"REPLICAS" default:"1" desc:"stream replicas: 1 on one server, 3 on a cluster"`
	Grace         time.Duration   `envconfig:"GRACE" default:"30s" desc:"SIGTERM: time to finish the current job; past it the job's sandbox run is killed and the job given back for another worker at once"`
	MetricsAddr   string          `envconfig:"METRICS_ADDR" default:"127.0.0.1:9090" desc:"worker /metrics, /livez, /readyz (empty: off)"`
	MaxSource     int             `envconfig:"MAX_SOURCE_BYTES" default:"131072" desc:"largest submission (all files) accepted: workers answer a larger one CE, docket submit refuses it; keep it under a sixth of the NATS server's max_payload (JSON may spell a byte in six)"`
	UnservedWait  time.Duration   `envconfig:"UNSERVED_AFTER" default:"10m" desc:"a job on a queue that no worker has ever served (a typo: docket.jobs.defualt) is answered SE after waiting this long and removed"`
	SubmitRetry   time.Duration   `envconfig:"SUBMIT_RETRY" default:"30s" desc:"docket submit: how long to retry a failed publish (same Nats-Msg-Id, so never enqueued twice) before giving up; 0: publish once"`
	CacheBytes    int64           `envconfig:"PROBLEM_CACHE_BYTES" default:"4294967296" desc:"size bound of the unpacked problem cache"`
	LogLevel      string          `envconfig:"LOG_LEVEL" default:"info" desc:"debug, info, warn, error"`
}

func loadQueueEnv() (queueEnv, error) {
	var e queueEnv
	err := envProcess(&e)
	return e, err
}

// streams are the stream options of this configuration: every process
// that may create a stream is given the same.
func (e queueEnv) streams() protocol.StreamOptions {
	return protocol.StreamOptions{Prefix: e.SubjectPrefix, Replicas: e.Replicas}
}

func (e queueEnv) logger(component string) zerolog.Logger {
	lvl, err := zerolog.ParseLevel(e.LogLevel)
	if err != nil {
		lvl = zerolog.InfoLevel
	}
	return zerolog.New(termsafe.JSONWriter(os.Stderr)).With().Timestamp().Str("component", component).Logger().Level(lvl)
}

// connect dials NATS with the options nats.go offers.
func (e queueEnv) connect(name string) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second)}
	if e.NatsCreds != "" {
		opts = append(opts, nats.UserCredentials(e.NatsCreds))
	}
	if e.NatsToken != "" {
		opts = append(opts, nats.Token(e.NatsToken))
	}
	if e.NatsTLSCA != "" {
		opts = append(opts, nats.RootCAs(e.NatsTLSCA))
	}
	if e.NatsTLSCert != "" {
		opts = append(opts, nats.ClientCert(e.NatsTLSCert, e.NatsTLSKey))
	}
	nc, err := nats.Connect(e.NatsURL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w", e.NatsURL, err)
	}
	return nc, nil
}

// closeFlushed closes a connection once what it sent has reached the
// server: a job's last ack, sent just before the process exits, must not
// be lost with the process (nats.Conn.Drain only starts draining and
// returns, so a process that exits after it may lose it).
func closeFlushed(nc *nats.Conn) {
	nc.FlushTimeout(5 * time.Second)
	nc.Close()
}

func jsFor(nc *nats.Conn) (jetstream.JetStream, error) { return jetstream.New(nc) }

// healthServer serves /metrics, /livez and /readyz.
func healthServer(addr string, reg *prometheus.Registry, ready func() error) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/livez", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := ready(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	return &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
}

func shutdownServer(s *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.Shutdown(ctx)
}
