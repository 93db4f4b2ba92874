package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/natstest"
	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// BenchmarkBurst publishes a burst of trivial submissions (an inline a+b
// judged by a Python one-liner, so the judging is short and the queue's
// share shows), judges them with 2 in-process workers against an embedded
// JetStream server, and compares the end-to-end rate with the bare
// pipeline's (the same submissions judged by verdict.Judge on 2 slots, no
// NATS), measured in slices alternating with the queue's. DOCKET_BENCH_BURST
// sets the burst size (default 500; make bench uses 10000). Reported: publish rate, end-to-end and bare rates and their
// ratio, latency percentiles, none lost or duplicated.
func BenchmarkBurst(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("judging needs the full sandbox, which needs root")
	}
	n := 500
	if v, err := strconv.Atoi(os.Getenv("DOCKET_BENCH_BURST")); err == nil && v > 0 {
		n = v
	}
	sb, err := sandbox.New(sandbox.Config{StateDir: b.TempDir(), UIDBase: 65000})
	if err != nil {
		b.Fatal(err)
	}
	judges := make([]*verdict.Judge, 2)
	for i := range judges {
		slot, err := sb.AcquireSlot()
		if err != nil {
			b.Fatal(err)
		}
		defer slot.Release()
		judges[i] = &verdict.Judge{Slot: slot, Langs: langs.Builtin(), WorkDir: b.TempDir(), CacheDir: b.TempDir()}
	}
	files := map[string]string{"main.py": "a, b = map(int, input().split())\nprint(a + b)\n"}
	inline := &protocol.InlineProblem{Tests: []protocol.InlineTest{{Input: "1 2\n", Answer: "3\n"}}, TimeMs: 2000}
	for iter := 0; iter < b.N; iter++ {
		// The bare pipeline: the same judging without the queue.
		pdir := b.TempDir()
		p, err := WriteInline(pdir, inline)
		if err != nil {
			b.Fatal(err)
		}
		// Warm both paths' caches (interpreter pages, the sandbox) first.
		for k := 0; k < 10; k++ {
			judges[k%2].Judge(context.Background(), p, verdict.Submission{ID: "warm", Language: "python3", Files: map[string][]byte{"main.py": []byte(files["main.py"])}}, verdict.Options{})
		}
		// bare judges count submissions on the 2 slots, as verdict.Judge
		// does without any queue, and returns the time it took.
		per := n / 2
		total := 2 * per
		bareJudged := 0
		bare := func(count int) time.Duration {
			bareJudged += count / 2 * 2
			start := time.Now()
			var wg sync.WaitGroup
			for i := range judges {
				wg.Add(1)
				go func(j *verdict.Judge) {
					defer wg.Done()
					for k := 0; k < count/2; k++ {
						sub := verdict.Submission{ID: "bare", Language: "python3", Files: map[string][]byte{"main.py": []byte(files["main.py"])}}
						if r := j.Judge(context.Background(), p, sub, verdict.Options{}); r.Verdict != verdict.AC {
							b.Errorf("bare: %s %s", r.Verdict, r.Error)
							return
						}
					}
				}(judges[i])
			}
			wg.Wait()
			return time.Since(start)
		}

		ns := natstest.Start(b, natstest.InProcessOnly())
		nc, js := natstest.Connect(b, ns, jetstream.WithPublishAsyncMaxPending(4096))
		natstest.Streams(b, js)
		ctx, cancel := context.WithCancel(context.Background())
		// The whole burst is queued first.
		pubAt := make(map[string]time.Time, total)
		pubStart := time.Now()
		for k := 0; k < total; k++ {
			id := fmt.Sprintf("burst-%d", k)
			body, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: id, InlineProblem: inline, Language: "python3", Files: files})
			pubAt[id] = time.Now()
			if _, err := js.PublishAsync("docket.jobs.default", body, jetstream.WithMsgID(id)); err != nil {
				b.Fatal(err)
			}
		}
		<-js.PublishAsyncComplete()
		pubRate := float64(total) / time.Since(pubStart).Seconds()
		results := make(chan *nats.Msg, total)
		sub, _ := nc.ChanSubscribe("docket.results.>", results)
		rs, _ := js.Stream(context.Background(), protocol.ResultsStream)
		stored := func() int {
			info, err := rs.Info(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			return int(info.State.Msgs)
		}

		// Then the burst is judged in rounds, each a slice of the bare
		// pipeline followed by a slice of the queue with 2 workers started
		// afresh, so that drift in the shared machine's load weighs on
		// both sides alike. A round's queue time runs from the workers'
		// start until they have stopped, their last job stored.
		seen := map[string]int{}
		var lat []time.Duration
		var queueTime, paused time.Duration
		var lastResult time.Time
		receive := func(r *verdict.Result) {
			lastResult = time.Now()
			seen[r.SubmissionID]++
			if seen[r.SubmissionID] == 1 {
				// Time spent in the bare slices is not the queue's.
				lat = append(lat, time.Since(pubAt[r.SubmissionID])-paused)
			}
			if r.Verdict != verdict.AC {
				b.Errorf("%s: %s %s", r.SubmissionID, r.Verdict, r.Error)
			}
		}
		chunk := max(total/10, 2)
		deadline := time.Now().Add(time.Duration(total) * 400 * time.Millisecond)
		for round := 0; stored() < total && time.Now().Before(deadline); round++ {
			d := bare(chunk)
			paused += d
			rctx, rcancel := context.WithCancel(ctx)
			start := time.Now()
			var wwg sync.WaitGroup
			for i, j := range judges {
				wnc, _ := nats.Connect("", nats.InProcessServer(ns))
				w, err := New(rctx, wnc, Judging(j), Config{Name: fmt.Sprintf("w%d", i), EnsureInfra: round == 0, CacheDir: b.TempDir(), InlineDir: b.TempDir(), Logger: zerolog.Nop()})
				if err != nil {
					b.Fatal(err)
				}
				wwg.Add(1)
				go func() { defer wwg.Done(); w.Run(rctx); wnc.Close() }()
			}
			target := min(stored()+chunk, total)
		wait:
			for len(seen) < target && time.Now().Before(deadline) {
				select {
				case m := <-results:
					var r verdict.Result
					json.Unmarshal(m.Data, &r)
					receive(&r)
				case <-time.After(time.Second):
					if stored() >= target {
						break wait
					}
				}
			}
			rcancel()
			wwg.Wait()
			// The round ends with its last result: a worker stopping on an
			// empty queue waits out its pull request, which is idle time.
			for len(seen) < stored() {
				select {
				case m := <-results:
					var r verdict.Result
					json.Unmarshal(m.Data, &r)
					receive(&r)
				case <-time.After(5 * time.Second):
					b.Fatalf("only %d of %d stored results reached the subscriber", len(seen), stored())
				}
			}
			queueTime += lastResult.Sub(start)
		}
		queueJudged := stored()
		e2eRate := float64(queueJudged) / queueTime.Seconds()
		b.Logf("through the queue: %d in %v; bare: %d in %v", queueJudged, queueTime, bareJudged, paused)
		bareRate := float64(bareJudged) / paused.Seconds()
		cancel()
		sub.Unsubscribe()
		// Exactly one stored result per submission.
		dups := 0
		for _, c := range seen {
			if c > 1 {
				dups++
			}
		}
		if len(seen) != total || queueJudged != total || dups != 0 {
			b.Errorf("lost or duplicated: %d results seen of %d, %d stored, %d duplicated", len(seen), total, queueJudged, dups)
		}
		nc.Close()
		ns.Shutdown()
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		pct := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Milliseconds()) }
		b.ReportMetric(pubRate, "published/s")
		b.ReportMetric(bareRate, "bare-judged/s")
		b.ReportMetric(e2eRate, "queue-judged/s")
		b.ReportMetric(e2eRate/bareRate, "ratio")
		b.ReportMetric(pct(0.5), "latency-p50-ms")
		b.ReportMetric(pct(0.99), "latency-p99-ms")
		b.ReportMetric(float64(len(seen)), "submissions")
	}
}
