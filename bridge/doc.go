// Package bridge is docket's SSE bridge: it relays a submission's progress
// events from the JetStream stream DOCKET_EVENTS to browsers as
// Server-Sent Events, and serves stored results from DOCKET_RESULTS. It
// speaks only HTTP and the wire protocol (docs/protocol.md); it knows
// nothing of the sandbox or of how judging is done.
//
// It must not import the worker, verdict or the sandbox: it only reads what
// workers published, through protocol's names and messages.
//
// # Routes
//
//	GET /v1/submissions/{id}/events   text/event-stream: history, then live; ends after "final"
//	GET /v1/submissions/{id}          200 result JSON, 202 {"status":"pending"}, 404 unknown
//	GET /watch/{id}?token=T           a self-contained HTML page that follows the events
//	GET /livez, GET /readyz           liveness; readiness (NATS connected, streams present)
//
// Every SSE message is
//
//	id: <stream sequence of the event in DOCKET_EVENTS>
//	event: <the event's "type": started, compile, test, group, final>
//	data: <the event JSON, on one line>
//
// Stream sequences are global to the stream, so one submission's ids
// increase but have gaps. A client resumes with the Last-Event-ID header
// (EventSource sends it by itself) or ?last_event_id=N: delivery restarts
// at sequence N+1, with no gap and no duplicate. A resume after the final
// event gets 204 No Content, which tells EventSource to stop reconnecting;
// an id beyond the stream's last sequence (the stream was recreated) gets
// the whole history again.
// Comments (": hb") are sent every Config.Heartbeat while nothing else is.
//
// # Access
//
// Every /v1 and /watch request needs a token, given as
// "Authorization: Bearer <token>" or, for browsers whose EventSource cannot
// set headers, as ?token=<token>. The operator token (Config.Token, header
// only) reads every submission. A per-submission token reads only its own
// submission; a backend mints it with the shared secret Config.HMACSecret:
//
//	token = lowercase hex( HMAC-SHA256(secret, "docket-submission-v1:" + id) )
//
// (see SubmissionToken; `docket token ID` prints it; upper-case hex is
// accepted too).
// No token gives 401, a token that does not open this submission 403.
// Tokens are compared in constant time.
//
// The operator token gets events and results exactly as the workers
// published them. A per-submission token gets the contestant's view:
// each event and the result filtered by the submission's feedback policy
// (the feedback_policy field; missing or unknown is "none"), so that the
// details of secret tests (feedback, an error quoting them, any field not
// on the lists in feedback.go) never reach the submission's owner.
//
// # Server-side resources
//
// One ordered (ephemeral, AckNone, memory) consumer on <prefix>.events.>
// serves every SSE stream while any is open: each watched submission's
// events, history then live, are held once and shared by its watchers
// (feed.go). The consumer is deleted with the last stream, and carries a
// short InactiveThreshold so that the server drops it even if the bridge
// dies first. Streams are limited in total, per client address (the TCP
// peer, or behind Config.TrustedProxies the forwarding header's
// right-most untrusted address) and per per-submission token (429
// beyond); a client that stops reading is dropped without stalling
// others.
package bridge
