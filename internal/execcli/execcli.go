// Package execcli is `docket exec`: its flags, its run and how it prints
// the result. cmd/docket registers it as a command; cmd/docket-exec is the
// same command as a small binary of its own, which starts several times
// faster than the whole worker (no NATS, no languages, no logging).
package execcli

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
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
	envs                 multiFlag
}

// Define defines the command's flags on fs.
func Define(fs *flag.FlagSet) *Flags {
	f := &Flags{}
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

// Command is one invocation: its name for messages, how it opens the
// sandbox.
type Command struct {
	Name string // "docket exec" or "docket-exec"
	Open func() (*sandbox.Sandbox, error)
}

// Run runs the command line argv (fs's flags already parsed into f; argv
// is fs.Args()) and returns the exit code.
func (c Command) Run(f *Flags, argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintf(os.Stderr, "%s: no command given (%s [flags] -- CMD ARGS...)\n", c.Name, c.Name)
		return ExitUsage
	}
	lim, err := f.limits()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", c.Name, err)
		return ExitUsage
	}
	sb, err := c.Open()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", c.Name, err)
		return ExitSystem
	}
	slot, err := sb.AcquireSlot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", c.Name, err)
		return ExitSystem
	}
	defer slot.Release()
	res, code := c.run(f, slot, lim, argv)
	if code != ExitOK {
		return code
	}
	printResult(res, sb.Capabilities().Level, *f.asJSON)
	switch res.Status {
	case sandbox.OK:
		return ExitOK
	case sandbox.SE:
		return ExitSystem
	}
	return ExitFailed
}

// run prepares the Cmd from the flags and runs it; a run that fails to
// start is an SE result, a bad --dir or --stdin a usage error.
func (c Command) run(f *Flags, slot *sandbox.Slot, lim sandbox.Limits, argv []string) (*sandbox.Result, int) {
	cmd := slot.Command(argv[0], argv[1:]...)
	cmd.Env = f.envs
	cmd.Network = *f.network
	cmd.Limits = lim
	if *f.dir != "" {
		if err := prepareBox(*f.dir, slot); err != nil {
			fmt.Fprintf(os.Stderr, "%s: --dir: %v\n", c.Name, err)
			return nil, ExitUsage
		}
		cmd.Box = *f.dir
	}
	if *f.stdinPath != "" {
		in, err := os.Open(*f.stdinPath)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: --stdin: %v\n", c.Name, err)
			return nil, ExitUsage
		}
		defer in.Close()
		cmd.Stdin = in
	}
	res, err := cmd.Run()
	if err != nil {
		res = &sandbox.Result{Status: sandbox.SE, Source: sandbox.SourceSandbox, Error: err.Error()}
	}
	return res, ExitOK
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
func printResult(res *sandbox.Result, level sandbox.Level, asJSON bool) {
	if asJSON {
		json.NewEncoder(os.Stdout).Encode(resultJSON{
			Status: string(res.Status), VerdictSource: res.Source, ExitCode: res.ExitCode, Signal: res.Signal,
			CPUMs: res.CPUTime.Milliseconds(), UserMs: res.UserTime.Milliseconds(), SysMs: res.SysTime.Milliseconds(),
			WallMs: res.WallTime.Milliseconds(), MemoryKB: res.Memory >> 10,
			Stdout: string(res.Stdout), Stderr: string(res.Stderr), Error: res.Error,
			Level: level.String(),
		})
		return
	}
	os.Stdout.Write(res.Stdout)
	os.Stderr.Write(res.Stderr)
	fmt.Fprintf(os.Stderr, "--- status %s", res.Status)
	if res.Source != "" {
		fmt.Fprintf(os.Stderr, " (%s)", res.Source)
	}
	fmt.Fprintf(os.Stderr, "  exit %d  signal %d  cpu %.3fs  wall %.3fs  memory %d KiB  level %s\n",
		res.ExitCode, res.Signal, res.CPUTime.Seconds(), res.WallTime.Seconds(), res.Memory>>10, level)
	if res.Error != "" {
		fmt.Fprintf(os.Stderr, "--- error: %s\n", res.Error)
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
