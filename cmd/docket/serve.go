package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/docketjudge/docket/worker"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rs/zerolog"
)

func init() {
	register("serve", "the single-machine default: embedded NATS JetStream, workers, the SSE bridge, ./problems pushed", runServe)
}

// serveEnv is serve's own configuration.
type serveEnv struct {
	DataDir    string `envconfig:"DATA_DIR" default:"./.docket" desc:"embedded JetStream data directory (survives restarts)"`
	NatsListen string `envconfig:"NATS_LISTEN" default:"127.0.0.1:4222" desc:"embedded NATS client listener (empty: in-process only)"`
	BridgeAddr string `envconfig:"BRIDGE_ADDR" default:"127.0.0.1:8080" desc:"SSE bridge listener"`
	// NatsMonitor is off by default: the monitoring port has no
	// authentication and tells whoever reaches it every connection,
	// stream and consumer.
	NatsMonitor string `envconfig:"NATS_MONITOR" desc:"embedded NATS monitoring listener, host:port (/jsz, /varz, /connz, /healthz; no authentication: keep it on loopback, e.g. 127.0.0.1:8222); empty: off"`
}

func runServe(args []string) int {
	var se serveEnv
	if err := envProcess(&se); err != nil {
		fmt.Fprintln(stderr, "docket serve:", err)
		return exitUsage
	}
	fs := newFlags("serve", helpText{
		synopsis: "[--data DIR] [--problems DIR] [--workers N] [--feedback-policy samples|all|none]",
		about: "The single-machine default: an embedded NATS JetStream server, in-process workers, the SSE bridge,\n" +
			"and the packages under --problems pushed at start. Runs until SIGTERM or SIGINT.",
		example: "docket serve --workers 2",
	})
	data := fs.String("data", se.DataDir, "JetStream data directory")
	problems := fs.String("problems", "./problems", "directory of problem packages pushed at start (each subdirectory with a problem.yaml, or a CMS or TPS task folder's task.yaml or problem.json, and each such package zipped, a .zip file)")
	workers := fs.Int("workers", 1, "in-process workers (0 allowed)")
	feedback := fs.String("feedback-policy", "", feedbackFlag)
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	qe, err := loadQueueEnv()
	if err != nil {
		fmt.Fprintln(stderr, "docket serve:", err)
		return exitUsage
	}
	fb, err := workerFeedback(*feedback)
	if err != nil {
		fmt.Fprintln(stderr, "docket serve:", err)
		return exitUsage
	}
	log := qe.logger("serve")
	if qe.Replicas != 1 {
		// The embedded server is one node: JetStream refuses replicated
		// streams there (err_code 10074), so serve keeps one copy.
		log.Warn().Int("DOCKET_REPLICAS", qe.Replicas).Msg("docket serve runs one embedded NATS node: streams keep 1 replica")
		qe.Replicas = 1
	}
	ns, err := startEmbedded(*data, se.NatsListen, se.NatsMonitor, log)
	if err != nil {
		log.Error().Err(err).Msg("embedded NATS")
		return exitSystem
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := nats.Connect("", nats.InProcessServer(ns), nats.Name("docket-serve"))
	if err != nil {
		log.Error().Err(err).Msg("connect to the embedded server")
		return exitSystem
	}
	defer closeFlushed(nc)
	js, _ := jsFor(nc)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := protocol.EnsureStreams(ctx, js, protocol.StreamOptions{Prefix: qe.SubjectPrefix, Replicas: 1}); err != nil {
		log.Error().Err(err).Msg("streams")
		return exitSystem
	}
	pushAll(ctx, js, *problems, log)

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := worker.NewMetrics(reg)
	var ws []*worker.Worker
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wnc, err := nats.Connect("", nats.InProcessServer(ns), nats.Name("docket-worker-"+strconv.Itoa(i)))
		if err != nil {
			log.Error().Err(err).Msg("worker connection")
			return exitSystem
		}
		defer closeFlushed(wnc)
		w, release, err := startWorker(ctx, wnc, qe, fb, metrics, qe.logger("worker"))
		if err != nil {
			log.Error().Err(err).Msg("worker cannot start")
			return exitSystem
		}
		defer release()
		ws = append(ws, w)
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	ready := func() error {
		if !nc.IsConnected() {
			return errors.New("NATS not connected")
		}
		if _, err := js.Stream(context.Background(), protocol.JobsStream); err != nil {
			return fmt.Errorf("streams: %w", err)
		}
		for i, w := range ws {
			if err := w.Ready(); err != nil {
				return fmt.Errorf("worker %d: %w", i, err)
			}
		}
		return bridgeReady()
	}
	mux := http.NewServeMux()
	if err := mountBridge(mux, js, qe, *data, log); err != nil {
		log.Error().Err(err).Msg("bridge")
		return exitSystem
	}
	hs := healthServer(se.BridgeAddr, reg, ready)
	mux.Handle("/", hs.Handler)
	hs.Handler = mux
	ln, err := net.Listen("tcp", se.BridgeAddr)
	if err != nil {
		log.Error().Err(err).Msg("bridge listener")
		return exitSystem
	}
	if serveBridge != nil {
		hs.RegisterOnShutdown(serveBridge.CloseStreams)
	}
	go hs.Serve(ln)
	defer shutdownServer(hs)
	log.Info().Str("nats", se.NatsListen).Str("bridge", "http://"+ln.Addr().String()).Int("workers", *workers).Str("data", *data).
		Str("operator_token_file", filepath.Join(*data, "bridge-token")).Str("nats_monitor", se.NatsMonitor).Msg("docket serve ready")
	<-ctx.Done()
	log.Info().Msg("stopping: workers finish their jobs")
	wg.Wait()
	return exitOK
}

func startEmbedded(dataDir, listen, monitor string, log zerolog.Logger) (*server.Server, error) {
	opts := &server.Options{
		ServerName: "docket", JetStream: true, StoreDir: dataDir, NoSigs: true, NoLog: true,
		JetStreamMaxMemory: 256 << 20, JetStreamMaxStore: 10 << 30,
	}
	var err error
	if listen == "" {
		opts.DontListen = true
	} else if opts.Host, opts.Port, err = hostPort("DOCKET_NATS_LISTEN", listen); err != nil {
		return nil, err
	}
	if monitor != "" {
		if opts.HTTPHost, opts.HTTPPort, err = hostPort("DOCKET_NATS_MONITOR", monitor); err != nil {
			return nil, err
		}
		if opts.HTTPPort <= 0 || opts.HTTPPort > 65535 {
			// nats-server reads 0 as off and -1 as a random port: neither
			// is what an operator who set the variable asked for.
			return nil, fmt.Errorf("DOCKET_NATS_MONITOR %q: want a port from 1 to 65535", monitor)
		}
		if ip := net.ParseIP(opts.HTTPHost); opts.HTTPHost != "localhost" && (ip == nil || !ip.IsLoopback()) {
			log.Warn().Str("DOCKET_NATS_MONITOR", monitor).Msg("the NATS monitoring port has no authentication and is reachable beyond this machine")
		}
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, err
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("embedded NATS not ready after 10s (is the port in use?)")
	}
	return ns, nil
}

// hostPort splits a listener address of the variable name.
func hostPort(name, addr string) (string, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("%s %q: %w", name, addr, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return "", 0, fmt.Errorf("%s %q: %w", name, addr, err)
	}
	return host, p, nil
}

// pushAll pushes every package under dir; a broken one is logged and
// skipped, the others still served.
func pushAll(ctx context.Context, js jetstream.JetStream, dir string, log zerolog.Logger) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		log.Warn().Err(err).Str("dir", dir).Msg("no problems pushed")
		return
	}
	for _, e := range entries {
		pd := filepath.Join(dir, e.Name())
		if !problem.IsPackage(pd) && !servedZip(dir, e.Name(), log) {
			continue
		}
		p, _, err := pushPackage(ctx, js, pd, stderr)
		if err != nil {
			log.Error().Err(err).Str("problem", e.Name()).Msg("problem not pushed")
			continue
		}
		log.Info().Str("problem", p.ID).Int("tests", len(p.Tests)).Str("digest", p.Digest[:19]).Msg("problem pushed")
	}
}

// servedZip: name in the problems directory is a zip archive to push,
// unless a package directory of the same id is beside it, which wins.
func servedZip(dir, name string, log zerolog.Logger) bool {
	if !isZipFile(dir, name) {
		return false
	}
	if id, err := zipPackageID(name); err == nil && problem.IsPackage(filepath.Join(dir, id)) {
		log.Warn().Str("problem", name).Msg("zip archive not pushed: the package directory " + id + " beside it is")
		return false
	}
	return true
}
