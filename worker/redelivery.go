package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// earlierOutcome is what an earlier attempt of a job left in the streams.
type earlierOutcome struct {
	result *verdict.Result // from DOCKET_RESULTS
	final  *protocol.Event // the final event, if it is the last event
	last   *protocol.Event // the last event of any type
}

// judged is the result an earlier attempt reached, from either stream.
func (o earlierOutcome) judged() *verdict.Result {
	if o.result != nil {
		return o.result
	}
	if o.final != nil {
		return o.final.Result
	}
	return nil
}

// completeEarlier handles a redelivery whose job an earlier attempt already
// judged. The result and the final event go to two streams; during a
// leader's failover one can be stored and the other not (or stored with
// its acknowledgement lost), and the job comes back. Judging it again
// would be wasted, and worse: the new attempt's progress events would
// follow the stored final, whose Nats-Msg-Id then keeps the new final out,
// so the events stream would not end with its final. Instead the missing
// half is published from the stored half (the stored one deduplicates)
// and the job is acked. It reports whether it took care of msg.
func (w *Worker) completeEarlier(log zerolog.Logger, msg jetstream.Msg, id string) bool {
	o, err := w.lookEarlier(id, msg)
	if err != nil {
		// Not known: judging again is safe for the result (Nats-Msg-Id).
		log.Warn().Err(err).Msg("cannot tell whether an earlier attempt stored a result; judging")
		return false
	}
	res := o.judged()
	if res == nil {
		return false
	}
	if o.result != nil && o.final != nil {
		log.Info().Msg("result already stored; acking the redelivery")
		msg.DoubleAck(context.Background())
		return true
	}
	seq := 1
	if o.last != nil && o.last.Attempt == res.Attempt {
		seq = o.last.Seq + 1
	}
	if o.final != nil {
		seq = o.final.Seq
	}
	if err := w.finish(context.Background(), id, res.Attempt, res, seq); err != nil {
		log.Error().Err(err).Msg("could not complete the earlier attempt's result; nak for redelivery")
		msg.NakWithDelay(2 * time.Second)
		return true
	}
	log.Info().Bool("had_result", o.result != nil).Bool("had_final", o.final != nil).Int("judged_attempt", res.Attempt).
		Msg("an earlier attempt judged this job: stored its missing result or final event, acked the redelivery")
	msg.DoubleAck(context.Background())
	return true
}

// lookEarlier reads the stored result and the last event, retrying for
// a while under heartbeats: right after a failover the streams may still
// be electing leaders.
func (w *Worker) lookEarlier(id string, msg jetstream.Msg) (earlierOutcome, error) {
	deadline := time.Now().Add(w.cfg.AckWait * 2)
	delay := storeRetryFirst
	for {
		o, err := w.readEarlier(id)
		if err == nil || time.Now().After(deadline) {
			return o, err
		}
		msg.InProgress()
		time.Sleep(delay)
		delay = min(2*delay, storeRetryMax, w.cfg.AckWait/3)
	}
}

func (w *Worker) readEarlier(id string) (earlierOutcome, error) {
	var o earlierOutcome
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	last := func(stream, subject string, into any) (bool, error) {
		s, err := w.js.Stream(ctx, stream)
		if err != nil {
			return false, err
		}
		m, err := s.GetLastMsgForSubject(ctx, subject)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if err := json.Unmarshal(m.Data, into); err != nil {
			return false, fmt.Errorf("%s: %w", subject, err)
		}
		return true, nil
	}
	var res verdict.Result
	ok, err := last(protocol.ResultsStream, w.subj.Results(id), &res)
	if err != nil {
		return o, err
	}
	if ok {
		o.result = &res
	}
	var ev protocol.Event
	ok, err = last(protocol.EventsStream, w.subj.Events(id), &ev)
	if err != nil {
		return o, err
	}
	if ok {
		o.last = &ev
		if ev.Type == protocol.EventFinal && ev.Result != nil {
			o.final = &ev
		}
	}
	return o, nil
}
