package bridge

import (
	"errors"
	"net/http"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go/jetstream"
)

// serveResult answers GET /v1/submissions/{id}: the last message on
// <prefix>.results.<id> (200; a contestant's filtered by its feedback
// policy); else 202 with the submission's state while it has none:
// "judging" when it has events, "queued" when its job waits in the jobs
// stream (on <prefix>.jobs.<queue>.<id>); else 404, never submitted (or
// forgotten: results and events expire).
func (b *Bridge) serveResult(w http.ResponseWriter, r *http.Request, id string, who viewer) {
	ctx := r.Context()
	res, err := b.lastMsg(ctx, protocol.ResultsStream, b.subjects().Results(id))
	if err != nil {
		b.unavailable(w, r, protocol.ResultsStream, err)
		return
	}
	if res != nil {
		b.writeResult(w, id, res.Data, who)
		return
	}
	for _, look := range []struct {
		stream, subject, state string
	}{
		{protocol.EventsStream, b.subjects().Events(id), StateJudging},
		{protocol.JobsStream, b.subjects().JobsByID(id), StateQueued},
	} {
		m, err := b.lastMsg(ctx, look.stream, look.subject)
		if err != nil {
			b.unavailable(w, r, look.stream, err)
			return
		}
		if m != nil {
			writeJSON(w, http.StatusAccepted, pending{Status: "pending", State: look.state})
			return
		}
	}
	writeError(w, http.StatusNotFound, "unknown submission "+id+": not queued, no events and no result")
}

// States of a submission without a result (202).
const (
	StateQueued  = "queued"  // its job waits in the jobs stream for a worker
	StateJudging = "judging" // a worker took it: it has events
)

// pending is the body of a 202. Status is the body's first form, kept
// for the clients written against it.
type pending struct {
	Status string `json:"status"`
	State  string `json:"state"`
}

// writeResult answers 200 with a stored result, a contestant's filtered.
func (b *Bridge) writeResult(w http.ResponseWriter, id string, data []byte, who viewer) {
	if who != contestant {
		writeRawJSON(w, http.StatusOK, data)
		return
	}
	body, err := contestantResult(data)
	if err != nil {
		// Nothing that cannot be filtered reaches a contestant.
		b.log.Warn().Err(err).Str("submission", id).Msg("bridge: the stored result cannot be read; not shown to the contestant")
		writeError(w, http.StatusBadGateway, "the stored result of "+id+" is not a valid result")
		return
	}
	writeRawJSON(w, http.StatusOK, body)
}

// unavailable answers a request that failed on the JetStream side.
func (b *Bridge) unavailable(w http.ResponseWriter, r *http.Request, stream string, err error) {
	if r.Context().Err() != nil {
		return // the client is gone
	}
	msg := "stream " + stream + " is unavailable"
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		msg = "stream " + stream + " does not exist (no worker has created it yet)"
	}
	b.log.Warn().Err(err).Str("stream", stream).Str("path", r.URL.Path).Msg("bridge: JetStream request failed")
	w.Header().Set("Retry-After", "5")
	writeError(w, http.StatusServiceUnavailable, msg)
}
