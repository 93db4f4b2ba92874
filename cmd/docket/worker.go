package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/docketjudge/docket/worker"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rs/zerolog"
)

func init() {
	register("worker", "one judge worker against DOCKET_NATS_URL", runWorker)
}

func runWorker(args []string) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: docket worker\n\nPulls jobs from docket.jobs.<queue> one at a time, judges them, publishes events and results.\nSIGTERM: stops fetching, finishes the current job within DOCKET_GRACE, else gives it back; exit 0.\n")
		envUsageAll()
	}
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	qe, err := loadQueueEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "docket worker:", err)
		return exitUsage
	}
	log := qe.logger("worker")
	nc, err := qe.connect("docket-worker")
	if err != nil {
		log.Error().Err(err).Msg("no NATS")
		return exitSystem
	}
	defer nc.Drain()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := worker.NewMetrics(reg)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	w, release, err := startWorker(ctx, nc, qe, metrics, log)
	if err != nil {
		log.Error().Err(err).Msg("worker cannot start")
		return exitSystem
	}
	defer release()
	if qe.MetricsAddr != "" {
		hs := healthServer(qe.MetricsAddr, reg, w.Ready)
		go func() {
			if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error().Err(err).Msg("metrics server")
			}
		}()
		defer shutdownServer(hs)
	}
	if err := w.Run(ctx); err != nil {
		log.Error().Err(err).Msg("worker failed")
		return exitSystem
	}
	return exitOK
}

const startTries = 5

// startWorker builds a worker with its own sandbox slot.
func startWorker(ctx context.Context, nc *nats.Conn, qe queueEnv, m *worker.Metrics, log zerolog.Logger) (*worker.Worker, func(), error) {
	j, release, err := newJudge()
	if err != nil {
		return nil, nil, err
	}
	_, le, _ := loadCatalog()
	cache := le.CacheDir
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "docket-cache")
	}
	name, _ := os.Hostname()
	cfg := worker.Config{
		Name: fmt.Sprintf("%s-%d-s%d", name, os.Getpid(), j.Slot.N), Prefix: qe.SubjectPrefix, Queue: qe.Queue,
		AckWait: qe.AckWait, MaxDeliver: qe.MaxDeliver, BackOff: qe.BackOff, Replicas: qe.Replicas, MaxSource: qe.MaxSource,
		Grace: qe.Grace, CacheDir: filepath.Join(cache, "problems"), CacheBytes: qe.CacheBytes,
		InlineDir: os.TempDir(), Logger: log.With().Int("slot", j.Slot.N).Logger(), Metrics: m, EnsureInfra: true,
	}
	// A cluster in the middle of an election can let the streams' set-up
	// time out; a few tries spare the worker a restart by its supervisor.
	var w *worker.Worker
	for try := 1; ; try++ {
		w, err = worker.New(ctx, nc, j, cfg)
		if err == nil || try == startTries || ctx.Err() != nil {
			break
		}
		log.Warn().Err(err).Int("try", try).Msg("streams or consumer not set up; retrying")
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	return w, release, nil
}

func envUsageAll() {
	envUsage()
	for _, spec := range []any{&queueEnv{}} {
		usagef(spec)
	}
}
