package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/nats-io/nats.go"
)

// watchMaxDeliveries turns the max-deliveries advisory into a final SE
// result naming the number of attempts, and removes the job.
func (w *Worker) watchMaxDeliveries() (*nats.Subscription, error) {
	subject := "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + protocol.JobsStream + "." + protocol.ConsumerName(w.cfg.Queue)
	return w.nc.Subscribe(subject, func(a *nats.Msg) {
		var adv struct {
			StreamSeq  uint64 `json:"stream_seq"`
			Deliveries uint64 `json:"deliveries"`
		}
		if json.Unmarshal(a.Data, &adv) != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := w.js.Stream(ctx, protocol.JobsStream)
		if err != nil {
			return
		}
		raw, err := s.GetMsg(ctx, adv.StreamSeq)
		if err != nil {
			return // another worker handled it
		}
		job, _ := DecodeJob(raw.Data, 0)
		reason := fmt.Sprintf("gave up after %d attempts: every worker that took this job failed to finish it", adv.Deliveries)
		where, err := w.answerFinal(ctx, storedFromRaw(raw), job, int(adv.Deliveries), verdict.SE, reason)
		if err != nil {
			return
		}
		w.cfg.Logger.Warn().Str("submission_id", answerID(job, raw.Header)).Uint64("attempts", adv.Deliveries).Str("answered_on", where).
			Msg("max deliveries reached: final SE result")
		s.DeleteMsg(ctx, adv.StreamSeq)
	})
}
