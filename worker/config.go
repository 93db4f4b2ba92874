package worker

import (
	"os"
	"strconv"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict/problem"
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
	Mode        Mode // ModeJudge unless a capacity test asked for ModeCapacityTest by name; New wants the mode's Judger
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
