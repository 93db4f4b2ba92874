// Package protocol is docket's wire protocol on NATS JetStream, defined
// once: the stream, consumer and bucket names, the subjects, the id and
// queue rules, the stream and consumer configurations, and the messages
// (Job, Event, Result, DeadLetter). The worker, the bridge, `docket
// submit` and `docket serve` all import it, so that whichever process
// creates a stream first, the stream means the same.
//
// It must not import any other package of docket's: every process that
// speaks to the queue imports it, and it depends on the NATS client alone.
//
// docs/protocol.md is the contract this package implements; a test checks
// that the document lists every field of every message as the code
// writes it.
package protocol

// Version is the "v" of every message.
const Version = 1
