package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go/jetstream"
)

// state is what the streams hold for one submission.
type state struct {
	verdict string // the stored result's, "" without one
	finals  int
	starts  int
}

func (s state) done() bool { return s.verdict != "" && s.finals == 1 }

// waitDone polls until every id is done, then prints one line per id and
// a summary; an id with two finals is a failure at once (it cannot heal).
func waitDone(js jetstream.JetStream, ids []string, wait time.Duration) error {
	var rs, es jetstream.Stream
	if err := try(func(ctx context.Context) (err error) {
		if rs, err = js.Stream(ctx, protocol.ResultsStream); err != nil {
			return err
		}
		es, err = js.Stream(ctx, protocol.EventsStream)
		return err
	}); err != nil {
		return err
	}
	subj := protocol.Subjects{Prefix: "docket"}
	end := time.Now().Add(wait)
	for {
		states, bad := map[string]state{}, 0
		for _, id := range ids {
			st, err := read(rs, es, subj, id)
			if err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			states[id] = st
			if !st.done() {
				bad++
			}
			if st.finals > 1 {
				end = time.Now()
			}
		}
		if bad == 0 || time.Now().After(end) {
			return report(ids, states, bad)
		}
		fmt.Printf("    %s: %d of %d not done yet\n", time.Now().Format("15:04:05"), bad, len(ids))
		time.Sleep(5 * time.Second)
	}
}

func report(ids []string, states map[string]state, bad int) error {
	verdicts, rejudged := map[string]int{}, 0
	for _, id := range ids {
		st := states[id]
		verdicts[st.verdict]++
		if st.starts > 1 {
			rejudged++
		}
		if !st.done() || st.starts > 1 {
			fmt.Printf("    %s verdict=%q finals=%d starts=%d\n", id, st.verdict, st.finals, st.starts)
		}
	}
	fmt.Printf("    %d submissions: verdicts %v, %d judged more than once, %d without one result and one final\n",
		len(ids), verdicts, rejudged, bad)
	if bad > 0 {
		return fmt.Errorf("%d of %d submissions lack one result and one final", bad, len(ids))
	}
	return nil
}

func read(rs, es jetstream.Stream, subj protocol.Subjects, id string) (state, error) {
	var st state
	err := try(func(ctx context.Context) error {
		m, err := rs.GetLastMsgForSubject(ctx, subj.Results(id))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		var r struct{ Verdict string }
		if err := json.Unmarshal(m.Data, &r); err != nil {
			return err
		}
		st.verdict = r.Verdict
		return nil
	})
	if err != nil {
		return st, err
	}
	for seq := uint64(1); ; {
		var m *jetstream.RawStreamMsg
		err := try(func(ctx context.Context) (err error) {
			m, err = es.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subj.Events(id)))
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				m, err = nil, nil
			}
			return err
		})
		if err != nil || m == nil {
			return st, err
		}
		seq = m.Sequence + 1
		var ev protocol.Event
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			return st, err
		}
		switch ev.Type {
		case "final":
			st.finals++
		case "started":
			st.starts++
		}
	}
}
