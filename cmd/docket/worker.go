package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/docketjudge/docket/verdict/problem"
	"github.com/docketjudge/docket/worker"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rs/zerolog"
)

func init() {
	register("worker", "one judge worker against DOCKET_NATS_URL", runWorker)
}

// workerEnv is the worker's own part of the configuration (DOCKET_*).
type workerEnv struct {
	Mode           string `envconfig:"WORKER_MODE" desc:"judge (the default), or capacity-test-no-judging: acks every job with verdict SE, not judged, to measure the queue alone; never on a real queue"`
	FeedbackPolicy string `envconfig:"FEEDBACK_POLICY" default:"samples" desc:"the feedback policy of jobs and problem packages that set none: samples (a contestant sees the details of sample tests only), all, or none (verdict, time and memory only); the operator always sees everything; --feedback-policy overrides it"`
}

// feedbackFlag is the usage of --feedback-policy, for worker and serve.
const feedbackFlag = "default feedback policy for jobs and packages that set none: samples, all or none (default DOCKET_FEEDBACK_POLICY, else samples)"

// workerFeedback is the workers' default feedback policy: --feedback-policy
// when given, else DOCKET_FEEDBACK_POLICY. An unknown value in either is
// an error naming where it came from (even one the flag overrides: a
// configuration that does not parse is refused, not half used): a guess
// could show secret tests' details to every contestant.
func workerFeedback(flagValue string) (problem.FeedbackPolicy, error) {
	var e workerEnv
	if err := envProcess(&e); err != nil {
		return "", err
	}
	p, err := problem.ParseFeedbackPolicy(e.FeedbackPolicy)
	if err != nil {
		return "", fmt.Errorf("DOCKET_FEEDBACK_POLICY: %w", err)
	}
	if flagValue != "" {
		if p, err = problem.ParseFeedbackPolicy(flagValue); err != nil {
			return "", fmt.Errorf("--feedback-policy: %w", err)
		}
	}
	if p == "" { // DOCKET_FEEDBACK_POLICY set to nothing
		p = problem.DefaultFeedback
	}
	return p, nil
}

// workerMode is the mode that the flag and DOCKET_WORKER_MODE ask for,
// each by its full name; an unknown value or the two disagreeing is an
// error, never a guess.
func workerMode(capacityFlag bool) (worker.Mode, error) {
	var e workerEnv
	if err := envProcess(&e); err != nil {
		return "", err
	}
	mode, err := worker.ParseMode(e.Mode)
	if err != nil {
		return "", fmt.Errorf("DOCKET_WORKER_MODE: %w", err)
	}
	if capacityFlag {
		if e.Mode != "" && mode != worker.ModeCapacityTest {
			return "", fmt.Errorf("--%s contradicts DOCKET_WORKER_MODE=%s", worker.ModeCapacityTest, e.Mode)
		}
		mode = worker.ModeCapacityTest
	}
	return mode, nil
}

func runWorker(args []string) int {
	fs := newFlags("worker", helpText{
		synopsis: "[--" + string(worker.ModeCapacityTest) + "] [--feedback-policy samples|all|none]",
		about: "Pulls jobs from docket.jobs.<queue>.<submission_id> one at a time, judges them, publishes events and results.\n" +
			"SIGTERM: stops fetching, finishes the current job within DOCKET_GRACE, else kills its run and gives it back at once; exit 0.",
		example: "DOCKET_NATS_URL=nats://nats:4222 DOCKET_QUEUE=default docket worker",
	})
	capacity := fs.Bool(string(worker.ModeCapacityTest), false, "capacity tests only: judge nothing, ack every job with verdict SE \"not judged\" (same as DOCKET_WORKER_MODE="+string(worker.ModeCapacityTest)+")")
	feedback := fs.String("feedback-policy", "", feedbackFlag)
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	mode, err := workerMode(*capacity)
	if err != nil {
		fmt.Fprintln(stderr, "docket worker:", err)
		return exitUsage
	}
	fb, err := workerFeedback(*feedback)
	if err != nil {
		fmt.Fprintln(stderr, "docket worker:", err)
		return exitUsage
	}
	qe, err := loadQueueEnv()
	if err != nil {
		fmt.Fprintln(stderr, "docket worker:", err)
		return exitUsage
	}
	log := qe.logger("worker")
	nc, err := qe.connect("docket-worker")
	if err != nil {
		log.Error().Err(err).Msg("no NATS")
		return exitSystem
	}
	defer closeFlushed(nc)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := worker.NewMetrics(reg)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	var w *worker.Worker
	release := func() {}
	if mode == worker.ModeCapacityTest {
		// No sandbox: nothing is run, so none is probed or set up.
		w, err = newWorker(ctx, nc, qe, worker.NotJudging(), "capacity-test", mode, fb, metrics, log)
	} else {
		w, release, err = startWorker(ctx, nc, qe, fb, metrics, log)
	}
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

// startWorker builds a judging worker with its own sandbox slot.
func startWorker(ctx context.Context, nc *nats.Conn, qe queueEnv, fb problem.FeedbackPolicy, m *worker.Metrics, log zerolog.Logger) (*worker.Worker, func(), error) {
	j, release, err := newJudge(0)
	if err != nil {
		return nil, nil, err
	}
	w, err := newWorker(ctx, nc, qe, worker.Judging(j), fmt.Sprintf("s%d", j.Slot.N), worker.ModeJudge, fb, m, log.With().Int("slot", j.Slot.N).Logger())
	if err != nil {
		release()
		return nil, nil, err
	}
	return w, release, nil
}

// newWorker configures a worker from the environment with its judger
// (the mode's); its id is host-pid-suffix (the sandbox slot, or the mode
// when nothing is judged).
func newWorker(ctx context.Context, nc *nats.Conn, qe queueEnv, j worker.Judger, suffix string, mode worker.Mode, fb problem.FeedbackPolicy, m *worker.Metrics, log zerolog.Logger) (*worker.Worker, error) {
	_, le, _ := loadCatalog()
	name, _ := os.Hostname()
	cfg := worker.Config{
		Name: fmt.Sprintf("%s-%d-%s", name, os.Getpid(), suffix), Prefix: qe.SubjectPrefix, Queue: qe.Queue,
		AckWait: qe.AckWait, MaxDeliver: qe.MaxDeliver, BackOff: qe.BackOff, Replicas: qe.Replicas, MaxSource: qe.MaxSource,
		Grace: qe.Grace, CacheDir: filepath.Join(le.CacheDir, "problems"), CacheBytes: qe.CacheBytes,
		InlineDir: le.WorkDir, Logger: log, Metrics: m, EnsureInfra: true, Mode: mode, Feedback: fb,
		UnservedWait: qe.UnservedWait,
	}
	// A cluster in the middle of an election can let the streams' set-up
	// time out; a few tries spare the worker a restart by its supervisor.
	var w *worker.Worker
	var err error
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
	return w, err
}
