// Command deploycheck is the queue-side check of `make deploy-test`
// (scripts/deploy-test.sh): against a running cluster, it says which
// server leads a stream, or waits until every given submission has a
// result and exactly one `final` event.
//
// It must not import any of docket's packages but protocol: it checks the
// cluster as a backend sees it.
//
//	deploycheck -nats URLS leader STREAM    prints the leader's server name
//	deploycheck -nats URLS done ID...       exit 0 once every id is done
//
// Events are read by direct get (the next message on the id's subject at
// or after a sequence), with no consumer: after a node is killed, a
// consumer per id was seen to miss events that were there (and to hang),
// which a checker must not confuse with lost ones.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	urls := flag.String("nats", nats.DefaultURL, "NATS URLs, comma-separated")
	wait := flag.Duration("wait", 5*time.Minute, "done: how long to wait for every id")
	flag.Parse()
	nc, err := nats.Connect(*urls, nats.MaxReconnects(-1))
	if err != nil {
		fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		fatal(err)
	}
	args := flag.Args()
	switch {
	case len(args) == 2 && args[0] == "leader":
		err = printLeader(js, args[1])
	case len(args) > 1 && args[0] == "done":
		err = waitDone(js, args[1:], *wait)
	default:
		err = errors.New("usage: deploycheck -nats URLS (leader STREAM | done ID...)")
	}
	if err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "deploycheck:", err)
	os.Exit(1)
}

// try calls f with a fresh 5 s context until it succeeds or 60 s pass:
// during a leader election requests fail for a few seconds.
func try(f func(ctx context.Context) error) error {
	var err error
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(time.Second) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = f(ctx)
		cancel()
		if err == nil {
			return nil
		}
	}
	return err
}

func printLeader(js jetstream.JetStream, stream string) error {
	return try(func(ctx context.Context) error {
		s, err := js.Stream(ctx, stream)
		if err != nil {
			return err
		}
		info, err := s.Info(ctx)
		if err != nil {
			return err
		}
		if info.Cluster == nil || info.Cluster.Leader == "" {
			return fmt.Errorf("stream %s has no leader", stream)
		}
		fmt.Println(info.Cluster.Leader)
		return nil
	})
}
