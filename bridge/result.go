package bridge

import (
	"errors"
	"net/http"

	"github.com/nats-io/nats.go/jetstream"
)

// serveResult answers GET /v1/submissions/{id}: the last message on
// <prefix>.results.<id> (200; a contestant's filtered by its feedback
// policy), else {"status":"pending"} when the
// submission has events (202), else 404.
func (b *Bridge) serveResult(w http.ResponseWriter, r *http.Request, id string, who viewer) {
	ctx := r.Context()
	res, err := b.lastMsg(ctx, ResultsStream, b.resultsSubject(id))
	if err != nil {
		b.unavailable(w, r, ResultsStream, err)
		return
	}
	if res != nil && who == contestant {
		body, err := contestantResult(res.Data)
		if err != nil {
			// Nothing that cannot be filtered reaches a contestant.
			b.log.Warn().Err(err).Str("submission", id).Msg("bridge: the stored result cannot be read; not shown to the contestant")
			writeError(w, http.StatusBadGateway, "the stored result of "+id+" is not a valid result")
			return
		}
		writeRawJSON(w, http.StatusOK, body)
		return
	}
	if res != nil {
		writeRawJSON(w, http.StatusOK, res.Data)
		return
	}
	ev, err := b.lastMsg(ctx, EventsStream, b.eventsSubject(id))
	if err != nil {
		b.unavailable(w, r, EventsStream, err)
		return
	}
	if ev != nil {
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "pending"})
		return
	}
	writeError(w, http.StatusNotFound, "unknown submission "+id+": no events and no result")
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
