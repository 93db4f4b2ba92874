package worker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/nats-io/nats.go/jetstream"
)

// A job published to a queue that no consumer serves (a typo:
// docket.jobs.defualt) would wait in the jobs stream forever. Every
// worker sweeps the stream now and then; a job on a subject that no
// consumer's filter matches, stored longer than Config.UnservedWait ago,
// gets a final SE result (answerFinal) and is deleted. Any worker may
// answer it: the answer is deduplicated, the deletion idempotent.
//
// A queue once served keeps its durable consumer when its workers stop,
// so its jobs wait for them: only a queue no worker ever served is
// swept.

// DefaultUnservedWait is how long a job may wait on a queue nobody
// serves before it is answered SE (DOCKET_UNSERVED_AFTER).
const DefaultUnservedWait = 10 * time.Minute

// sweepEvery is the interval of the sweep: often enough that a job is
// answered soon after its time is up, rarely enough to cost nothing.
func (c *Config) sweepEvery() time.Duration {
	return min(max(c.UnservedWait/4, 100*time.Millisecond), time.Minute)
}

// sweepUnserved runs the sweep until ctx ends.
func (w *Worker) sweepUnserved(ctx context.Context) {
	t := time.NewTicker(w.cfg.sweepEvery())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if err := w.sweepOnce(sctx); err != nil && ctx.Err() == nil {
			w.cfg.Logger.Debug().Err(err).Msg("sweep of unserved queues failed; trying again later")
		}
		cancel()
	}
}

// sweepOnce answers every job that waited too long on an unserved subject.
func (w *Worker) sweepOnce(ctx context.Context) error {
	s, err := w.js.Stream(ctx, protocol.JobsStream)
	if err != nil {
		return err
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(w.subj.AllJobs()))
	if err != nil {
		return err
	}
	filters, err := consumerFilters(ctx, s)
	if err != nil {
		return err
	}
	for subject, n := range info.State.Subjects {
		if n > 0 && !anyMatch(filters, subject) {
			w.expireUnserved(ctx, s, subject, info.State.FirstSeq)
		}
	}
	return nil
}

// consumerFilters lists the subjects the stream's consumers take.
func consumerFilters(ctx context.Context, s jetstream.Stream) ([]string, error) {
	var filters []string
	l := s.ListConsumers(ctx)
	for ci := range l.Info() {
		if ci.Config.FilterSubject == "" && len(ci.Config.FilterSubjects) == 0 {
			filters = append(filters, ">") // an unfiltered consumer takes everything
		}
		filters = append(append(filters, ci.Config.FilterSubject), ci.Config.FilterSubjects...)
	}
	return filters, l.Err()
}

// expireUnserved answers and deletes the jobs of one unserved subject
// that are older than UnservedWait, oldest first.
func (w *Worker) expireUnserved(ctx context.Context, s jetstream.Stream, subject string, from uint64) {
	queue, _, _ := w.subj.ParseJob(subject) // what it names, even outside the rules
	for seq := max(from, 1); ctx.Err() == nil; {
		raw, err := s.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if err != nil || time.Since(raw.Time) < w.cfg.UnservedWait {
			return // none left, or the rest are younger
		}
		job, _ := DecodeJob(raw.Data, 0)
		reason := fmt.Sprintf("no worker serves queue %q (subject %s): the job waited %v and was given up (DOCKET_UNSERVED_AFTER)",
			truncate(queue, 140), truncate(subject, 160), w.cfg.UnservedWait)
		where, err := w.answerFinal(ctx, storedFromRaw(raw), job, 1, verdict.SE, reason)
		if err != nil {
			w.cfg.Logger.Warn().Err(err).Str("subject", subject).Msg("could not answer a job on an unserved queue; trying again later")
			return
		}
		s.DeleteMsg(ctx, raw.Sequence)
		w.cfg.Logger.Warn().Str("submission_id", answerID(job, raw.Header)).Str("queue", queue).Str("answered_on", where).
			Msg("job on a queue no worker serves: final SE result")
		w.cfg.Metrics.judged(string(verdict.SE), w.languageLabel(job.Language))
		seq = raw.Sequence + 1
	}
}

// anyMatch reports whether a subject is taken by one of the filters.
func anyMatch(filters []string, subject string) bool {
	for _, f := range filters {
		if f != "" && subjectMatches(f, subject) {
			return true
		}
	}
	return false
}

// subjectMatches is NATS subject matching: "*" one token, ">" the rest.
func subjectMatches(filter, subject string) bool {
	ft, st := strings.Split(filter, "."), strings.Split(subject, ".")
	for i, f := range ft {
		if f == ">" {
			return len(st) > i
		}
		if i >= len(st) || (f != "*" && f != st[i]) {
			return false
		}
	}
	return len(ft) == len(st)
}
