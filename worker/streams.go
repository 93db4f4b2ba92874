package worker

// The streams, the problem bucket and the queue's consumer are the wire
// protocol's (package protocol): every worker creates or updates them at
// start with protocol.EnsureStreams and protocol.EnsureConsumer.
