package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/sandbox/mount"
)

func init() {
	register("selftest", "probe what this host allows, run built-in escape checks, print the isolation level", runSelftest)
}

type escapeCheck struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

type selftestReport struct {
	Capabilities sandbox.Capabilities `json:"capabilities"`
	MinLevel     string               `json:"min_level"`
	MeetsMin     bool                 `json:"meets_min_level"`
	Checks       []escapeCheck        `json:"escape_checks"`
	Error        string               `json:"error,omitempty"`
	// OK: the minimum level is met and every check passed (exit 0).
	OK bool `json:"ok"`
	// Key: with --once, what the kept report is valid for (selftest_once.go).
	Key string `json:"key,omitempty"`
}

func runSelftest(args []string) int {
	fs := newFlags("selftest", helpText{
		synopsis: "[--json] [--once]",
		about: "Probes namespaces, uid switch, cgroup version and controllers and seccomp, runs the\n" +
			"built-in escape checks, and prints the isolation level. Exit 0 when the configured\n" +
			"minimum level (DOCKET_SANDBOX_MIN_LEVEL, default full) is met and every check passed.\n" +
			"--once keeps the report in the state directory (selftest.json) and answers from it\n" +
			"while the same docket binary runs on the same boot: the container runs it at start,\n" +
			"and its health check's first step is the same command.",
		example: "docket selftest --json",
	})
	asJSON := fs.Bool("json", false, "print one JSON object")
	once := fs.Bool("once", false, "answer from the report kept since this binary's first selftest on this boot")
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	env, err := loadSandboxEnv()
	if err != nil {
		fmt.Fprintln(stderr, "docket selftest:", err)
		return exitUsage
	}
	cfg, err := env.Config()
	if err != nil {
		fmt.Fprintln(stderr, "docket selftest:", err)
		return exitUsage
	}
	if !*once {
		return reportSelftest(selftestNow(cfg), *asJSON)
	}
	keep, key := selftestReportPath(cfg), selftestKey()
	if rep, ok := loadSelftestReport(keep, key); ok {
		return reportSelftest(rep, *asJSON)
	}
	rep := selftestNow(cfg)
	rep.Key = key
	if err := saveSelftestReport(keep, rep); err != nil {
		fmt.Fprintln(stderr, "docket selftest: keeping the report:", err)
	}
	return reportSelftest(rep, *asJSON)
}

// selftestNow probes the host with cfg and, from level rlimits up, runs
// the escape checks.
func selftestNow(cfg sandbox.Config) selftestReport {
	rep := selftestReport{MinLevel: cfg.MinLevel.String()}
	sb, err := sandbox.New(cfg)
	if sb != nil {
		defer sb.Close()
		rep.Capabilities = sb.Capabilities()
	}
	rep.MeetsMin = err == nil
	if err != nil {
		rep.Error = err.Error()
	}
	if sb != nil && sb.Capabilities().Level >= sandbox.LevelRlimits {
		rep.Checks = runEscapeChecks(sb)
	}
	rep.OK = rep.MeetsMin
	for _, c := range rep.Checks {
		rep.OK = rep.OK && c.Passed
	}
	return rep
}

// reportSelftest prints rep and is its exit code.
func reportSelftest(rep selftestReport, asJSON bool) int {
	if asJSON {
		enc := json.NewEncoder(jsonOut)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		printSelftest(rep)
	}
	if !rep.OK {
		return exitFailed
	}
	return exitOK
}

func printSelftest(rep selftestReport) {
	c := rep.Capabilities
	fmt.Fprintf(stdout, "isolation level: %s (minimum %s)\n\nlayers:\n", c.LevelName, rep.MinLevel)
	for _, l := range c.Layers {
		mark := "ok     "
		if !l.Active {
			mark = "MISSING"
		}
		fmt.Fprintf(stdout, "  %s %-18s %s\n", mark, l.Name, l.Detail)
	}
	if len(rep.Checks) > 0 {
		fmt.Fprintf(stdout, "\nescape checks:\n")
		for _, ch := range rep.Checks {
			mark := "contained"
			if !ch.Passed {
				mark = "FAILED   "
			}
			fmt.Fprintf(stdout, "  %s %-22s %s\n", mark, ch.Name, ch.Detail)
		}
	}
	if rep.Error != "" {
		fmt.Fprintf(stdout, "\n%s\n", rep.Error)
	}
}

// runEscapeChecks runs the docket binary itself as a hostile program in
// the sandbox, once per attack.
func runEscapeChecks(sb *sandbox.Sandbox) []escapeCheck {
	exe, err := os.Executable()
	if err != nil {
		return []escapeCheck{{Name: "setup", Detail: err.Error()}}
	}
	slot, err := sb.AcquireSlot()
	if err != nil {
		return []escapeCheck{{Name: "setup", Detail: err.Error()}}
	}
	defer slot.Release()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	port := "0"
	if ln != nil {
		port = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	}
	os.Setenv("DOCKET_SELFTEST_SECRET", "selftest-secret")
	var out []escapeCheck
	for _, ch := range selftestAttacks(exe, port) {
		out = append(out, runAttack(slot, exe, ch))
	}
	return append(out, cloneNamespacesCheck(slot, exe))
}

// attack is one escape check: the hostile side's arguments, the status
// (and source) the sandbox must report, and, for a check whose output must
// say "contained", status OK.
type attack struct {
	name       string
	args       []string
	wantStatus sandbox.Status
	wantSource string
	stdin      string // a host file given as stdin, whose path must not show
	limits     sandbox.Limits
}

// attackLimits are an attack's limits unless it names its own. The wall
// time leaves the CPU limit room on a loaded or emulated host: a run that
// waited for a CPU is not a check that failed.
var attackLimits = sandbox.Limits{CPUTime: time.Second, WallTime: 10 * time.Second, Memory: 128 << 20}

// Limits the memory bomb and the disk flood reach in a fraction of their
// CPU time even under software emulation (about 20 times slower): a
// bomb that touches 128 MiB there spends its second of CPU first, and the
// check would fail on time instead of memory.
var (
	bombLimits  = sandbox.Limits{CPUTime: 10 * time.Second, WallTime: 30 * time.Second, Memory: 48 << 20}
	floodLimits = sandbox.Limits{CPUTime: 10 * time.Second, WallTime: 30 * time.Second, Memory: 128 << 20, Disk: 4 << 20}
)

func selftestAttacks(exe, port string) []attack {
	return []attack{
		{name: "read /etc/shadow", args: []string{"read", "/etc/shadow"}, wantStatus: sandbox.OK},
		{name: "read worker binary", args: []string{"read", exe}, wantStatus: sandbox.OK},
		{name: "see host processes", args: []string{"procs"}, wantStatus: sandbox.OK},
		{name: "write outside box", args: []string{"write", "/usr/docket-escape"}, wantStatus: sandbox.OK},
		{name: "recursive read-only", args: []string{"mounts"}, wantStatus: sandbox.OK},
		{name: "tcp to loopback", args: []string{"connect", "127.0.0.1:" + port}, wantStatus: sandbox.OK},
		{name: "fork", args: []string{"fork"}, wantStatus: sandbox.OK},
		{name: "environment", args: []string{"env"}, wantStatus: sandbox.OK},
		{name: "mount", args: []string{"mount"}, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp},
		{name: "ptrace", args: []string{"ptrace"}, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp},
		{name: "unshare", args: []string{"unshare"}, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp},
		{name: "memory bomb", args: []string{"membomb"}, wantStatus: sandbox.MLE, wantSource: sandbox.SourceMemory, limits: bombLimits},
		{name: "infinite loop", args: []string{"spin"}, wantStatus: sandbox.TLE, wantSource: sandbox.SourceCPU},
		{name: "disk flood", args: []string{"diskflood"}, wantStatus: sandbox.OLE, wantSource: sandbox.SourceDisk, limits: floodLimits},
		{name: "host paths", args: []string{"hostpaths"}, wantStatus: sandbox.OK, stdin: exe},
	}
}

// runAttack runs the docket binary itself, bound into the sandbox, as the
// attack's hostile side.
func runAttack(slot *sandbox.Slot, exe string, ch attack) escapeCheck {
	c := escapeCheck{Name: ch.name}
	cmd := slot.Command("/.selftest/docket", ch.args...)
	cmd.Args[0] = "/.selftest/docket"
	cmd.Env = []string{"DOCKET_ESCAPE=1"}
	cmd.Binds = []mount.Bind{{Source: exe, Target: "/.selftest/docket"}}
	cmd.Limits = attackLimits
	if ch.limits != (sandbox.Limits{}) {
		cmd.Limits = ch.limits
	}
	if ch.stdin != "" {
		in, err := os.Open(ch.stdin)
		if err != nil {
			c.Detail = err.Error()
			return c
		}
		defer in.Close()
		cmd.Stdin = in
	}
	res, err := cmd.Run()
	switch {
	case err != nil:
		c.Detail = err.Error()
	case res.Status != ch.wantStatus || (ch.wantSource != "" && res.Source != ch.wantSource):
		c.Detail = fmt.Sprintf("status %s (%s), want %s %s: %s %s", res.Status, res.Source, ch.wantStatus, ch.wantSource,
			strings.TrimSpace(string(res.Stdout)), res.Error)
	case ch.wantStatus == sandbox.OK && !strings.HasPrefix(string(res.Stdout), "contained"):
		c.Detail = strings.TrimSpace(string(res.Stdout))
	default:
		c.Passed = true
		c.Detail = fmt.Sprintf("%s %s %s", res.Status, res.Source, strings.TrimSpace(string(res.Stdout)))
	}
	return c
}

// escapeMain is the hostile side: one attack per invocation.
func escapeMain(args []string) int {
	if len(args) == 0 {
		return 2
	}
	say := func(escaped bool, f string, a ...any) int {
		if escaped {
			fmt.Fprintf(stdout, "ESCAPED "+f+"\n", a...)
			return 0
		}
		fmt.Fprintf(stdout, "contained "+f+"\n", a...)
		return 0
	}
	switch args[0] {
	case "read":
		b, err := os.ReadFile(args[1])
		return say(err == nil && len(b) > 0, "read %s: %v (%d bytes)", args[1], err, len(b))
	case "procs":
		// Visible: every pid but this process and the sandbox's own init.
		entries, _ := os.ReadDir("/proc")
		var others []string
		for _, e := range entries {
			if pid, err := strconv.Atoi(e.Name()); err == nil && pid != os.Getpid() && pid != 1 {
				others = append(others, e.Name())
			}
		}
		return say(len(others) > 0, "%d other processes visible %v", len(others), others)
	case "write":
		err := os.WriteFile(args[1], []byte("x"), 0o644)
		return say(err == nil, "write %s: %v", args[1], err)
	case "mounts":
		loose, detail := looseMounts()
		return say(loose, "%s", detail)
	case "connect":
		c, err := net.DialTimeout("tcp", args[1], time.Second)
		if c != nil {
			c.Close()
		}
		return say(err == nil, "connect %s: %v", args[1], err)
	case "fork":
		pid, _, e := syscall.RawSyscall(syscall.SYS_FORK, 0, 0, 0)
		if e == 0 && pid == 0 {
			os.Exit(0)
		}
		return say(e == 0, "fork: %v", e)
	case "env":
		leaked := os.Getenv("DOCKET_SELFTEST_SECRET") != "" || os.Getenv("DOCKET_NATS_URL") != ""
		return say(leaked, "environment has %d variables", len(os.Environ()))
	case "mount":
		err := syscall.Mount("none", "/tmp", "tmpfs", 0, "")
		return say(true, "mount: %v", err)
	case "ptrace":
		_, _, e := syscall.RawSyscall(syscall.SYS_PTRACE, syscall.PTRACE_TRACEME, 0, 0)
		return say(true, "ptrace: %v", e)
	case "clonens":
		return escapeCloneNS()
	case "unshare":
		_, _, e := syscall.RawSyscall(syscall.SYS_UNSHARE, syscall.CLONE_NEWUSER, 0, 0)
		return say(true, "unshare: %v", e)
	case "membomb":
		var keep [][]byte
		for {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = 1
			}
			keep = append(keep, b) //lint:ignore SA4010 the memory is the attack: kept until the cgroup ends it
		}
	case "spin":
		//lint:ignore SA5002 burning CPU is the attack: the time limit ends it
		for {
		}
	case "diskflood":
		return diskFlood(say)
	case "hostpaths":
		return hostPaths(say)
	}
	return 2
}

// diskFlood writes file after file into /tmp, ignoring SIGXFSZ, a new file
// at each refusal: the sandbox must end it OLE "disk" (it stops by itself
// after 1 GiB, which then is an escape).
func diskFlood(say func(bool, string, ...any) int) int {
	signal.Ignore(syscall.SIGXFSZ)
	buf := make([]byte, 1<<20)
	var total int64
	for i := 0; total < 1<<30 && i < 1<<16; i++ {
		f, err := os.Create(fmt.Sprintf("/tmp/flood%d", i))
		if err != nil {
			continue
		}
		for {
			n, err := f.Write(buf)
			total += int64(n)
			if err != nil {
				break
			}
		}
		f.Close()
	}
	return say(true, "wrote %d bytes", total)
}

// hostPaths looks for host paths where a run can read about itself: its
// standard descriptors (stdin is a host file) and the roots of its /box
// and /tmp mounts.
func hostPaths(say func(bool, string, ...any) int) int {
	var leaks []string
	for fd := 0; fd <= 2; fd++ {
		l, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
		if l != "/" && l != "/dev/null" && !strings.HasPrefix(l, "pipe:") && !strings.HasPrefix(l, "socket:") {
			leaks = append(leaks, fmt.Sprintf("fd %d: %s", fd, l))
		}
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return say(true, "mountinfo: %v", err)
	}
	for _, line := range strings.Split(string(mi), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && (f[4] == "/box" || f[4] == "/tmp") && f[3] != f[4] {
			leaks = append(leaks, f[4]+" is "+f[3])
		}
	}
	return say(len(leaks) > 0, "host paths seen: %d %v", len(leaks), leaks)
}
