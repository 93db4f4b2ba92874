package protocol

import "time"

// StreamOptions size the streams. The zero value is the default of one
// server; every process that may create a stream (worker, serve, bridge,
// problem push) is given the same options from the same configuration.
type StreamOptions struct {
	Prefix      string
	Replicas    int           // 1 on one server, 3 on a cluster (DOCKET_REPLICAS)
	EventsAge   time.Duration // default 24h
	ResultsAge  time.Duration // default 7 days; also the dead letters'
	DedupWindow time.Duration // Nats-Msg-Id window; default 1h
}

// Defaults of StreamOptions.
const (
	DefaultEventsAge   = 24 * time.Hour
	DefaultResultsAge  = 7 * 24 * time.Hour
	DefaultDedupWindow = time.Hour
	// EventsPerSubject bounds one submission's events (oldest out).
	EventsPerSubject = 10000
	// DeadLetterMaxMsgs bounds the dead-letter stream (oldest out), so
	// that a flood of garbage cannot fill the disk.
	DeadLetterMaxMsgs = 100000
)

// WithDefaults returns o with every zero field set to its default.
func (o StreamOptions) WithDefaults() StreamOptions {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.EventsAge <= 0 {
		o.EventsAge = DefaultEventsAge
	}
	if o.ResultsAge <= 0 {
		o.ResultsAge = DefaultResultsAge
	}
	if o.DedupWindow <= 0 {
		o.DedupWindow = DefaultDedupWindow
	}
	return o
}

// ConsumerOptions configure a queue's shared durable pull consumer.
type ConsumerOptions struct {
	Prefix     string
	Queue      string
	AckWait    time.Duration
	MaxDeliver int
	BackOff    []time.Duration
	Replicas   int
}
