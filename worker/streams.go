package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// StreamOptions size the streams.
type StreamOptions struct {
	Prefix      string
	Replicas    int           // 1 on one server, 3 on a cluster
	EventsAge   time.Duration // default 24h
	ResultsAge  time.Duration // default 7 days
	DedupWindow time.Duration // Nats-Msg-Id window for jobs and results; default 1h
}

func (o *StreamOptions) defaults() {
	if o.Prefix == "" {
		o.Prefix = "docket"
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.EventsAge <= 0 {
		o.EventsAge = 24 * time.Hour
	}
	if o.ResultsAge <= 0 {
		o.ResultsAge = 7 * 24 * time.Hour
	}
	if o.DedupWindow <= 0 {
		o.DedupWindow = time.Hour
	}
}

// DeadLetterMaxMsgs bounds the dead-letter stream (oldest out).
const DeadLetterMaxMsgs = 100000

// EnsureStreams creates or updates the four streams and the problem
// bucket; every worker (and serve) calls it at start, idempotently.
func EnsureStreams(ctx context.Context, js jetstream.JetStream, o StreamOptions) error {
	o.defaults()
	cfgs := []jetstream.StreamConfig{
		{Name: JobsStream, Subjects: []string{o.Prefix + ".jobs.>"}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Replicas: o.Replicas, Duplicates: o.DedupWindow},
		{Name: EventsStream, Subjects: []string{o.Prefix + ".events.>"}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Replicas: o.Replicas, MaxAge: o.EventsAge, MaxMsgsPerSubject: 10000,
			Discard: jetstream.DiscardOld, Duplicates: min(o.DedupWindow, o.EventsAge), AllowDirect: true},
		{Name: ResultsStream, Subjects: []string{o.Prefix + ".results.>"}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Replicas: o.Replicas, MaxAge: o.ResultsAge, MaxMsgsPerSubject: 1,
			Discard: jetstream.DiscardOld, Duplicates: min(o.DedupWindow, o.ResultsAge), AllowDirect: true},
		// Answers to jobs that name no valid id: kept as long as results,
		// bounded in number so that a flood of garbage cannot fill the disk.
		{Name: DeadLetterStream, Subjects: []string{Subjects{o.Prefix}.DeadLetter()}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Replicas: o.Replicas, MaxAge: o.ResultsAge, MaxMsgs: DeadLetterMaxMsgs,
			Discard: jetstream.DiscardOld, Duplicates: min(o.DedupWindow, o.ResultsAge)},
	}
	for _, c := range cfgs {
		if _, err := js.CreateOrUpdateStream(ctx, c); err != nil {
			return fmt.Errorf("stream %s: %w", c.Name, err)
		}
	}
	if _, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: ProblemBucket, Storage: jetstream.FileStorage, Replicas: o.Replicas,
		Description: "docket problem packages: one tar per problem id",
	}); err != nil {
		return fmt.Errorf("object store %s: %w", ProblemBucket, err)
	}
	return nil
}

// ConsumerOptions configure the shared durable pull consumer.
type ConsumerOptions struct {
	Prefix     string
	Queue      string
	AckWait    time.Duration
	MaxDeliver int
	BackOff    []time.Duration
	Replicas   int
}

// ConsumerName is the durable consumer's name for a queue.
func ConsumerName(queue string) string { return "workers-" + queue }

// EnsureConsumer creates or updates the queue's durable consumer. Every
// worker of the queue shares it; MaxAckPending is consumer-wide, so it is
// set far above any replica count (each worker holds at most one job).
func EnsureConsumer(ctx context.Context, js jetstream.JetStream, o ConsumerOptions) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{
		Durable: ConsumerName(o.Queue), FilterSubject: o.Prefix + ".jobs." + o.Queue,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: o.AckWait, MaxDeliver: o.MaxDeliver,
		BackOff: o.BackOff, MaxAckPending: 10000, MaxWaiting: 4096, Replicas: o.Replicas,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	}
	c, err := js.CreateOrUpdateConsumer(ctx, JobsStream, cfg)
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", cfg.Durable, err)
	}
	return c, nil
}
