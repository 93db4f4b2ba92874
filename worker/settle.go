package worker

import (
	"context"
	"errors"
	"time"

	"github.com/docketjudge/docket/verdict"
)

// settle ends a job after its judging: dropped (the lease lost), given
// back (the grace period over, or a failure local to this worker), or its
// result stored and the job acked. It runs under the hold (h.ctx is
// still the judging's).
func (w *Worker) settle(d *delivery, h *held, ev *events, res *verdict.Result, err error) {
	if h.lease.lost() {
		w.abandon(d.log, h.lease)
		return
	}
	if h.ctx.Err() != nil {
		// The run in progress was killed and the judging reported
		// nothing more: only the events already sent go out.
		d.log.Warn().Msg("grace period over: judging abandoned, job given back for redelivery")
		ev.flush()
		w.giveBack(d.log, d.msg)
		return
	}
	if err != nil {
		var pe *PoisonError
		if !errors.As(err, &pe) {
			w.cannotJudge(d, ev, err)
			return
		}
		res = w.errorResult(d.job, pe.Verdict, pe.Msg, d.attempt)
	}
	res.Worker, res.Attempt = w.cfg.Name, d.attempt
	w.cfg.Metrics.judgeTime(time.Since(d.start))
	// The progress events must all be stored before the final one, which
	// has to be the stream's last for the submission: publishes on one
	// connection reach the server in order, but nats.go publishes again,
	// 250 ms later, one that met no responders (a stream's leader being
	// elected), and that one would land after the final. A redelivery then
	// finds no final as the last event and judges again after it
	// (completeEarlier). Usually nothing is pending by now.
	ev.settled()
	if h.lease.lost() {
		w.abandon(d.log, h.lease)
		return
	}
	w.complete(d, res, ev.seq+1)
}

// cannotJudge gives back a job for a failure local to this worker (its
// problem cache cannot be written, e.g. a full disk) so that another
// worker takes it; it counts as a delivery, so a job no worker can take
// ends SE after MaxDeliver attempts.
func (w *Worker) cannotJudge(d *delivery, ev *events, err error) {
	d.log.Error().Err(err).Msg("cannot judge on this worker now; job given back (nak with delay)")
	ev.flush()
	d.msg.NakWithDelay(2 * time.Second)
	w.cfg.Metrics.sandboxFailure()
	w.pause.failed()
}

// complete stores the result and the final event (seq), then acks the
// job; a failed store naks it for redelivery.
func (w *Worker) complete(d *delivery, res *verdict.Result, seq int) {
	if err := w.finish(context.Background(), d.job.SubmissionID, d.attempt, res, seq); err != nil {
		d.log.Error().Err(err).Msg("could not store the result; nak for redelivery")
		d.msg.Nak()
		return
	}
	// A plain ack, not a confirmed one: the result is already stored, so
	// an ack lost on the way only causes a redelivery, which finds the
	// stored result and is acked without judging again. Waiting for the
	// confirmation would idle the slot for a round trip on every job.
	if err := d.msg.Ack(); err != nil {
		d.log.Warn().Err(err).Msg("ack failed (the result is stored; a redelivery will be acked)")
	}
	w.pause.ok()
	w.cfg.Metrics.judged(string(res.Verdict), w.languageLabel(d.job.Language))
	d.log.Info().Str("verdict", string(res.Verdict)).Float64("score", res.Score).Dur("took", time.Since(d.start)).Msg("judged")
}
