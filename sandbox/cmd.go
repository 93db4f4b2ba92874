package sandbox

import (
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox/cgroup"
	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/nsinit"
	"github.com/docketjudge/docket/sandbox/seccomp"
	"golang.org/x/sys/unix"
)

// TargetIsChildOfInit reports whether the target runs under an init
// process of the helper's (pid 2) rather than as PID 1 of its namespace.
// A namespace init does not receive the signals the kernel sends on its
// own behalf with default action (SIGXFSZ, SIGXCPU, a raised SIGABRT).
const TargetIsChildOfInit = nsinit.TargetIsChildOfInit

// BoxDir is where the box appears inside the sandbox.
const BoxDir = nsinit.BoxDir

// BaseEnv is the whole environment of a target before Cmd.Env: nothing of
// the worker's environment (NATS credentials) reaches a run.
var BaseEnv = []string{
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"HOME=" + BoxDir,
	"TMPDIR=/tmp",
	"LANG=C.UTF-8",
	"ONLINE_JUDGE=1",
}

// Cmd is one sandboxed process. Set the fields, then Run, or Start and Wait.
// Made with Slot.CommandContext, it is killed when its context ends.
type Cmd struct {
	Slot *Slot
	// Args holds argv; Args[0] is found in the working directory when it
	// contains a slash, else on the sandbox's PATH.
	Args []string
	// Env is added to BaseEnv ("KEY=value"; a later entry wins).
	Env []string
	// Dir is the working directory inside the sandbox; default /box.
	Dir string
	// Box is the host directory mounted read-write at /box. Empty: a fresh
	// box owned by the slot's uid, removed after the run.
	Box string
	// BoxFrom, with Box empty, is a host directory whose contents the
	// fresh box starts with (copied in, with their owners and modes;
	// nothing is copied back): a compiled program that every test of a
	// submission starts from, without a host box per test.
	BoxFrom string
	// Binds are extra read-only directories (a language's toolchain).
	Binds []mount.Bind
	// Stdin: nil reads /dev/null. An *os.File is passed as is.
	Stdin io.Reader
	// Stdout, Stderr: an *os.File is passed as is (a file is capped by
	// FileSize; a pipe to another sandbox is not capped). Any other writer
	// gets the output through a pipe capped at Limits.Stdout / Limits.Stderr;
	// nil keeps it in Result.Stdout / Result.Stderr. When Stdout and Stderr
	// are the same writer (==, as os/exec compares them), both streams share
	// one pipe, as in a shell's 2>&1: the writer gets them in the order they
	// were written, from one goroutine, capped together at Limits.Stdout.
	Stdout io.Writer
	Stderr io.Writer
	Limits Limits
	// Network keeps the host's network (no network namespace, sockets allowed).
	Network bool
	// Trusted runs the process under the slot's trusted uid: for the
	// problem's own checkers and interactors.
	Trusted bool

	// ctx, from CommandContext, kills the run when it ends first.
	ctx context.Context
	// onEnd runs once, as soon as the target is known to have ended (its
	// exit status read, a kill ordered, or the helper reaped): RunPair's
	// order of the two ends.
	onEnd func()
	// boxProbe marks New's probe box: exec'd, not counted towards
	// starting the zygote.
	boxProbe bool

	// state is what a run holds, made by Start: nil until then.
	state *runState
}

// runState is the state of one run, from Start to the end of Wait: what
// the run made (helper, cgroup, space, pipes), its watchdogs and what they
// found, and how it ended. Kept apart from Cmd so that Cmd's fields are
// only what a caller sets, as in os/exec.
type runState struct {
	lim         Limits          // Cmd.Limits with defaults
	process     *os.Process     // the helper
	pgid        bool            // the helper leads a process group (no pid namespace)
	fast        bool            // Start asks the zygote for the helper first
	single      bool            // seccomp refuses fork: the target is the run's only process
	filter      seccomp.Options // what the run's seccomp filter is made for
	group       cgroup.Group
	kept        *keptRun    // group is the slot's kept group (slotgroups.go)
	groupSpec   cgroup.Spec // what group was made or reset for
	tmpBox      string
	space       *space         // the box and /tmp, with a mount namespace
	spaceKey    *spaceKey      // what space is made of: the slot makes one like it ahead
	pipesAhead  *pipeSet       // the pipes made for this run ahead (pipes_ahead.go), or nil
	net         *netNS         // the slot's network namespace the run entered, or nil
	netEntry    uint64         // the run's entry number in it (Slot.netSettled)
	watchers    sync.WaitGroup // watchdogs that use state cleanup frees
	start       time.Time      // the ready byte: the target's start
	pollers     []*poller      // the CPU and disk watchdogs
	stopContext func()         // ends the context's watchdog, or nil
	timer       *time.Timer    // the wall-clock watchdog
	refill      func()         // the zygote's refill for the spare this run took, once (refillSpares)
	refillAt    *time.Timer    // refills during a run that lasts
	copiers     sync.WaitGroup
	closers     []io.Closer
	stdout      *capped
	stderr      *capped
	killMu      sync.Mutex
	killed      Status
	killSrc     string
	killedAt    time.Time // the first kill: when a run the sandbox ended ended
	setupErr    string
	// the init protocol (TargetIsChildOfInit): what PID 1 reported
	records    chan struct{} // closed when the status pipe reached EOF
	gotStatus  chan struct{} // closed when PID 1's TargetStatus arrived
	statusPipe *os.File      // PID 1's records, for Wait to read (readStatusNow), or nil
	targetWS   syscall.WaitStatus
	targetEnd  time.Time
	hasWS      bool
	debugRec   debugRecord
	lastMark   time.Time // phases (Config.Trace)
	endOnce    sync.Once // onEnd
}

// Run starts the command and waits for it.
func (c *Cmd) Run() (*Result, error) {
	if err := c.Start(); err != nil {
		return nil, err
	}
	return c.Wait()
}

// SetupError is a failure of the sandbox itself before the target ran.
// Start returns it; the Result of such a run has Status SE.
type SetupError struct {
	Stage string
	Err   error
}

// Error names the stage of the setup that failed, and why.
func (e *SetupError) Error() string { return "sandbox: " + e.Stage + ": " + e.Err.Error() }

// Unwrap returns the failure behind the stage's.
func (e *SetupError) Unwrap() error { return e.Err }

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// mergeEnv appends extra to base; a later KEY wins.
func mergeEnv(base, extra []string) []string {
	idx := map[string]int{}
	var out []string
	for _, kv := range append(append([]string{}, base...), extra...) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}

var ncpuOnce = sync.OnceValue(func() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil && set.Count() > 0 {
		return set.Count()
	}
	return 1
})

func ncpus() int { return ncpuOnce() }
