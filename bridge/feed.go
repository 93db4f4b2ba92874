package bridge

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go/jetstream"
)

// One JetStream consumer serves every event stream of a bridge: the live
// consumer, an ordered consumer on all of <prefix>.events.>, runs while
// at least one submission is watched. Each watched submission has a feed:
// its events, history first (read from the stream by subject) then live
// (dispatched from the live consumer), framed once and shared read-only
// by all of its watchers. A watcher is a cursor into the feed's log, so
// an open stream costs its HTTP connection and goroutine and nothing per
// event; a submission's feed goes when its last watcher does.
//
// No gap, no duplicate: the live consumer starts at the stream's last
// sequence L+1 before any feed registers, and a feed registers before it
// reads its history. An event stored at or before L, or dispatched before
// the feed registered, was stored before the history read began, so the
// history has it; any later one is dispatched to the registered feed. A
// feed keeps only events past the last sequence it holds, so an event
// that arrives both ways is kept once, in stream order.

// entry is one event of a submission.
type entry struct {
	seq   uint64
	final bool
	raw   []byte // the event as published
	jury  []byte // its SSE message for the operator
	once  sync.Once
	cview []byte // its SSE message for a contestant, nil if unfilterable
}

// feed is one watched submission's events.
type feed struct {
	id       string
	live     *liveSub
	watchers int // guarded by hub.mu

	mu      sync.Mutex
	loaded  bool
	log     []*entry
	pending []*entry // dispatched while the history loads
	err     error    // the feed failed: its watchers end, a new feed replaces it
	changed chan struct{}
}

// liveSub is the running live consumer.
type liveSub struct {
	cancel context.CancelFunc
}

// hub holds the feeds and the live consumer.
type hub struct {
	mu    sync.Mutex
	feeds map[string]*feed
	live  *liveSub
}

func newFeed(id string, live *liveSub) *feed {
	return &feed{id: id, live: live, changed: make(chan struct{})}
}

// broadcast wakes the feed's watchers; f.mu is held.
func (f *feed) broadcast() {
	close(f.changed)
	f.changed = make(chan struct{})
}

func lastSeq(log []*entry) uint64 {
	if len(log) == 0 {
		return 0
	}
	return log[len(log)-1].seq
}

// add appends a live event.
func (f *feed) add(e *entry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.loaded {
		f.pending = append(f.pending, e)
		return
	}
	if e.seq > lastSeq(f.log) {
		f.log = append(f.log, e)
		f.broadcast()
	}
}

// loadDone installs the history, then what was dispatched meanwhile.
func (f *feed) loadDone(history []*entry, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.err = err
	} else {
		f.log = history
		for _, e := range f.pending {
			if e.seq > lastSeq(f.log) {
				f.log = append(f.log, e)
			}
		}
	}
	f.pending, f.loaded = nil, true
	f.broadcast()
}

func (f *feed) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
		f.broadcast()
	}
}

// after returns the events from index i on (a view of the shared,
// append-only log), whether the history is in, a channel closed at the
// next change, and the feed's error.
func (f *feed) after(i int) (es []*entry, loaded bool, changed <-chan struct{}, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loaded && i < len(f.log) {
		es = f.log[i:len(f.log):len(f.log)]
	}
	return es, f.loaded, f.changed, f.err
}

// join returns the feed of submission id, made (and the live consumer
// started) if nobody watches it yet. Call leave when done.
func (b *Bridge) join(ctx context.Context, id string) (*feed, error) {
	h := &b.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if f := h.feeds[id]; f != nil {
		if _, _, _, err := f.after(0); err == nil {
			f.watchers++
			return f, nil
		}
		delete(h.feeds, id) // failed: its watchers are ending
	}
	if h.live == nil {
		live, err := b.startLive(ctx)
		if err != nil {
			return nil, err
		}
		h.live = live
	}
	f := newFeed(id, h.live)
	f.watchers = 1
	h.feeds[id] = f
	go b.load(f)
	return f, nil
}

func (b *Bridge) leave(f *feed) {
	h := &b.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if f.watchers--; f.watchers > 0 {
		return
	}
	if h.feeds[f.id] == f {
		delete(h.feeds, f.id)
	}
	if len(h.feeds) == 0 && h.live != nil {
		h.live.cancel() // nobody watches: no consumer
		h.live = nil
	}
}

// load reads the feed's history from the stream.
func (b *Bridge) load(f *feed) {
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	history, err := b.history(ctx, f.id)
	f.loadDone(history, err)
}

// history is every stored event of submission id, in stream order, read
// message by message with "next by subject" gets: no consumer needed.
func (b *Bridge) history(ctx context.Context, id string) ([]*entry, error) {
	h, err := b.stream(ctx, protocol.EventsStream, false)
	if err != nil {
		return nil, err
	}
	subject := b.subjects().Events(id)
	var out []*entry
	for seq := uint64(1); ; {
		m, err := h.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return out, nil
		}
		if err != nil {
			b.forget(protocol.EventsStream)
			return nil, err
		}
		if e := b.newEntry(m.Sequence, m.Data); e != nil {
			out = append(out, e)
		}
		seq = m.Sequence + 1
	}
}

// newEntry frames an event; nil (logged) if it is not JSON.
func (b *Bridge) newEntry(seq uint64, data []byte) *entry {
	var buf bytes.Buffer
	typ, ok := b.frame(&buf, seq, data)
	if !ok {
		b.log.Warn().Uint64("seq", seq).Msg("bridge: event is not JSON; skipped")
		return nil
	}
	return &entry{seq: seq, final: typ == typeFinal, raw: data, jury: buf.Bytes()}
}

// view is the entry's SSE message for who; nil when it cannot be shown.
func (b *Bridge) view(e *entry, who viewer) []byte {
	if who == jury {
		return e.jury
	}
	e.once.Do(func() {
		// Every event passes here, history and live alike, and a resumed
		// stream starts here too: nothing reaches a contestant unfiltered.
		data, err := contestantEvent(e.raw)
		if err != nil {
			b.log.Warn().Err(err).Uint64("seq", e.seq).Msg("bridge: event cannot be filtered for a contestant; skipped")
			return
		}
		var buf bytes.Buffer
		if _, ok := b.frame(&buf, e.seq, data); ok {
			e.cview = buf.Bytes()
		}
	})
	return e.cview
}

// startLive creates the live consumer at the stream's next sequence and
// starts dispatching; h.mu is held.
func (b *Bridge) startLive(ctx context.Context) (*liveSub, error) {
	st, err := b.stream(ctx, protocol.EventsStream, false)
	if err != nil {
		return nil, err
	}
	ictx, icancel := context.WithTimeout(ctx, apiTimeout)
	defer icancel()
	info, err := st.Info(ictx)
	if err != nil {
		b.forget(protocol.EventsStream)
		return nil, err
	}
	oc, err := b.js.OrderedConsumer(ictx, protocol.EventsStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{b.subjects().Events(">")},
		// By start sequence rather than DeliverNew: should the ordered
		// consumer be recreated before its first message, it starts
		// again here, not at a later "now".
		DeliverPolicy:     jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:       info.State.LastSeq + 1,
		InactiveThreshold: consumerInactive,
	})
	if err != nil {
		return nil, err
	}
	it, err := oc.Messages(jetstream.PullMaxMessages(liveBatch))
	if err != nil {
		b.deleteConsumer(oc)
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	live := &liveSub{cancel: cancel}
	go b.runLive(lctx, live, oc, it)
	return live, nil
}

// runLive dispatches the live consumer's events to the feeds until it is
// cancelled or fails; a failure ends every feed it served, whose
// watchers end their streams and resume with Last-Event-ID.
func (b *Bridge) runLive(ctx context.Context, live *liveSub, oc jetstream.Consumer, it jetstream.MessagesContext) {
	defer b.deleteConsumer(oc)
	defer it.Stop()
	defer live.cancel()
	go func() { <-ctx.Done(); it.Stop() }()
	prefix := b.subjects().Events("")
	for {
		m, err := it.Next()
		if err != nil {
			if ctx.Err() == nil {
				b.log.Warn().Err(err).Msg("bridge: reading live events failed; ending the streams so that their clients resume")
				b.liveFailed(live, err)
			}
			return
		}
		md, err := m.Metadata()
		id, ok := strings.CutPrefix(m.Subject(), prefix)
		if err != nil || !ok {
			continue
		}
		b.hub.mu.Lock()
		f := b.hub.feeds[id]
		b.hub.mu.Unlock()
		if f != nil && f.live == live {
			if e := b.newEntry(md.Sequence.Stream, m.Data()); e != nil {
				f.add(e)
			}
		}
	}
}

func (b *Bridge) liveFailed(live *liveSub, err error) {
	h := &b.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.live == live {
		h.live = nil
	}
	for id, f := range h.feeds {
		if f.live == live {
			f.fail(err)
			delete(h.feeds, id)
		}
	}
}
