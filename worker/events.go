package worker

import (
	"encoding/json"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/nats-io/nats.go/jetstream"
)

// events publishes a submission's progress asynchronously, bounded, so
// judging never waits on them.
type events struct {
	w       *Worker
	id      string
	attempt int
	seq     int
	lease   *lease
	policy  problem.FeedbackPolicy   // the submission's, once its problem is loaded
	sent    []jetstream.PubAckFuture // this attempt's events, for settled
}

func newEvents(w *Worker, id string, attempt int) *events {
	return &events{w: w, id: id, attempt: attempt}
}

func (e *events) publish(ev protocol.Event) {
	if e.lease != nil && e.lease.lost() {
		return // the job is another worker's now; its events are
	}
	e.seq++
	ev.V, ev.SubmissionID, ev.Attempt, ev.Seq, ev.Time = protocol.Version, e.id, e.attempt, e.seq, time.Now().UTC()
	ev.FeedbackPolicy = e.policy
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	msgID := protocol.EventMsgID(e.id, e.attempt, e.seq)
	f, err := e.w.js.PublishAsync(e.w.subj.Events(e.id), b, jetstream.WithMsgID(msgID))
	if err != nil {
		// Too many pending (a slow or unreachable server): progress is
		// best effort, the final result is not; drop this event.
		e.w.cfg.Logger.Debug().Err(err).Str("submission_id", e.id).Msg("progress event dropped")
		return
	}
	e.sent = append(e.sent, f)
}

// flush waits briefly for pending events.
func (e *events) flush() {
	select {
	case <-e.w.js.PublishAsyncComplete():
	case <-time.After(5 * time.Second):
	}
}

// settled waits until every event this attempt published is stored or
// has failed for good: its own, not every publish of the connection, one
// of which may never be answered (an acknowledgement lost with a killed
// leader) and would hold up every later job. It waits at most
// settleEvents, as long as a publish and its two retries 250 ms apart
// take; past it the final event goes anyway.
func (e *events) settled() {
	limit := time.After(settleEvents)
	for _, f := range e.sent {
		select {
		case <-f.Ok():
		case <-f.Err():
		case <-limit:
			return
		}
	}
}

const settleEvents = 3 * time.Second

func (e *events) Compiled(c verdict.CompileResult) {
	cc := c
	e.publish(protocol.Event{Type: protocol.EventCompile, Compile: &cc})
}

func (e *events) Test(i, n int, t verdict.TestResult) {
	tt := t
	e.publish(protocol.Event{Type: protocol.EventTest, Test: &tt, Index: i, Total: n})
}

func (e *events) Group(g verdict.GroupResult) {
	gg := g
	e.publish(protocol.Event{Type: protocol.EventGroup, Group: &gg})
}
