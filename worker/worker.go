package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/docketjudge/docket/internal/safedir"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// DefaultMaxSource is the default bound on a job's source bytes (all its
// files). A NATS message is at most the server's max_payload, 1 MiB by
// default, and JSON may spell one source byte in six (\u0000, and \ufffd
// for invalid UTF-8), so a 1 MiB bound could never be reached: the client
// refuses the message first. 128 KiB stays under 1 MiB in the worst case
// (768 KiB) with room for the rest of the job.
const DefaultMaxSource = 128 << 10

// Config is one worker's configuration (the process-wide parts come from
// the environment in cmd/docket).
type Config struct {
	Name        string // worker id in results and logs
	Prefix      string
	Queue       string
	AckWait     time.Duration
	MaxDeliver  int
	BackOff     []time.Duration
	Replicas    int
	MaxSource   int           // bytes of source per job; DefaultMaxSource when 0
	Grace       time.Duration // SIGTERM: time to finish the current job
	FetchWait   time.Duration // one pull request's expiry
	CacheDir    string        // unpacked packages
	CacheBytes  int64
	InlineDir   string // where inline problems are written
	Logger      zerolog.Logger
	Metrics     *Metrics
	EnsureInfra bool // create streams and the consumer (true for every worker)
	Mode        Mode // ModeJudge unless a capacity test asked for ModeCapacityTest by name
	// Feedback is the default feedback policy, for jobs and packages that
	// set none (DOCKET_FEEDBACK_POLICY); "" is problem.DefaultFeedback.
	Feedback problem.FeedbackPolicy
	// UnservedWait: a job on a queue no consumer serves is answered SE
	// after waiting this long (unserved.go); DefaultUnservedWait when 0.
	UnservedWait time.Duration
}

func (c *Config) defaults() {
	if c.Prefix == "" {
		c.Prefix = protocol.DefaultPrefix
	}
	if c.Queue == "" {
		c.Queue = protocol.DefaultQueue
	}
	if c.AckWait <= 0 {
		c.AckWait = 30 * time.Second
	}
	if c.MaxDeliver == 0 {
		c.MaxDeliver = 5
	}
	if c.MaxSource <= 0 {
		c.MaxSource = DefaultMaxSource
	}
	if c.UnservedWait <= 0 {
		c.UnservedWait = DefaultUnservedWait
	}
	if c.Grace <= 0 {
		c.Grace = 30 * time.Second
	}
	if c.FetchWait <= 0 {
		c.FetchWait = 2 * time.Second
	}
	if c.Mode == "" {
		c.Mode = ModeJudge
	}
	if c.Feedback == "" {
		c.Feedback = problem.DefaultFeedback
	}
	if c.Name == "" {
		h, _ := os.Hostname()
		c.Name = h + "-" + strconv.Itoa(os.Getpid())
	}
}

// heartbeat is the interval of InProgress while a job is judged: a third of
// the shortest ack deadline the server may apply. With BackOff set, the
// server's deadline for the Nth delivery is BackOff[N-1], not AckWait.
func (c *Config) heartbeat() time.Duration {
	d := c.AckWait
	for _, b := range c.BackOff {
		if b > 0 && b < d {
			d = b
		}
	}
	return d / 3
}

// Worker pulls jobs one at a time and judges them.
type Worker struct {
	cfg    Config
	nc     *nats.Conn
	js     jetstream.JetStream
	judge  *verdict.Judge
	cons   jetstream.Consumer
	subj   protocol.Subjects
	cache  *Cache
	ready  atomic.Bool
	inline inlineCache
	pause  fetchPause
}

// trustedDirs creates the problem cache and the inline problems'
// directory if missing and refuses them at start if another user owns or
// can write them (or a directory above them): what is there becomes the
// tests and checkers docket judges with.
func trustedDirs(cfg Config) error {
	for _, d := range []struct {
		name, dir string
		mode      os.FileMode
	}{{"problem cache", cfg.CacheDir, 0o700}, {"inline problems directory", cfg.InlineDir, 0o711}} {
		if d.dir == "" {
			continue
		}
		if err := safedir.Ensure(d.dir, d.mode); err != nil {
			return fmt.Errorf("worker: %s: %w", d.name, err)
		}
	}
	return nil
}

// New prepares a worker on a connection with its judge (one sandbox slot;
// nil only in ModeCapacityTest, which judges nothing).
func New(ctx context.Context, nc *nats.Conn, j *verdict.Judge, cfg Config) (*Worker, error) {
	cfg.defaults()
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, err
	}
	// A worker that guessed a policy could show secret details to every
	// contestant: it refuses to start instead.
	if _, err := problem.ParseFeedbackPolicy(string(cfg.Feedback)); err != nil {
		return nil, fmt.Errorf("worker: default %w", err)
	}
	if !protocol.ValidQueue(cfg.Queue) {
		return nil, fmt.Errorf("worker: queue %q is not a queue name: 1-64 characters of [A-Za-z0-9_-] (one subject token)", cfg.Queue)
	}
	if !protocol.ValidPrefix(cfg.Prefix) {
		return nil, fmt.Errorf("worker: subject prefix %q: tokens of [A-Za-z0-9_-] joined by dots", cfg.Prefix)
	}
	if j == nil && cfg.Mode != ModeCapacityTest {
		return nil, errors.New("worker: a judging worker needs a judge (a sandbox slot)")
	}
	if err := trustedDirs(cfg); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(256))
	if err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg, nc: nc, js: js, judge: j, subj: protocol.Subjects{Prefix: cfg.Prefix}}
	w.cache = &Cache{Dir: cfg.CacheDir, MaxBytes: cfg.CacheBytes}
	if cfg.EnsureInfra {
		if err := protocol.EnsureStreams(ctx, js, protocol.StreamOptions{Prefix: cfg.Prefix, Replicas: cfg.Replicas}); err != nil {
			return nil, err
		}
	}
	w.cons, err = protocol.EnsureConsumer(ctx, js, protocol.ConsumerOptions{Prefix: cfg.Prefix, Queue: cfg.Queue, AckWait: cfg.AckWait,
		MaxDeliver: cfg.MaxDeliver, BackOff: cfg.BackOff, Replicas: cfg.Replicas})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Ready reports whether the worker is connected and fetching.
func (w *Worker) Ready() error {
	if !w.nc.IsConnected() {
		return errors.New("not connected to NATS")
	}
	if !w.ready.Load() {
		return errors.New("worker not started")
	}
	return nil
}

// Run fetches and judges jobs until ctx is cancelled (SIGTERM). The job in
// hand is finished within the grace period, else its sandbox run is
// killed and it is given back with a confirmed nak for immediate
// redelivery; Run then returns nil.
func (w *Worker) Run(ctx context.Context) error {
	log := w.cfg.Logger
	adv, err := w.watchMaxDeliveries()
	if err != nil {
		return err
	}
	defer adv.Unsubscribe()
	sweepCtx, stopSweep := context.WithCancel(context.Background())
	swept := make(chan struct{})
	go func() { defer close(swept); w.sweepUnserved(sweepCtx) }()
	defer func() { stopSweep(); <-swept }()
	w.ready.Store(true)
	defer w.ready.Store(false)
	if w.cfg.Mode == ModeCapacityTest {
		log.Warn().Str("mode", string(w.cfg.Mode)).Str("verdict", string(verdict.SE)).Str("error", NotJudgedError).
			Msg("CAPACITY TEST MODE: THIS WORKER JUDGES NOTHING. Every job it takes is acked with the fixed result below. Never run it against a queue that holds real submissions.")
	}
	log.Info().Str("queue", w.cfg.Queue).Str("consumer", protocol.ConsumerName(w.cfg.Queue)).Str("mode", string(w.cfg.Mode)).Msg("worker fetching")
	for ctx.Err() == nil {
		if d := w.pause.wait(); d > 0 {
			log.Warn().Dur("pause", d).Msg("this worker cannot judge now (see the error above): pausing fetches so other workers take the jobs")
			select {
			case <-ctx.Done():
				continue
			case <-time.After(d):
			}
		}
		// The pull request is not cut short by ctx: the server may already
		// have handed a job to it, and a job sent to an inbox nobody reads
		// any more waits out the whole AckWait before another worker gets
		// it. So a stopping worker lets its last request expire (at most
		// FetchWait) and gives back what it brought.
		fctx, cancel := context.WithTimeout(context.Background(), w.cfg.FetchWait)
		msg, err := w.cons.Next(jetstream.FetchContext(fctx))
		cancel()
		if err == nil && ctx.Err() != nil {
			w.giveBack(log, msg)
			break
		}
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
				log.Warn().Err(err).Msg("fetch failed; retrying")
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
			continue
		}
		w.handle(ctx, msg)
	}
	log.Info().Msg("worker stopped fetching")
	return nil
}

// handle judges one job, from decoding to ack.
func (w *Worker) handle(stop context.Context, msg jetstream.Msg) {
	m := w.cfg.Metrics
	md, _ := msg.Metadata()
	attempt := 1
	if md != nil {
		attempt = int(md.NumDelivered)
	}
	job, derr := DecodeJob(msg.Data(), w.cfg.MaxSource)
	if derr == nil {
		derr = checkJobSubject(w.subj, msg.Subject(), job)
	}
	log := w.cfg.Logger.With().Str("submission_id", answerID(job, msg.Headers())).Int("attempt", attempt).Logger()
	if md != nil && attempt > 1 {
		m.redelivered()
	}
	if md != nil {
		m.queueWait(time.Since(md.Timestamp))
	}
	if derr != nil {
		w.endPoisoned(log, msg, storedFromMsg(msg, md), job, attempt, derr)
		return
	}
	// A result or final event already stored: a redelivery of a judged job
	// (its ack lost, or one of its two publishes). A first delivery cannot
	// have one, except after an embedded server lost its last moments, and
	// the result's Nats-Msg-Id covers that.
	if attempt > 1 && w.completeEarlier(log, msg, job.SubmissionID) {
		return
	}
	// SIGTERM: the job in hand gets the grace period, then is given back.
	jctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Heartbeats keep the job ours while it is judged; a lost lease (no
	// heartbeat for AckWait, the process was frozen) ends the judging.
	ls := newLease(3 * w.cfg.heartbeat()) // the shortest deadline the server may apply
	hbDone := make(chan struct{})
	go func() {
		t := time.NewTicker(w.cfg.heartbeat())
		defer t.Stop()
		for {
			select {
			case <-hbDone:
				return
			case <-t.C:
				if !ls.beat() {
					cancel()
					return
				}
				msg.InProgress()
				if w.jobLeftStream(msg, ls) {
					cancel()
					return
				}
			}
		}
	}()
	defer close(hbDone)
	go func() {
		select {
		case <-stop.Done():
			select {
			case <-time.After(w.cfg.Grace):
				cancel()
			case <-jctx.Done():
			}
		case <-jctx.Done():
		}
	}()

	ev := newEvents(w, job.SubmissionID, attempt)
	ev.lease = ls
	ev.publish(protocol.Event{Type: protocol.EventStarted, Worker: w.cfg.Name, Problem: jobProblem(job), Language: w.languageID(job.Language)})
	log.Info().Str("problem", job.Problem).Str("language", job.Language).Msg("judging")
	start := time.Now()
	m.inFlight(1)
	res, err := w.judgeJob(jctx, job, ev)
	m.inFlight(-1)
	if ls.lost() {
		w.abandon(log, ls)
		return
	}
	if jctx.Err() != nil {
		// The run in progress was killed and the judging reported
		// nothing more: only the events already sent go out.
		log.Warn().Msg("grace period over: judging abandoned, job given back for redelivery")
		ev.flush()
		w.giveBack(log, msg)
		return
	}
	if err != nil {
		var pe *PoisonError
		if errors.As(err, &pe) {
			res = w.errorResult(job, pe.Verdict, pe.Msg, attempt)
		} else {
			// Local to this worker (its problem cache cannot be written,
			// e.g. a full disk): give the job back for another worker; it
			// counts as a delivery, so a job no worker can take ends SE
			// after MaxDeliver attempts.
			log.Error().Err(err).Msg("cannot judge on this worker now; job given back (nak with delay)")
			ev.flush()
			msg.NakWithDelay(2 * time.Second)
			m.sandboxFailure()
			w.pause.failed()
			return
		}
	}
	res.Worker, res.Attempt = w.cfg.Name, attempt
	m.judgeTime(time.Since(start))
	// No flush needed before the final event: publishes on one connection
	// reach the server, and the events stream, in order.
	if ls.lost() {
		w.abandon(log, ls)
		return
	}
	if err := w.finish(context.Background(), job.SubmissionID, attempt, res, ev.seq+1); err != nil {
		log.Error().Err(err).Msg("could not store the result; nak for redelivery")
		msg.Nak()
		return
	}
	// A plain ack, not a confirmed one: the result is already stored, so
	// an ack lost on the way only causes a redelivery, which finds the
	// stored result and is acked without judging again. Waiting for the
	// confirmation would idle the slot for a round trip on every job.
	if err := msg.Ack(); err != nil {
		log.Warn().Err(err).Msg("ack failed (the result is stored; a redelivery will be acked)")
	}
	w.pause.ok()
	m.judged(string(res.Verdict), w.languageLabel(job.Language))
	log.Info().Str("verdict", string(res.Verdict)).Float64("score", res.Score).Dur("took", time.Since(start)).Msg("judged")
}

// endPoisoned answers a job that can never succeed (answerFinal: its id,
// else its Nats-Msg-Id, else a dead letter) and terminates it. A failed
// store naks it instead, so that the answer is tried again.
func (w *Worker) endPoisoned(log zerolog.Logger, msg jetstream.Msg, sj storedJob, job *protocol.Job, attempt int, derr error) {
	var pe *PoisonError
	errors.As(derr, &pe)
	where, err := w.answerFinal(context.Background(), sj, job, attempt, pe.Verdict, pe.Msg)
	if err != nil {
		log.Error().Err(err).Str("error", pe.Msg).Msg("could not store the error result; nak")
		msg.NakWithDelay(5 * time.Second)
		return
	}
	log.Warn().Str("error", pe.Msg).Str("answered_on", where).Msg("job can never succeed: final error result stored, job terminated")
	msg.TermWithReason(truncate(pe.Msg, 200))
	w.cfg.Metrics.judged(string(pe.Verdict), w.languageLabel(job.Language))
}

// judgeJob resolves the problem and judges (in ModeCapacityTest, resolves
// the problem only: the store traffic is the queue side's, the judging is
// not).
func (w *Worker) judgeJob(ctx context.Context, job *protocol.Job, ev *events) (*verdict.Result, error) {
	var p *problem.Problem
	var err error
	if job.InlineProblem != nil {
		p, err = w.inline.get(w.cfg.InlineDir, job.InlineProblem)
		if err != nil {
			return nil, poison(verdict.SE, "inline_problem: %v", err)
		}
	} else {
		p, err = w.problemFromStore(ctx, job)
		if errors.Is(err, ErrNoProblem) {
			return nil, poison(verdict.SE, "%v", err)
		}
		var le *problem.LoadError
		if errors.As(err, &le) {
			return nil, poison(verdict.SE, "broken problem package: %v", err)
		}
		if err != nil {
			return nil, err
		}
	}
	if w.cfg.Mode == ModeCapacityTest {
		res := NotJudgedResult(job.SubmissionID)
		res.FeedbackPolicy = w.earlyFeedback(job)
		return res, nil
	}
	policy := EffectiveFeedback(job.FeedbackPolicy, p.Feedback, w.cfg.Feedback)
	ev.policy = policy
	files := map[string][]byte{}
	for n, b := range job.Files {
		files[n] = []byte(b)
	}
	opt := verdict.Options{Observer: ev}
	if l := job.Limits; l != nil {
		opt.TimeLimit = time.Duration(l.TimeMs) * time.Millisecond
		opt.MemoryMB, opt.OutputMB = l.MemoryMB, l.OutputMB
	}
	// Abandoned (SIGTERM's grace over, the lease lost): the run in
	// progress is killed at once; handle gives the job back or drops it.
	res, err := w.judge.JudgeOrAbandon(ctx, p, verdict.Submission{ID: job.SubmissionID, Language: job.Language, Files: files, EntryPoint: job.EntryPoint}, opt)
	if err != nil {
		return nil, err
	}
	res.FeedbackPolicy = policy
	return res, nil
}

// earlyFeedback is the feedback policy of a result that ends a job
// before its problem is loaded: the job's when it is valid, else the
// worker's default. Such a result has no tests; it gets a policy all the
// same, because the bridge hides the error of a result without one (a
// worker before policies could quote a secret test there).
func (w *Worker) earlyFeedback(job *protocol.Job) problem.FeedbackPolicy {
	jp, err := problem.ParseFeedbackPolicy(string(job.FeedbackPolicy))
	if err != nil {
		jp = ""
	}
	return EffectiveFeedback(jp, "", w.cfg.Feedback)
}

// finish publishes the final result and the final event and waits for
// both to be stored. Both carry a Nats-Msg-Id per submission, so a
// redelivered job can never store a second final result.
func (w *Worker) finish(ctx context.Context, id string, attempt int, res *verdict.Result, seq int) error {
	res.V = 1
	if res.Tests == nil {
		res.Tests = []verdict.TestResult{}
	}
	if res.Groups == nil {
		res.Groups = []verdict.GroupResult{}
	}
	body, err := json.Marshal(res)
	if err != nil {
		return err
	}
	final, _ := json.Marshal(protocol.Event{V: protocol.Version, SubmissionID: id, Attempt: attempt, Seq: seq, Time: time.Now().UTC(), Type: protocol.EventFinal, Worker: w.cfg.Name, Result: res,
		FeedbackPolicy: res.FeedbackPolicy})
	// Both in flight at once, then both acknowledged: one round trip.
	rf, err := w.js.PublishAsync(w.subj.Results(id), body, jetstream.WithMsgID(protocol.ResultMsgID(id)))
	if err != nil {
		return fmt.Errorf("publish result: %w", err)
	}
	ff, err := w.js.PublishAsync(w.subj.Events(id), final, jetstream.WithMsgID(protocol.FinalMsgID(id)))
	if err != nil {
		return fmt.Errorf("publish final event: %w", err)
	}
	timeout := time.After(10 * time.Second)
	for _, f := range []struct {
		what string
		fut  jetstream.PubAckFuture
	}{{"result", rf}, {"final event", ff}} {
		select {
		case <-f.fut.Ok():
		case err := <-f.fut.Err():
			return fmt.Errorf("publish %s: %w", f.what, err)
		case <-timeout:
			return fmt.Errorf("publish %s: no acknowledgement within 10s", f.what)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// watchMaxDeliveries turns the max-deliveries advisory into a final SE
// result naming the number of attempts, and removes the job.
func (w *Worker) watchMaxDeliveries() (*nats.Subscription, error) {
	subject := "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + protocol.JobsStream + "." + protocol.ConsumerName(w.cfg.Queue)
	return w.nc.Subscribe(subject, func(a *nats.Msg) {
		var adv struct {
			StreamSeq  uint64 `json:"stream_seq"`
			Deliveries uint64 `json:"deliveries"`
		}
		if json.Unmarshal(a.Data, &adv) != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := w.js.Stream(ctx, protocol.JobsStream)
		if err != nil {
			return
		}
		raw, err := s.GetMsg(ctx, adv.StreamSeq)
		if err != nil {
			return // another worker handled it
		}
		job, _ := DecodeJob(raw.Data, 0)
		reason := fmt.Sprintf("gave up after %d attempts: every worker that took this job failed to finish it", adv.Deliveries)
		where, err := w.answerFinal(ctx, storedFromRaw(raw), job, int(adv.Deliveries), verdict.SE, reason)
		if err != nil {
			return
		}
		w.cfg.Logger.Warn().Str("submission_id", answerID(job, raw.Header)).Uint64("attempts", adv.Deliveries).Str("answered_on", where).
			Msg("max deliveries reached: final SE result")
		s.DeleteMsg(ctx, adv.StreamSeq)
	})
}

// events publishes a submission's progress asynchronously, bounded, so
// judging never waits on them.
type events struct {
	w       *Worker
	id      string
	attempt int
	seq     int
	lease   *lease
	policy  problem.FeedbackPolicy // the submission's, once its problem is loaded
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
	if _, err := e.w.js.PublishAsync(e.w.subj.Events(e.id), b, jetstream.WithMsgID(msgID)); err != nil {
		// Too many pending (a slow or unreachable server): progress is
		// best effort, the final result is not; drop this event.
		e.w.cfg.Logger.Debug().Err(err).Str("submission_id", e.id).Msg("progress event dropped")
	}
}

// flush waits briefly for pending events.
func (e *events) flush() {
	select {
	case <-e.w.js.PublishAsyncComplete():
	case <-time.After(5 * time.Second):
	}
}

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
