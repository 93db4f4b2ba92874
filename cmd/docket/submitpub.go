package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// errJobTooLarge: a job that no worker would judge (its sources over
// DOCKET_MAX_SOURCE_BYTES) or that the server would refuse (over its
// max_payload). docket submit refuses it before publishing anything.
var errJobTooLarge = errors.New("job too large")

// checkJobSize refuses, locally, a job whose sources exceed maxSource
// bytes (a worker would answer it CE) or whose JSON exceeds the server's
// max_payload (the client would refuse the message).
func checkJobSize(files map[string][]byte, body []byte, maxSource int, maxPayload int64) error {
	total := 0
	for _, b := range files {
		total += len(b)
	}
	if maxSource > 0 && total > maxSource {
		return fmt.Errorf("%w: the files hold %d bytes, over DOCKET_MAX_SOURCE_BYTES (%d); nothing was published", errJobTooLarge, total, maxSource)
	}
	if maxPayload > 0 && int64(len(body)) > maxPayload {
		return fmt.Errorf("%w: the job is %d bytes of JSON, over the NATS server's max_payload (%d bytes); nothing was published. Raise max_payload in the server's configuration (docs/protocol.md, \"Sizes\")",
			errJobTooLarge, len(body), maxPayload)
	}
	return nil
}

// flagSet reports whether the command line set the flag, so that an
// explicit 0 overrides the environment.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// publishAttempt bounds one publish: an attempt sent to a stream that is
// electing a leader may get no answer at all.
const publishAttempt = 5 * time.Second

// publishJob publishes a job with its Nats-Msg-Id, retrying a failed
// publish with the same id for up to retryFor (the stream's dedup window
// stores it once however many attempts reached it), saying so on
// progress. It fails when retryFor is spent, at once on an error no retry
// can mend (the message over max_payload), and when ctx ends.
func publishJob(ctx context.Context, js jetstream.JetStream, subject string, body []byte, id string, retryFor time.Duration, progress io.Writer) error {
	deadline := time.Now().Add(retryFor)
	wait := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, publishAttempt)
		ack, err := js.Publish(actx, subject, body, jetstream.WithMsgID(protocol.JobMsgID(id)))
		cancel()
		if err == nil {
			if ack.Duplicate && attempt > 1 {
				fmt.Fprintf(progress, "docket submit: %s was already stored by an earlier attempt (deduplicated)\n", id)
			}
			return nil
		}
		if errors.Is(err, nats.ErrMaxPayload) || ctx.Err() != nil {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("gave up after %d attempts in %v: %w", attempt, retryFor, err)
		}
		fmt.Fprintf(progress, "docket submit: publish failed: %v; retrying (%d), up to %v\n", err, attempt, retryFor)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(wait, left)):
		}
		wait = min(2*wait, 2*time.Second)
	}
}
