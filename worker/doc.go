// Package worker is the queue side of docket: JetStream streams and the
// shared durable pull consumer, job decoding, judging one job at a time
// with InProgress heartbeats, publishing progress events and the final
// result, the problem store and its local cache, metrics and health. The
// judging itself is verdict's, the same code path as `docket run`.
//
// It must not import the sandbox, the bridge or cmd/docket: it judges
// through a Judger (verdict's slots), and the bridge only reads what it
// publishes.
//
// A Worker (New, Run) fetches a job and hands it, once its problem is
// loaded, to its Judger: Judging, a sandbox slot's verdict.Judge, or
// NotJudging, the capacity test's fixed SE (ModeCapacityTest). One
// concept per file:
//
//   - worker.go: the Worker, its start and its fetch loop
//   - config.go: Config and its defaults
//   - judger.go: the Judger interface, Judging, the problem lookup
//   - mode.go: the modes, NotJudging and its fixed result
//   - handle.go: one job, decoded, judged and settled
//   - hold.go: the hold on a job while it is judged (heartbeats, grace)
//   - lease.go: the lease a frozen worker loses
//   - settle.go: after the judging: abandon, give back, or store and ack
//   - events.go: progress events, asynchronous and bounded
//   - result.go: results, their policies and the final publish
//   - answer.go: the one final answer of a job that is not judged
//   - redelivery.go: a redelivery whose job an earlier attempt judged
//   - maxdeliveries.go: the max-deliveries advisory's final SE
//   - stop.go: the confirmed nak that gives a job back
//   - storeretry.go: waiting out an unavailable problem store
//   - pause.go: the fetch pause of a worker that cannot judge
//   - store.go, inline.go: problem packages, their cache, inline problems
//   - unserved.go: jobs on a queue no consumer serves
//   - protocol.go: job decoding and the effective feedback policy
//   - metrics.go: the Prometheus metrics
//   - streams.go: a pointer: the streams and the consumer are protocol's
package worker
