package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/benchref"
	"github.com/docketjudge/docket/internal/testprog"
)

// BenchmarkExecCommand measures `docket exec -- /bin/true` as a whole
// command, one process per run as a user's script would start it, against
// `isolate --run -- /bin/true` (the reference sandbox, in a box
// initialised once) and plain fork+exec of /bin/true (the floor); and
// docket-exec, the small binary with the same flags, when the tree has
// it; and docket-exec-client, the C client, with the same command line
// run by a `docket-exec --serve` started for the benchmark (its sandbox
// warm: the whole command is the client's start, the request and the
// server's run), when a C compiler builds it. Each iteration runs each once, in turn, so the machine's noise hits
// all alike. Reported: each one's median in ms and docket's ratios to
// isolate and to plain. Iterations: -benchtime Nx (make bench: 60).
//
// isolate moves its process into its cgroups by pid, which takes the
// kernel's global threadgroup lock: taken again within a few ms (its own
// runs back to back, or other processes' cgroup moves) it is quick, but
// taken after a quiet spell it waits for an RCU grace period, about 10 ms
// here. In turn with the others its runs are quiet spells apart, so it is
// also measured warm: as many runs again, back to back, after the rounds
// ("isolate-warm", and docket's ratios to it).
func BenchmarkExecCommand(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skipf("the full sandbox needs root (uid %d)", os.Geteuid())
	}
	runners := execRunners(b)
	times := make([][]time.Duration, len(runners))
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i, r := range runners {
			times[i] = append(times[i], r.time(b))
		}
	}
	med := map[string]time.Duration{}
	for i, r := range runners {
		med[r.name] = benchref.Median(times[i])
		if r.name == "isolate" {
			warm := make([]time.Duration, b.N)
			for n := range warm {
				warm[n] = r.time(b)
			}
			med["isolate-warm"] = benchref.Median(warm)
		}
	}
	b.StopTimer()
	for name, m := range med {
		b.ReportMetric(benchref.Ms(m), name+"-median-ms")
	}
	for _, d := range []string{"docket", "docket-exec", "docket-exec-client"} {
		if _, ok := med[d]; !ok {
			continue
		}
		for _, iso := range []string{"isolate", "isolate-warm"} {
			if m, ok := med[iso]; ok {
				b.ReportMetric(float64(med[d])/float64(m), d+"/"+iso)
			}
		}
		b.ReportMetric(float64(med[d])/float64(med["plain"]), d+"/plain")
	}
}

// execRunner is one way of running /bin/true as a whole command.
type execRunner struct {
	name string
	cmd  func() *exec.Cmd
}

// time runs the command once and gives its wall time from start to exit;
// a run that fails ends the benchmark.
func (r execRunner) time(b *testing.B) time.Duration {
	var out bytes.Buffer
	cmd := r.cmd()
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0)
	if err != nil {
		b.Fatalf("%s: %v\n%s", r.name, err, out.Bytes())
	}
	return d
}

// execRunners builds docket (and docket-exec if present), warms each one's
// state directory with one run (a deployment keeps its state directory,
// with the namespace probe cached in it) and opens an isolate box; the
// ones that are missing are left out, saying why.
func execRunners(b *testing.B) []execRunner {
	bin := docketBinary(b)
	runners := []execRunner{docketRunner(b, "docket", bin, "exec")}
	if _, err := os.Stat("../docket-exec"); err == nil {
		de := filepath.Join(filepath.Dir(bin), "docket-exec")
		if out, err := exec.Command("go", "build", "-o", de, "../docket-exec").CombinedOutput(); err != nil {
			b.Fatalf("go build ../docket-exec: %v\n%s", err, out)
		}
		runners = append(runners, docketRunner(b, "docket-exec", de))
		if r, err := clientRunner(b, de); err != nil {
			b.Logf("docket-exec-client not measured: %v", err)
		} else {
			runners = append(runners, r)
		}
	} else {
		b.Log("no cmd/docket-exec in this tree: docket-exec not measured")
	}
	if iso, err := benchref.OpenIsolate(b, 90); err != nil {
		b.Logf("isolate column skipped: %v", err)
	} else {
		b.Logf("isolate box 90, --cg %v", iso.CG)
		runners = append(runners, execRunner{"isolate", func() *exec.Cmd {
			return iso.Command("/bin/true")
		}})
	}
	runners = append(runners, execRunner{"plain", func() *exec.Cmd { return exec.Command("/bin/true") }})
	for _, r := range runners {
		r.time(b)
	}
	return runners
}

// docketRunner runs `bin args... -- /bin/true` with a state directory of
// its own.
func docketRunner(b *testing.B, name, bin string, args ...string) execRunner {
	env := append(os.Environ(), "DOCKET_SANDBOX_DIR="+b.TempDir())
	argv := append(append([]string{}, args...), "--", "/bin/true")
	return execRunner{name, func() *exec.Cmd {
		cmd := exec.Command(bin, argv...)
		cmd.Env = env
		return cmd
	}}
}

// clientRunner builds docket-exec-client as make build does, starts
// `docket-exec --serve` on a state directory of its own (stopped when the
// benchmark ends) and runs the client against it.
func clientRunner(b *testing.B, docketExec string) (execRunner, error) {
	if _, err := exec.LookPath("gcc"); err != nil {
		return execRunner{}, fmt.Errorf("no C compiler: %w", err) // testprog would skip the whole benchmark
	}
	client := testprog.C(b, "../docket-exec-client/client.c")
	state := b.TempDir()
	server := exec.Command(docketExec, "--serve")
	server.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+state)
	var log bytes.Buffer
	server.Stdout, server.Stderr = &log, &log
	if err := server.Start(); err != nil {
		return execRunner{}, err
	}
	b.Cleanup(func() {
		server.Process.Signal(syscall.SIGTERM)
		server.Wait()
	})
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(state, "exec.sock")); err == nil {
			break
		}
		if time.Now().After(end) {
			return execRunner{}, fmt.Errorf("docket-exec --serve made no socket in 30 s: %s", log.Bytes())
		}
	}
	r := docketRunner(b, "docket-exec-client", client)
	cmdOf := r.cmd
	r.cmd = func() *exec.Cmd {
		cmd := cmdOf()
		cmd.Env = append(cmd.Env, "DOCKET_SANDBOX_DIR="+state, "DOCKET_EXEC_SOCKET="+filepath.Join(state, "exec.sock"))
		return cmd
	}
	return r, nil
}
