package worker

import (
	"context"
	"errors"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// delivery is one job in the worker's hands: the message, the job it
// decoded to, which attempt this is, and the log that names them.
type delivery struct {
	msg     jetstream.Msg
	job     *protocol.Job
	attempt int
	log     zerolog.Logger
	start   time.Time // the judging's start (judgeHeld)
}

// handle takes one job from decoding to ack: decode, judge under hold
// (heartbeats, lease, grace period), settle.
func (w *Worker) handle(stop context.Context, msg jetstream.Msg) {
	d, ok := w.decode(msg)
	if !ok {
		return
	}
	h := w.hold(stop, msg)
	defer h.release()
	ev := newEvents(w, d.job.SubmissionID, d.attempt)
	ev.lease = h.lease
	res, err := w.judgeHeld(h.ctx, d, ev)
	w.settle(d, h, ev, res, err)
}

// decode reads a delivery. It reports false for a delivery that needs no
// judging, settled here: a job that can never succeed (answered and
// terminated) or one an earlier attempt judged (completed and acked).
func (w *Worker) decode(msg jetstream.Msg) (*delivery, bool) {
	m := w.cfg.Metrics
	md, _ := msg.Metadata()
	attempt := 1
	if md != nil {
		attempt = int(md.NumDelivered)
	}
	job, derr := DecodeJob(msg.Data(), w.cfg.MaxSource)
	if derr == nil {
		derr = checkJobSubject(w.subj, msg.Subject(), job)
	}
	log := w.cfg.Logger.With().Str("submission_id", answerID(job, msg.Headers())).Int("attempt", attempt).Logger()
	if md != nil && attempt > 1 {
		m.redelivered()
	}
	if md != nil {
		m.queueWait(time.Since(md.Timestamp))
	}
	if derr != nil {
		w.endPoisoned(log, msg, storedFromMsg(msg, md), job, attempt, derr)
		return nil, false
	}
	// A result or final event already stored: a redelivery of a judged job
	// (its ack lost, or one of its two publishes). A first delivery cannot
	// have one, except after an embedded server lost its last moments, and
	// the result's Nats-Msg-Id covers that.
	if attempt > 1 && w.completeEarlier(log, msg, job.SubmissionID) {
		return nil, false
	}
	return &delivery{msg: msg, job: job, attempt: attempt, log: log}, true
}

// endPoisoned answers a job that can never succeed (answerFinal: its id,
// else its Nats-Msg-Id, else a dead letter) and terminates it. A failed
// store naks it instead, so that the answer is tried again.
func (w *Worker) endPoisoned(log zerolog.Logger, msg jetstream.Msg, sj storedJob, job *protocol.Job, attempt int, derr error) {
	var pe *PoisonError
	errors.As(derr, &pe)
	where, err := w.answerFinal(context.Background(), sj, job, attempt, pe.Verdict, pe.Msg)
	if err != nil {
		log.Error().Err(err).Str("error", pe.Msg).Msg("could not store the error result; nak")
		msg.NakWithDelay(5 * time.Second)
		return
	}
	log.Warn().Str("error", pe.Msg).Str("answered_on", where).Msg("job can never succeed: final error result stored, job terminated")
	msg.TermWithReason(truncate(pe.Msg, 200))
	w.cfg.Metrics.judged(string(pe.Verdict), w.languageLabel(job.Language))
}

// judgeHeld announces the job (its started event) and judges it; ctx
// ends when the job is abandoned.
func (w *Worker) judgeHeld(ctx context.Context, d *delivery, ev *events) (*verdict.Result, error) {
	job := d.job
	ev.publish(protocol.Event{Type: protocol.EventStarted, Worker: w.cfg.Name, Problem: jobProblem(job), Language: w.languageID(job.Language)})
	d.log.Info().Str("problem", job.Problem).Str("language", job.Language).Msg("judging")
	d.start = time.Now()
	w.cfg.Metrics.inFlight(1)
	defer w.cfg.Metrics.inFlight(-1)
	return w.judgeJob(ctx, job, ev)
}
