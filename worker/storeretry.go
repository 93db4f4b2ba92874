package worker

import (
	"context"
	"errors"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict/problem"
)

// Store retry backoff: first retry soon, then no faster than every 5 s.
const (
	storeRetryFirst = 500 * time.Millisecond
	storeRetryMax   = 5 * time.Second
	storeTryTimeout = 2 * time.Minute
)

// problemFromStore gets a pushed problem, waiting out an unavailable
// store. The job stays this worker's meanwhile (the heartbeats go on), so
// the outage costs no delivery: a nak per try would count toward
// MaxDeliver, which JetStream cannot un-count, and a ten-second outage
// would end jobs SE. It gives up only when ctx ends (SIGTERM's grace
// period over, or the lease lost).
func (w *Worker) problemFromStore(ctx context.Context, job *protocol.Job) (*problem.Problem, error) {
	log := w.cfg.Logger.With().Str("submission_id", job.SubmissionID).Str("problem", job.Problem).Logger()
	var since time.Time
	delay := storeRetryFirst
	for tries := 1; ; tries++ {
		// A bound per try: a read from a stream that lost its quorum
		// midway would otherwise wait as long as the job does.
		tctx, cancel := context.WithTimeout(ctx, storeTryTimeout)
		p, err := w.cache.Get(tctx, w.js, job.Problem, job.ProblemDigest)
		cancel()
		var su *StoreUnavailableError
		if !errors.As(err, &su) {
			if !since.IsZero() && err == nil {
				log.Info().Dur("waited", time.Since(since)).Int("tries", tries).Msg("problem store back; judging")
			}
			return p, err
		}
		if since.IsZero() {
			since = time.Now()
			log.Warn().Err(err).Msg("problem store unavailable: holding the job (heartbeats keep it) and retrying with backoff")
		} else {
			log.Debug().Err(err).Int("tries", tries).Msg("problem store still unavailable")
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, storeRetryMax)
	}
}
