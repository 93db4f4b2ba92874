package protocol

// Stream and bucket names (docs/protocol.md, "Streams and the problem
// store").
const (
	JobsStream       = "DOCKET_JOBS"
	EventsStream     = "DOCKET_EVENTS"
	ResultsStream    = "DOCKET_RESULTS"
	DeadLetterStream = "DOCKET_DEADLETTER"
	ProblemBucket    = "docket-problems"
)

// DefaultPrefix starts every subject unless DOCKET_SUBJECT_PREFIX says
// otherwise.
const DefaultPrefix = "docket"

// DefaultQueue is the queue of a worker or a submission that names none.
const DefaultQueue = "default"

// ConsumerName is the durable pull consumer that every worker of a queue
// shares.
func ConsumerName(queue string) string { return "workers-" + queue }
