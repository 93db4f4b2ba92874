package worker

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// nakConfirmTimeout bounds the wait for the server's answer to a nak.
const nakConfirmTimeout = 5 * time.Second

// nakPayload is JetStream's "-NAK": redeliver now.
var nakPayload = []byte("-NAK")

// giveBack returns the job in hand for immediate redelivery, confirmed:
// the nak goes to the delivery's ack subject as a request, which the
// server answers once it has processed it (as it does DoubleAck's ack;
// nats.go offers no confirmed nak). A plain nak is a publish that a
// stopping worker can lose with its connection, and the job then waits
// out AckWait before another worker gets it. It reports whether the
// server confirmed.
func (w *Worker) giveBack(log zerolog.Logger, msg jetstream.Msg) bool {
	ctx, cancel := context.WithTimeout(context.Background(), nakConfirmTimeout)
	defer cancel()
	if _, err := w.nc.RequestWithContext(ctx, msg.Reply(), nakPayload); err != nil {
		log.Warn().Err(err).Msg("the server did not confirm the nak: the job is redelivered after AckWait")
		return false
	}
	return true
}
