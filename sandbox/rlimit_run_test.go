package sandbox_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"golang.org/x/sys/unix"
)

// envRlimitChild makes the test binary the worker of TestRlimitsExplicit
// (TestMain hands over to rlimitChild before the guard and the tests).
const envRlimitChild = "DOCKET_TEST_RLIMIT_CHILD"

// workerLimits are the worker's own limits in that child: each differs
// from what docket gives a run, so a limit that leaks from the worker
// into a run shows. The address-space limit is the case seen in
// production (a worker under ulimit -v timed out every JavaScript run).
// A worker with CAP_SYS_RESOURCE sets soft and hard limits; one without
// it (root in a container) cannot raise a hard limit, nor can docket
// raise one for its runs, so it lowers only soft limits, where its hard
// limit allows the value.
var workerLimits = map[int]uint64{
	unix.RLIMIT_AS:         6 << 30,
	unix.RLIMIT_DATA:       6 << 30,
	unix.RLIMIT_STACK:      8 << 20,
	unix.RLIMIT_NOFILE:     32,
	unix.RLIMIT_CORE:       1 << 20,
	unix.RLIMIT_MEMLOCK:    1 << 20,
	unix.RLIMIT_MSGQUEUE:   100000,
	unix.RLIMIT_NPROC:      5000,
	unix.RLIMIT_LOCKS:      100,
	unix.RLIMIT_SIGPENDING: 100,
	unix.RLIMIT_NICE:       5,
	unix.RLIMIT_RTPRIO:     3,
	unix.RLIMIT_RTTIME:     1000,
}

// The runs of the child: one per way of starting helpers, the second with
// an address-space limit of its own.
var rlimitRuns = []struct {
	name   string
	exec   bool
	limits sandbox.Limits
}{
	{"zygote", false, sandbox.Limits{CPUTime: time.Second, Memory: 64 << 20}},
	{"exec-helpers", true, sandbox.Limits{CPUTime: time.Second, Memory: 64 << 20, AddressSpace: 1 << 30, OpenFiles: 100}},
}

// procNames are the names /proc/self/limits gives the resources.
var procNames = map[int]string{
	unix.RLIMIT_CPU: "Max cpu time", unix.RLIMIT_FSIZE: "Max file size", unix.RLIMIT_DATA: "Max data size",
	unix.RLIMIT_STACK: "Max stack size", unix.RLIMIT_CORE: "Max core file size", unix.RLIMIT_RSS: "Max resident set",
	unix.RLIMIT_NPROC: "Max processes", unix.RLIMIT_NOFILE: "Max open files", unix.RLIMIT_MEMLOCK: "Max locked memory",
	unix.RLIMIT_AS: "Max address space", unix.RLIMIT_LOCKS: "Max file locks", unix.RLIMIT_SIGPENDING: "Max pending signals",
	unix.RLIMIT_MSGQUEUE: "Max msgqueue size", unix.RLIMIT_NICE: "Max nice priority", unix.RLIMIT_RTPRIO: "Max realtime priority",
	unix.RLIMIT_RTTIME: "Max realtime timeout",
}

const unlimited = unix.RLIM_INFINITY

// What each run must get (soft and hard are equal), every resource.
var wantLimits = []map[int]uint64{
	{
		unix.RLIMIT_CPU: 2, unix.RLIMIT_FSIZE: 64 << 20, unix.RLIMIT_DATA: unlimited,
		unix.RLIMIT_STACK: 64 << 20, unix.RLIMIT_CORE: 0, unix.RLIMIT_RSS: unlimited,
		unix.RLIMIT_NPROC: unlimited, unix.RLIMIT_NOFILE: 64, unix.RLIMIT_MEMLOCK: 0,
		unix.RLIMIT_AS: unlimited, unix.RLIMIT_LOCKS: unlimited, unix.RLIMIT_SIGPENDING: 1024,
		unix.RLIMIT_MSGQUEUE: 0, unix.RLIMIT_NICE: 0, unix.RLIMIT_RTPRIO: 0,
		unix.RLIMIT_RTTIME: 2000000,
	},
}

func init() {
	second := map[int]uint64{}
	for k, v := range wantLimits[0] {
		second[k] = v
	}
	second[unix.RLIMIT_AS], second[unix.RLIMIT_NOFILE] = 1<<30, 100
	wantLimits = append(wantLimits, second)
}

// mayRaiseLimits reports whether this process has CAP_SYS_RESOURCE.
func mayRaiseLimits() (bool, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var caps [2]unix.CapUserData
	if err := unix.Capget(&hdr, &caps[0]); err != nil {
		return false, err
	}
	return caps[0].Effective&(1<<unix.CAP_SYS_RESOURCE) != 0, nil
}

// procValue is how /proc/self/limits writes v.
func procValue(v uint64) string {
	if v == unlimited {
		return "unlimited"
	}
	return fmt.Sprint(v)
}

// Every rlimit of a run is docket's, none the worker's: a worker whose
// own limits are all different (lowered, or raised where docket's value
// is 0) starts runs, and each run reads its limits from /proc/self/limits.
// The worker is a child process (this test binary again) so that its
// limits touch no other test.
func TestRlimitsExplicit(t *testing.T) {
	testSandbox(t) // skips where there is no full sandbox
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit under the worker's lowered address-space limit")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envRlimitChild+"="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("worker child: %v\n%s", err, stderr.Bytes())
	}
	parts := strings.Split(string(out), "\x00")
	if len(parts) != len(rlimitRuns) {
		t.Fatalf("worker child printed %d runs, want %d:\n%s%s", len(parts), len(rlimitRuns), out, stderr.Bytes())
	}
	mayRaise, err := mayRaiseLimits()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rlimitRuns {
		got := parseLimits(parts[i])
		for res, want := range wantLimits[i] {
			var own unix.Rlimit
			if err := unix.Getrlimit(res, &own); err != nil {
				t.Fatal(err)
			}
			if !mayRaise {
				// Neither the worker nor docket may raise a hard limit
				// (the worker child kept this process's hard limits).
				want = min(want, own.Max)
			}
			w := procValue(want)
			if g := got[procNames[res]]; g != [2]string{w, w} {
				t.Errorf("%s: %s soft/hard %v, want %s (the worker's own: %d)", r.name, procNames[res], g, w, workerLimits[res])
			}
		}
	}
}

// parseLimits reads /proc/self/limits: name in the first 26 columns, then
// soft limit, hard limit and units.
func parseLimits(s string) map[string][2]string {
	out := map[string][2]string{}
	for _, line := range strings.Split(s, "\n")[1:] {
		if len(line) < 26 {
			continue
		}
		f := strings.Fields(line[26:])
		if len(f) >= 2 {
			out[strings.TrimSpace(line[:26])] = [2]string{f[0], f[1]}
		}
	}
	return out
}

// rlimitChild is the worker of TestRlimitsExplicit: it sets its own limits
// to workerLimits, starts each of rlimitRuns in a sandbox of its own
// (state under dir) and prints each run's /proc/self/limits, NUL between.
func rlimitChild(dir string) int {
	if err := setWorkerLimits(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var outs []string
	for i, r := range rlimitRuns {
		out, err := childRun(fmt.Sprintf("%s/%d", dir, i), 63700+100*i, r.exec, r.limits)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", r.name, err)
			return 1
		}
		outs = append(outs, out)
	}
	fmt.Print(strings.Join(outs, "\x00"))
	return 0
}

func childRun(state string, uidBase int, execHelpers bool, lim sandbox.Limits) (string, error) {
	sb, err := sandbox.New(sandbox.Config{StateDir: state, UIDBase: uidBase, ExecHelpers: execHelpers})
	if err != nil {
		return "", err
	}
	defer sb.Close()
	sandbox.Warm(sb)
	sl, err := sb.AcquireSlot()
	if err != nil {
		return "", err
	}
	defer sl.Release()
	cmd := sl.Command("/bin/cat", "/proc/self/limits")
	cmd.Limits = lim
	res, err := cmd.Run()
	if err != nil {
		return "", err
	}
	if res.Status != sandbox.OK {
		return "", fmt.Errorf("status %s (%s) %s: %s", res.Status, res.Source, res.Error, res.Stderr)
	}
	return string(res.Stdout), nil
}

// setWorkerLimits applies workerLimits to this process: soft and hard
// where it may raise hard limits, else the soft limit alone where the
// hard one allows it. It fails when it changed nothing docket must undo.
func setWorkerLimits() error {
	mayRaise, err := mayRaiseLimits()
	if err != nil {
		return err
	}
	set := 0
	for r, v := range workerLimits {
		var cur unix.Rlimit
		if err := unix.Getrlimit(r, &cur); err != nil {
			return err
		}
		want := unix.Rlimit{Cur: v, Max: v}
		if !mayRaise {
			if v > cur.Max {
				continue
			}
			want.Max = cur.Max
		}
		if err := unix.Setrlimit(r, &want); err != nil {
			return fmt.Errorf("setrlimit %d to %+v: %w", r, want, err)
		}
		set++
	}
	if set < 8 {
		return fmt.Errorf("only %d of the worker's limits could be set", set)
	}
	return nil
}
