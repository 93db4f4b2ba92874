package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Every job that reaches the jobs stream gets exactly one final answer,
// even one that is not judged: a result under its submission_id when that
// is valid, else under its Nats-Msg-Id when that is valid, else a dead
// letter, so that an operator can account for every message.

// deadLetterHead bounds the payload quoted in a dead letter: enough to
// recognise the job, never the whole submission.
const deadLetterHead = 512

// storedJob is what the worker knows of a job message in the stream,
// whether it came as a delivery or was read back by sequence.
type storedJob struct {
	seq     uint64
	stored  time.Time
	subject string
	header  nats.Header
	data    []byte
}

func storedFromMsg(msg jetstream.Msg, md *jetstream.MsgMetadata) storedJob {
	sj := storedJob{subject: msg.Subject(), header: msg.Headers(), data: msg.Data()}
	if md != nil {
		sj.seq, sj.stored = md.Sequence.Stream, md.Timestamp
	}
	return sj
}

func storedFromRaw(raw *jetstream.RawStreamMsg) storedJob {
	return storedJob{seq: raw.Sequence, stored: raw.Time, subject: raw.Subject, header: raw.Header, data: raw.Data}
}

// answerID is the id a job's final result goes under: its submission_id
// when valid, else its Nats-Msg-Id when valid (the backend publishes with
// the submission id there, docs/protocol.md), else "": a dead letter.
func answerID(job *protocol.Job, h nats.Header) string {
	if job != nil && protocol.ValidID(job.SubmissionID) {
		return job.SubmissionID
	}
	if id := h.Get(jetstream.MsgIDHeader); protocol.ValidID(id) {
		return id
	}
	return ""
}

// answerFinal stores the final answer of a job that ends without being
// judged, and returns the subject it went to.
func (w *Worker) answerFinal(ctx context.Context, sj storedJob, job *protocol.Job, attempt int, v verdict.Verdict, reason string) (string, error) {
	id := answerID(job, sj.header)
	if id == "" {
		return w.subj.DeadLetter(), w.deadLetter(ctx, sj, job, v, reason)
	}
	if job == nil {
		job = &protocol.Job{} // bad JSON: nothing more is known
	}
	res := w.errorResult(job, v, reason, attempt)
	res.SubmissionID = id
	return w.subj.Results(id), w.finish(ctx, id, attempt, res, 1)
}

// deadLetter publishes a job's dead letter and waits for it to be stored.
// Its Nats-Msg-Id names the job's stream sequence and stored time, so a
// job answered twice (a redelivery, two workers) has one dead letter.
func (w *Worker) deadLetter(ctx context.Context, sj storedJob, job *protocol.Job, v verdict.Verdict, reason string) error {
	dl := protocol.DeadLetter{V: protocol.Version, Stream: protocol.JobsStream, StreamSeq: sj.seq, Subject: sj.subject, Stored: sj.stored.UTC(),
		MsgID: truncate(sj.header.Get(jetstream.MsgIDHeader), 140), Verdict: v, Reason: reason,
		Worker: w.cfg.Name, Time: time.Now().UTC(), PayloadBytes: len(sj.data)}
	if job != nil {
		dl.SubmissionID = truncate(job.SubmissionID, 140)
	}
	dl.PayloadHead = string(sj.data[:min(len(sj.data), deadLetterHead)])
	body, err := json.Marshal(dl)
	if err != nil {
		return err
	}
	msgID := protocol.DeadLetterMsgID(sj.seq, sj.stored.UnixNano())
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := w.js.Publish(pctx, w.subj.DeadLetter(), body, jetstream.WithMsgID(msgID)); err != nil {
		return fmt.Errorf("publish dead letter: %w", err)
	}
	return nil
}
