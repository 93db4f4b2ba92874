package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

func init() {
	register("exec", "run one command in the sandbox and print its measurements", runExec)
}

// execJSON is `docket exec --json`'s output.
type execJSON struct {
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

func runExec(args []string) int {
	fs := newFlags("exec", helpText{
		synopsis: "[flags] [--] CMD ARGS...",
		about: "Runs CMD in the sandbox and prints its measurements; CMD is found in the box or on the sandbox's PATH.\n" +
			"docket's flags come before CMD: everything from CMD on is CMD's command line.\n" +
			"Exit: 0 OK, 1 any other status, 2 usage, 3 sandbox error.",
		example: "docket exec --time 1s --memory 64M -- /bin/echo hello",
	})
	cpu := durationLimit(fs, "time", time.Second, "CPU time limit, a `duration` with a unit: 1s, 500ms")
	wall := durationLimit(fs, "wall", 0, "wall time limit, a `duration` with a unit (default 2×time+1s)")
	mem := fs.String("memory", "256M", "memory limit (K, M, G suffixes)")
	procs := fs.Int("processes", 1, "processes allowed (1: fork refused, threads allowed)")
	output := fs.String("output", "64M", "stdout cap and file-size limit")
	disk := fs.String("disk", "64M", "bytes the program may write to /box and /tmp together (OLE disk beyond)")
	inodes := fs.Int("disk-inodes", 4096, "files and directories the program may create in /box and /tmp")
	stdinPath := fs.String("stdin", "", "file to use as stdin (default /dev/null)")
	dir := fs.String("dir", "", "host directory whose contents the program finds at /box, its working directory; what it changes there is copied back (created for the sandbox uid if missing; default: a fresh empty box)")
	network := fs.Bool("network", false, "keep the host network")
	asJSON := fs.Bool("json", false, "print one JSON object")
	cpus := fs.String("cpus", "", "pin to these CPUs (cpuset syntax)")
	var envs multiFlag
	fs.Var(&envs, "env", "extra KEY=VALUE for the program (repeatable)")
	if code, ok := parseLeading(fs, args); !ok {
		return code
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "docket exec: no command given (docket exec [flags] -- CMD ARGS...)")
		return exitUsage
	}
	memBytes, err := parseSize(*mem)
	if err != nil {
		fmt.Fprintf(os.Stderr, "docket exec: --memory: %v\n", err)
		return exitUsage
	}
	outBytes, err := parseSize(*output)
	if err != nil {
		fmt.Fprintf(os.Stderr, "docket exec: --output: %v\n", err)
		return exitUsage
	}
	diskBytes, err := parseSize(*disk)
	if err != nil || diskBytes <= 0 || *inodes <= 0 {
		fmt.Fprintf(os.Stderr, "docket exec: --disk and --disk-inodes must be positive (%v)\n", err)
		return exitUsage
	}
	sb, err := openSandbox()
	if err != nil {
		fmt.Fprintf(os.Stderr, "docket exec: %v\n", err)
		return exitSystem
	}
	slot, err := sb.AcquireSlot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "docket exec: %v\n", err)
		return exitSystem
	}
	defer slot.Release()
	cmd := slot.Command(argv[0], argv[1:]...)
	cmd.Env = envs
	cmd.Network = *network
	cmd.Limits = sandbox.Limits{CPUTime: *cpu, WallTime: *wall, Memory: memBytes, Processes: *procs, Stdout: outBytes, CPUs: *cpus,
		Disk: diskBytes, DiskInodes: *inodes}
	if *dir != "" {
		if err := prepareBox(*dir, slot); err != nil {
			fmt.Fprintf(os.Stderr, "docket exec: --dir: %v\n", err)
			return exitUsage
		}
		cmd.Box = *dir
	}
	if *stdinPath != "" {
		f, err := os.Open(*stdinPath)
		if err != nil {
			fmt.Fprintf(os.Stderr, "docket exec: --stdin: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		cmd.Stdin = f
	}
	res, err := cmd.Run()
	if err != nil {
		res = &sandbox.Result{Status: sandbox.SE, Source: sandbox.SourceSandbox, Error: err.Error()}
	}
	if *asJSON {
		out := execJSON{
			Status: string(res.Status), VerdictSource: res.Source, ExitCode: res.ExitCode, Signal: res.Signal,
			CPUMs: res.CPUTime.Milliseconds(), UserMs: res.UserTime.Milliseconds(), SysMs: res.SysTime.Milliseconds(),
			WallMs: res.WallTime.Milliseconds(), MemoryKB: res.Memory >> 10,
			Stdout: string(res.Stdout), Stderr: string(res.Stderr), Error: res.Error,
			Level: sb.Capabilities().Level.String(),
		}
		enc := json.NewEncoder(os.Stdout)
		enc.Encode(out)
	} else {
		os.Stdout.Write(res.Stdout)
		os.Stderr.Write(res.Stderr)
		fmt.Fprintf(os.Stderr, "--- status %s", res.Status)
		if res.Source != "" {
			fmt.Fprintf(os.Stderr, " (%s)", res.Source)
		}
		fmt.Fprintf(os.Stderr, "  exit %d  signal %d  cpu %.3fs  wall %.3fs  memory %d KiB  level %s\n",
			res.ExitCode, res.Signal, res.CPUTime.Seconds(), res.WallTime.Seconds(), res.Memory>>10, sb.Capabilities().Level)
		if res.Error != "" {
			fmt.Fprintf(os.Stderr, "--- error: %s\n", res.Error)
		}
	}
	switch res.Status {
	case sandbox.OK:
		return exitOK
	case sandbox.SE:
		return exitSystem
	}
	return exitFailed
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

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// parseSize reads "256M", "64K", "1G" or a byte count.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := int64(1)
	for suf, m := range map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30} {
		if strings.HasSuffix(s, suf) || strings.HasSuffix(s, suf+"B") || strings.HasSuffix(s, suf+"IB") {
			s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, "IB"), "B"), suf)
			mult = m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
