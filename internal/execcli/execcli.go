// Package execcli is `docket exec`: its flags, its run and how it prints
// the result. cmd/docket registers it as a command; cmd/docket-exec is the
// same command as a small binary of its own, which starts several times
// faster than the whole worker (no NATS, no languages, no logging).
//
// It must not import any of docket's packages but sandbox, nor NATS,
// languages or logging, which would slow docket-exec's start.
package execcli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

// Exit codes, the same as docket's.
const (
	ExitOK     = 0
	ExitFailed = 1 // the program ended with another status than OK
	ExitUsage  = 2
	ExitSystem = 3 // the sandbox failed
)

// Help text of the command; name is how it is invoked ("docket exec" or
// "docket-exec").
const (
	Synopsis = "[flags] [--] CMD ARGS..."
	About    = "Runs CMD in the sandbox and prints its measurements; CMD is found in the box or on the sandbox's PATH.\n" +
		"docket's flags come before CMD: everything from CMD on is CMD's command line.\n" +
		"Exit: 0 OK, 1 any other status, 2 usage, 3 sandbox error."
)

// Example is the help's example line for the command called name.
func Example(name string) string {
	return name + " --time 1s --memory 64M -- /bin/echo hello"
}

// Flags are the command's flags once parsed.
type Flags struct {
	cpu, wall            *time.Duration
	mem, output, disk    *string
	procs, inodes        *int
	stdinPath, dir, cpus *string
	network, asJSON      *bool
	serve                *bool
	envs                 multiFlag
	fs                   *flag.FlagSet // what was set, for --serve
}

// Define defines the command's flags on fs.
func Define(fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs}
	f.cpu = DurationLimit(fs, "time", time.Second, "CPU time limit, a `duration` with a unit: 1s, 500ms")
	f.wall = DurationLimit(fs, "wall", 0, "wall time limit, a `duration` with a unit (default 2×time+1s)")
	f.mem = fs.String("memory", "256M", "memory limit (K, M, G suffixes)")
	f.procs = fs.Int("processes", 1, "processes allowed (1: fork refused, threads allowed)")
	f.output = fs.String("output", "64M", "stdout cap and file-size limit")
	f.disk = fs.String("disk", "64M", "bytes the program may write to /box and /tmp together (OLE disk beyond)")
	f.inodes = fs.Int("disk-inodes", 4096, "files and directories the program may create in /box and /tmp")
	f.stdinPath = fs.String("stdin", "", "file to use as stdin (default /dev/null)")
	f.dir = fs.String("dir", "", "host directory whose contents the program finds at /box, its working directory; what it changes there is copied back (created for the sandbox uid if missing; default: a fresh empty box)")
	f.network = fs.Bool("network", false, "keep the host network")
	f.asJSON = fs.Bool("json", false, "print one JSON object")
	f.cpus = fs.String("cpus", "", "pin to these CPUs (cpuset syntax)")
	fs.Var(&f.envs, "env", "extra KEY=VALUE for the program (repeatable)")
	f.serve = fs.Bool("serve", false, "serve docket-exec-client's commands on a unix socket ($DOCKET_EXEC_SOCKET, default exec.sock in the state directory) until SIGTERM or SIGINT: a warm sandbox for one command per process (docs/sandbox.md)")
	return f
}

// limits checks the size flags and returns the run's limits.
func (f *Flags) limits() (sandbox.Limits, error) {
	memBytes, err := parseSize(*f.mem)
	if err != nil {
		return sandbox.Limits{}, fmt.Errorf("--memory: %v", err)
	}
	outBytes, err := parseSize(*f.output)
	if err != nil {
		return sandbox.Limits{}, fmt.Errorf("--output: %v", err)
	}
	diskBytes, err := parseSize(*f.disk)
	if err != nil || diskBytes <= 0 || *f.inodes <= 0 {
		return sandbox.Limits{}, fmt.Errorf("--disk and --disk-inodes must be positive (%v)", err)
	}
	return sandbox.Limits{CPUTime: *f.cpu, WallTime: *f.wall, Memory: memBytes, Processes: *f.procs, Stdout: outBytes,
		CPUs: *f.cpus, Disk: diskBytes, DiskInodes: *f.inodes}, nil
}

// Command is one invocation: its name for messages, how it gets a slot,
// where its output goes and how it reads its paths. The zero values of
// the last four are a command run in this process: os.Stdout,
// os.Stderr, the working directory, no cancellation.
type Command struct {
	Name string // "docket exec", "docket-exec" or, served, "docket-exec-client"
	// Open opens a sandbox for this one command, which takes a slot of
	// it and releases both at the end. Unused when Slot is set.
	Open func() (*sandbox.Sandbox, error)
	// Slot, when set, lends the command a slot of a sandbox that outlives
	// it (the server, serve.go): done gives it back.
	Slot func() (slot *sandbox.Slot, done func(), err error)
	// Stdout and Stderr receive the result and the messages.
	Stdout, Stderr io.Writer
	// Dir is what a relative --dir or --stdin is read from.
	Dir string
	// Context, when it ends before the run, kills the run.
	Context context.Context
}

// Run runs the command line argv (fs's flags already parsed into f; argv
// is fs.Args()) and returns the exit code.
func (c Command) Run(f *Flags, argv []string) int {
	if *f.serve {
		return c.serveFlags(f, argv)
	}
	if len(argv) == 0 {
		c.failf("no command given (%s [flags] -- CMD ARGS...)", c.Name)
		return ExitUsage
	}
	lim, err := f.limits()
	if err != nil {
		c.failf("%v", err)
		return ExitUsage
	}
	slot, done, err := c.slot()
	if err != nil {
		c.failf("%v", err)
		return ExitSystem
	}
	defer done()
	res, code := c.run(f, slot, lim, argv)
	if code != ExitOK {
		return code
	}
	c.printResult(res, slot.Sandbox().Capabilities().Level, *f.asJSON)
	switch res.Status {
	case sandbox.OK:
		return ExitOK
	case sandbox.SE:
		return ExitSystem
	}
	return ExitFailed
}

// slot is the command's slot: lent by c.Slot, or of a sandbox opened for
// this command alone.
func (c Command) slot() (*sandbox.Slot, func(), error) {
	if c.Slot != nil {
		return c.Slot()
	}
	sb, err := c.Open()
	if err != nil {
		return nil, nil, err
	}
	slot, err := sb.AcquireSlot()
	if err != nil {
		return nil, nil, err
	}
	return slot, slot.Release, nil
}

// run prepares the Cmd from the flags and runs it; a run that fails to
// start is an SE result, a bad --dir or --stdin a usage error.
func (c Command) run(f *Flags, slot *sandbox.Slot, lim sandbox.Limits, argv []string) (*sandbox.Result, int) {
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	cmd := slot.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = f.envs
	cmd.Network = *f.network
	cmd.Limits = lim
	if *f.dir != "" {
		dir := c.path(*f.dir)
		if err := prepareBox(dir, slot); err != nil {
			c.failf("--dir: %v", err)
			return nil, ExitUsage
		}
		cmd.Box = dir
	}
	if *f.stdinPath != "" {
		in, err := os.Open(c.path(*f.stdinPath))
		if err != nil {
			c.failf("--stdin: %v", err)
			return nil, ExitUsage
		}
		defer in.Close()
		cmd.Stdin = in
	}
	res, err := cmd.Run()
	if err != nil {
		res = &sandbox.Result{Status: sandbox.SE, Source: sandbox.SourceSandbox, Error: err.Error()}
		if errors.Is(err, sandbox.ErrCanceled) {
			res.Source = sandbox.SourceCanceled
		}
	}
	return res, ExitOK
}

// path is p read from the command's directory.
func (c Command) path(p string) string {
	if c.Dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

func (c Command) stdout() io.Writer {
	if c.Stdout == nil {
		return os.Stdout
	}
	return c.Stdout
}

func (c Command) stderr() io.Writer {
	if c.Stderr == nil {
		return os.Stderr
	}
	return c.Stderr
}

// failf writes one message, prefixed with the command's name, to its
// stderr.
func (c Command) failf(format string, args ...any) {
	fmt.Fprintf(c.stderr(), "%s: %s\n", c.Name, fmt.Sprintf(format, args...))
}

// resultJSON is the --json output.
type resultJSON struct {
	Status        string `json:"status"`
	VerdictSource string `json:"verdict_source"`
	ExitCode      int    `json:"exit_code"`
	Signal        int    `json:"signal"`
	CPUMs         int64  `json:"cpu_ms"`
	UserMs        int64  `json:"user_ms"`
	SysMs         int64  `json:"sys_ms"`
	WallMs        int64  `json:"wall_ms"`
	MemoryKB      int64  `json:"memory_kb"`
	Stdout        string `json:"stdout"`
	Stderr        string `json:"stderr"`
	Error         string `json:"error,omitempty"`
	Level         string `json:"level"`
}

// printResult writes the result: one JSON object, or the program's output and
// a status line on stderr.
func (c Command) printResult(res *sandbox.Result, level sandbox.Level, asJSON bool) {
	stdout, stderr := c.stdout(), c.stderr()
	if asJSON {
		json.NewEncoder(stdout).Encode(resultJSON{
			Status: string(res.Status), VerdictSource: res.Source, ExitCode: res.ExitCode, Signal: res.Signal,
			CPUMs: res.CPUTime.Milliseconds(), UserMs: res.UserTime.Milliseconds(), SysMs: res.SysTime.Milliseconds(),
			WallMs: res.WallTime.Milliseconds(), MemoryKB: res.Memory >> 10,
			Stdout: string(res.Stdout), Stderr: string(res.Stderr), Error: res.Error,
			Level: level.String(),
		})
		return
	}
	stdout.Write(res.Stdout)
	stderr.Write(res.Stderr)
	fmt.Fprintf(stderr, "--- status %s", res.Status)
	if res.Source != "" {
		fmt.Fprintf(stderr, " (%s)", res.Source)
	}
	fmt.Fprintf(stderr, "  exit %d  signal %d  cpu %.3fs  wall %.3fs  memory %d KiB  level %s\n",
		res.ExitCode, res.Signal, res.CPUTime.Seconds(), res.WallTime.Seconds(), res.Memory>>10, level)
	if res.Error != "" {
		fmt.Fprintf(stderr, "--- error: %s\n", res.Error)
	}
}

// prepareBox creates a missing --dir for the slot's uid; an existing one is
// used as it is (docket changes no operator's files).
func prepareBox(dir string, slot *sandbox.Slot) error {
	st, err := os.Stat(dir)
	if err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		}
		return nil
	}
	if !os.IsNotExist(err) {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		return os.Chown(dir, slot.UID, slot.GID)
	}
	return nil
}
