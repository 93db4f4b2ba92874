package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// sseStream is one open event stream, so that CloseStreams can end it.
type sseStream struct{ cancel context.CancelFunc }

func (b *Bridge) track(s *sseStream) {
	b.mu.Lock()
	b.streams[s] = struct{}{}
	b.mu.Unlock()
}

func (b *Bridge) untrack(s *sseStream) {
	b.mu.Lock()
	delete(b.streams, s)
	b.mu.Unlock()
}

// lastEventID reads the resume point: the Last-Event-ID header, else the
// last_event_id query parameter. ok is false when neither is given.
func lastEventID(r *http.Request) (seq uint64, ok bool, err error) {
	v := r.Header.Get("Last-Event-ID")
	name := "Last-Event-ID"
	if v == "" {
		v = r.URL.Query().Get("last_event_id")
		name = "last_event_id"
	}
	if v == "" {
		return 0, false, nil
	}
	seq, err = parseLastEventID(name, v)
	return seq, err == nil, err
}

// parseLastEventID reads a resume point sent as name: the decimal stream
// sequence the bridge wrote as the SSE id.
func parseLastEventID(name, v string) (uint64, error) {
	seq, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s must be a stream sequence (a non-negative integer), got %q", name, truncate(v, 40))
	}
	return seq, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// eventHead is the part of an event the bridge reads.
type eventHead struct {
	Type string `json:"type"`
}

const typeFinal = "final"

// resumePoint decides where a client that has seen every event of id up
// to stream sequence last goes on: done when there is nothing more to
// receive (no event after last, and the submission is over: its last
// event is the final one, or its result is stored); restart when last is
// beyond the stream's last sequence, so that it cannot come from this
// stream (it was recreated and numbers again from 1) and the client gets
// the whole history instead of waiting for a sequence that may never
// come.
func (b *Bridge) resumePoint(ctx context.Context, id string, last uint64) (done, restart bool, err error) {
	h, err := b.stream(ctx, protocol.EventsStream, false)
	if err != nil {
		return false, false, err
	}
	ictx, cancel := context.WithTimeout(ctx, apiTimeout)
	info, err := h.Info(ictx)
	cancel()
	if err != nil {
		b.forget(protocol.EventsStream)
		return false, false, err
	}
	if last > info.State.LastSeq {
		return false, true, nil
	}
	m, err := b.lastMsg(ctx, protocol.EventsStream, b.subjects().Events(id))
	if err != nil || m == nil || m.Sequence > last {
		return false, false, err
	}
	var head eventHead
	if json.Unmarshal(m.Data, &head) == nil && head.Type == typeFinal {
		return true, false, nil
	}
	res, err := b.lastMsg(ctx, protocol.ResultsStream, b.subjects().Results(id))
	return res != nil, false, err
}

// serveEvents streams GET /v1/submissions/{id}/events, each event as
// the worker published it for the jury, filtered by the submission's
// feedback policy for a contestant.
func (b *Bridge) serveEvents(w http.ResponseWriter, r *http.Request, id string, who viewer, tok string) {
	last, resume, err := lastEventID(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	client := b.cfg.ClientIP(r)
	release, msg := b.acquire(client, tok)
	if release == nil {
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusTooManyRequests, msg)
		return
	}
	defer release()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	s := &sseStream{cancel: cancel}
	b.track(s)
	defer b.untrack(s)

	log := b.log.With().Str("submission", id).Str("client", client).Logger()
	if resume {
		done, restart, err := b.resumePoint(ctx, id, last)
		if err != nil {
			b.unavailable(w, r, protocol.EventsStream, err)
			return
		}
		if restart {
			log.Info().Uint64("last_event_id", last).Msg("bridge: Last-Event-ID is beyond the stream (recreated?); sending the whole history")
			last = 0
		}
		if done {
			// Nothing is left to send; 204 tells EventSource not to reconnect.
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	f, err := b.join(ctx, id)
	if err != nil {
		b.unavailable(w, r, protocol.EventsStream, err)
		return
	}
	defer b.leave(f)
	if err := waitLoaded(ctx, f); err != nil {
		b.unavailable(w, r, protocol.EventsStream, err)
		return
	}
	sw := b.openSSE(w, id)
	if sw == nil {
		return
	}
	log.Debug().Uint64("last_event_id", last).Msg("bridge: stream opened")
	b.pump(ctx, f, sw, who, last, log)
}

// waitLoaded waits until the feed holds its history.
func waitLoaded(ctx context.Context, f *feed) error {
	for {
		_, loaded, changed, err := f.after(0)
		if err != nil || loaded {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// sseWriter writes an event stream, each write bounded by WriteTimeout.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (s *sseWriter) write(p []byte) error {
	s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	_, err := s.w.Write(p)
	return err
}

func (s *sseWriter) flush() error {
	s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	return s.rc.Flush()
}

// openSSE sends the stream's headers and preamble; nil if the client is
// gone already.
func (b *Bridge) openSSE(w http.ResponseWriter, id string) *sseWriter {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{}) // a server ReadTimeout must not end the stream
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: rc, timeout: b.cfg.WriteTimeout}
	if sw.write(fmt.Appendf(nil, "retry: %d\n: docket bridge, submission %s\n\n", retryMillis, id)) != nil || sw.flush() != nil {
		return nil
	}
	return sw
}

// slowWrite is how long a write must have blocked for a client with a
// backlog to count as not reading (rather than briefly behind a burst).
const slowWrite = time.Second

// pump sends the feed's events after sequence last, history then live,
// until the final event, the client goes, the feed fails, or the client
// stops reading: more than MaxBacklog events wait for it after a write
// that blocked for slowWrite. It runs in the request's goroutine and
// writes only to its own client, so a slow client delays nobody else.
func (b *Bridge) pump(ctx context.Context, f *feed, sw *sseWriter, who viewer, last uint64, log zerolog.Logger) {
	hb := time.NewTicker(b.cfg.Heartbeat)
	defer hb.Stop()
	var took time.Duration
	for next := 0; ; {
		es, _, changed, ferr := f.after(next)
		if took >= slowWrite && len(es) > b.cfg.MaxBacklog {
			log.Info().Int("behind", len(es)).Msg("bridge: client too slow; dropping its stream")
			sw.write(fmt.Appendf(nil, ": dropped: this client is %d events behind (limit %d); reconnect with Last-Event-ID to resume\n\n", len(es), b.cfg.MaxBacklog))
			sw.flush()
			return
		}
		next += len(es)
		start := time.Now()
		final, err := b.sendEntries(sw, es, who, &last)
		took = time.Since(start)
		switch {
		case err != nil:
			return
		case final:
			log.Debug().Msg("bridge: stream ended after the final event")
			return
		case ferr != nil:
			log.Warn().Err(ferr).Msg("bridge: reading events failed; ending the stream so that the client resumes")
			return
		case len(es) > 0:
			hb.Reset(b.cfg.Heartbeat)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-hb.C:
			if sw.write([]byte(": hb\n\n")) != nil || sw.flush() != nil {
				return
			}
		}
	}
}

// sendEntries writes the entries after sequence *last that who may see,
// and flushes; final reports that the final event was sent.
func (b *Bridge) sendEntries(sw *sseWriter, es []*entry, who viewer, last *uint64) (final bool, err error) {
	wrote := false
	for _, e := range es {
		if e.seq <= *last {
			continue
		}
		*last = e.seq
		data := b.view(e, who)
		if data == nil {
			continue
		}
		if err := sw.write(data); err != nil {
			return false, err
		}
		wrote, final = true, e.final
		if final {
			break
		}
	}
	if wrote {
		err = sw.flush()
	}
	return final && err == nil, err
}

// frame writes one SSE message for the event data at stream sequence seq
// and returns the event's type. ok is false if data is not a JSON object.
func (b *Bridge) frame(buf *bytes.Buffer, seq uint64, data []byte) (typ string, ok bool) {
	var h eventHead
	if err := json.Unmarshal(data, &h); err != nil {
		return "", false
	}
	if bytes.ContainsAny(data, "\r\n") {
		// SSE data is line-based: put the JSON on one line. Raw newlines
		// can only be insignificant whitespace in valid JSON.
		var c bytes.Buffer
		if err := json.Compact(&c, data); err != nil {
			return "", false
		}
		data = c.Bytes()
	}
	fmt.Fprintf(buf, "id: %d\n", seq)
	if protocol.ValidToken(h.Type, 64, ".") { // [A-Za-z0-9_.-]{1,64}
		fmt.Fprintf(buf, "event: %s\n", h.Type)
	}
	buf.WriteString("data: ")
	buf.Write(data)
	buf.WriteString("\n\n")
	return h.Type, true
}

// deleteConsumer removes the stream's server-side consumer at once rather
// than after its InactiveThreshold.
func (b *Bridge) deleteConsumer(oc jetstream.Consumer) {
	info := oc.CachedInfo()
	if info == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.js.DeleteConsumer(ctx, protocol.EventsStream, info.Name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		b.log.Debug().Err(err).Str("consumer", info.Name).Msg("bridge: deleting the stream's consumer failed; the server drops it when inactive")
	}
}
