package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/docketjudge/docket/internal/safedir"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Worker pulls jobs one at a time and judges them.
type Worker struct {
	cfg    Config
	nc     *nats.Conn
	js     jetstream.JetStream
	judge  Judger
	cons   jetstream.Consumer
	subj   protocol.Subjects
	cache  *Cache
	ready  atomic.Bool
	inline inlineCache
	pause  fetchPause
	warned warnedPackages
}

// trustedDirs creates the problem cache and the inline problems'
// directory if missing and refuses them at start if another user owns or
// can write them (or a directory above them): what is there becomes the
// tests and checkers docket judges with.
func trustedDirs(cfg Config) error {
	for _, d := range []struct {
		name, dir string
		mode      os.FileMode
	}{{"problem cache", cfg.CacheDir, 0o700}, {"inline problems directory", cfg.InlineDir, 0o711}} {
		if d.dir == "" {
			continue
		}
		if err := safedir.Ensure(d.dir, d.mode); err != nil {
			return fmt.Errorf("worker: %s: %w", d.name, err)
		}
	}
	return nil
}

// New prepares a worker on a connection with its judger: Judging (one
// sandbox slot) in ModeJudge, NotJudging in ModeCapacityTest only.
func New(ctx context.Context, nc *nats.Conn, j Judger, cfg Config) (*Worker, error) {
	cfg.defaults()
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, err
	}
	// A worker that guessed a policy could show secret details to every
	// contestant: it refuses to start instead.
	if _, err := problem.ParseFeedbackPolicy(string(cfg.Feedback)); err != nil {
		return nil, fmt.Errorf("worker: default %w", err)
	}
	if !protocol.ValidQueue(cfg.Queue) {
		return nil, fmt.Errorf("worker: queue %q is not a queue name: 1-64 characters of [A-Za-z0-9_-] (one subject token)", cfg.Queue)
	}
	if !protocol.ValidPrefix(cfg.Prefix) {
		return nil, fmt.Errorf("worker: subject prefix %q: tokens of [A-Za-z0-9_-] joined by dots", cfg.Prefix)
	}
	if err := checkJudger(j, cfg.Mode); err != nil {
		return nil, err
	}
	if err := trustedDirs(cfg); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(256))
	if err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg, nc: nc, js: js, judge: j, subj: protocol.Subjects{Prefix: cfg.Prefix}}
	w.cache = &Cache{Dir: cfg.CacheDir, MaxBytes: cfg.CacheBytes}
	if cfg.EnsureInfra {
		if err := protocol.EnsureStreams(ctx, js, protocol.StreamOptions{Prefix: cfg.Prefix, Replicas: cfg.Replicas}); err != nil {
			return nil, err
		}
	}
	w.cons, err = protocol.EnsureConsumer(ctx, js, protocol.ConsumerOptions{Prefix: cfg.Prefix, Queue: cfg.Queue, AckWait: cfg.AckWait,
		MaxDeliver: cfg.MaxDeliver, BackOff: cfg.BackOff, Replicas: cfg.Replicas})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Ready reports whether the worker is connected and fetching.
func (w *Worker) Ready() error {
	if !w.nc.IsConnected() {
		return errors.New("not connected to NATS")
	}
	if !w.ready.Load() {
		return errors.New("worker not started")
	}
	return nil
}

// Run fetches and judges jobs until ctx is cancelled (SIGTERM). The job in
// hand is finished within the grace period, else its sandbox run is
// killed and it is given back with a confirmed nak for immediate
// redelivery; Run then returns nil.
func (w *Worker) Run(ctx context.Context) error {
	log := w.cfg.Logger
	adv, err := w.watchMaxDeliveries()
	if err != nil {
		return err
	}
	defer adv.Unsubscribe()
	sweepCtx, stopSweep := context.WithCancel(context.Background())
	swept := make(chan struct{})
	go func() { defer close(swept); w.sweepUnserved(sweepCtx) }()
	defer func() { stopSweep(); <-swept }()
	w.ready.Store(true)
	defer w.ready.Store(false)
	if w.cfg.Mode == ModeCapacityTest {
		log.Warn().Str("mode", string(w.cfg.Mode)).Str("verdict", string(verdict.SE)).Str("error", NotJudgedError).
			Msg("CAPACITY TEST MODE: THIS WORKER JUDGES NOTHING. Every job it takes is acked with the fixed result below. Never run it against a queue that holds real submissions.")
	}
	log.Info().Str("queue", w.cfg.Queue).Str("consumer", protocol.ConsumerName(w.cfg.Queue)).Str("mode", string(w.cfg.Mode)).Msg("worker fetching")
	for ctx.Err() == nil {
		if !w.pauseIfFailing(ctx) {
			break
		}
		msg, ok := w.next(ctx)
		if !ok {
			continue
		}
		if ctx.Err() != nil {
			w.giveBack(log, msg)
			break
		}
		w.handle(ctx, msg)
	}
	log.Info().Msg("worker stopped fetching")
	return nil
}

// next fetches the next job, or reports false after a pull request that
// brought none (a failed one waits a second, unless ctx ends).
func (w *Worker) next(ctx context.Context) (jetstream.Msg, bool) {
	// The pull request is not cut short by ctx: the server may already
	// have handed a job to it, and a job sent to an inbox nobody reads
	// any more waits out the whole AckWait before another worker gets
	// it. So a stopping worker lets its last request expire (at most
	// FetchWait) and gives back what it brought.
	fctx, cancel := context.WithTimeout(context.Background(), w.cfg.FetchWait)
	msg, err := w.cons.Next(jetstream.FetchContext(fctx))
	cancel()
	if err == nil {
		return msg, true
	}
	if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
		w.cfg.Logger.Warn().Err(err).Msg("fetch failed; retrying")
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	return nil, false
}
