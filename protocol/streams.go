package protocol

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// StreamConfigs are the four streams of the protocol for o.
func StreamConfigs(o StreamOptions) []jetstream.StreamConfig {
	o = o.WithDefaults()
	s := Subjects{Prefix: o.Prefix}
	return []jetstream.StreamConfig{
		{Name: JobsStream, Subjects: []string{s.AllJobs()}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Replicas: o.Replicas, Duplicates: o.DedupWindow},
		{Name: EventsStream, Subjects: []string{s.Events(">")}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Replicas: o.Replicas, MaxAge: o.EventsAge, MaxMsgsPerSubject: EventsPerSubject,
			Discard: jetstream.DiscardOld, Duplicates: min(o.DedupWindow, o.EventsAge), AllowDirect: true},
		{Name: ResultsStream, Subjects: []string{s.Results(">")}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Replicas: o.Replicas, MaxAge: o.ResultsAge, MaxMsgsPerSubject: 1,
			Discard: jetstream.DiscardOld, Duplicates: min(o.DedupWindow, o.ResultsAge), AllowDirect: true},
		{Name: DeadLetterStream, Subjects: []string{s.DeadLetter()}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Replicas: o.Replicas, MaxAge: o.ResultsAge, MaxMsgs: DeadLetterMaxMsgs,
			Discard: jetstream.DiscardOld, Duplicates: min(o.DedupWindow, o.ResultsAge)},
	}
}

// ProblemBucketConfig is the object store of problem packages.
func ProblemBucketConfig(o StreamOptions) jetstream.ObjectStoreConfig {
	o = o.WithDefaults()
	return jetstream.ObjectStoreConfig{Bucket: ProblemBucket, Storage: jetstream.FileStorage, Replicas: o.Replicas,
		Description: "docket problem packages: one tar per problem id"}
}

// EnsureStreams creates or updates the four streams and the problem
// bucket (the worker, serve and problem push call it at start,
// idempotently): the configuration is the workers'.
func EnsureStreams(ctx context.Context, js jetstream.JetStream, o StreamOptions) error {
	for _, c := range StreamConfigs(o) {
		if _, err := js.CreateOrUpdateStream(ctx, c); err != nil {
			return fmt.Errorf("stream %s: %w", c.Name, err)
		}
	}
	if _, err := js.CreateOrUpdateObjectStore(ctx, ProblemBucketConfig(o)); err != nil {
		return fmt.Errorf("object store %s: %w", ProblemBucket, err)
	}
	return nil
}

// CreateMissingStreams creates those of the four streams that do not
// exist, with the same configurations as EnsureStreams, and leaves the
// existing ones as they are: the bridge calls it, so that it can start
// before any worker without deciding what the workers' streams mean.
func CreateMissingStreams(ctx context.Context, js jetstream.JetStream, o StreamOptions) error {
	for _, c := range StreamConfigs(o) {
		if _, err := js.CreateStream(ctx, c); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return fmt.Errorf("stream %s: %w", c.Name, err)
		}
	}
	return nil
}

// ConsumerConfig is a queue's durable consumer. Every worker of the queue
// shares it; MaxAckPending is consumer-wide, so it is set far above any
// replica count (each worker holds at most one job).
func ConsumerConfig(o ConsumerOptions) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable: ConsumerName(o.Queue), FilterSubjects: Subjects{Prefix: o.Prefix}.JobsFilter(o.Queue),
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: o.AckWait, MaxDeliver: o.MaxDeliver,
		BackOff: o.BackOff, MaxAckPending: 10000, MaxWaiting: 4096, Replicas: o.Replicas,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	}
}

// EnsureConsumer creates or updates the queue's durable consumer. A
// consumer made by an earlier docket (one FilterSubject, the first form)
// is updated in place to both forms; its pending jobs stay.
func EnsureConsumer(ctx context.Context, js jetstream.JetStream, o ConsumerOptions) (jetstream.Consumer, error) {
	cfg := ConsumerConfig(o)
	c, err := js.CreateOrUpdateConsumer(ctx, JobsStream, cfg)
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", cfg.Durable, err)
	}
	return c, nil
}
