package sandbox_test

// The escape suite: hostile programs, each of which must be contained with
// the right status. The tests run inside internal/testguard's pid and mount
// namespace and pids-limited cgroup, so a sandbox bug fails a test instead
// of hurting the machine.

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/testprog"
	"github.com/docketjudge/docket/sandbox"
)

func hostile(tb testing.TB, name string) string {
	return testprog.C(tb, "testdata/hostile/"+name+".c", "-pthread")
}

type escapeCase struct {
	name       string
	prog       string
	args       []string
	limits     sandbox.Limits
	network    bool
	wantStatus sandbox.Status
	wantSource string
	// alsoStatus is another verdict that is right for the case, with any
	// source: a fork bomb stopped by the pids limit spins in failed forks,
	// and each failed fork allocates kernel memory (task, stack, page
	// tables) that is charged to the run's memory cgroup and freed only
	// after an RCU grace period; on a loaded host that debt can reach the
	// memory limit before the CPU limit, and the kernel's OOM kill is then
	// the true cause (seen in CI: MLE at 64 MiB after 41 ms).
	alsoStatus sandbox.Status
	// every string in want must appear in stdout, none of deny may
	want, deny []string
	check      func(t *testing.T, res *sandbox.Result)
}

func runEscape(t *testing.T, sl *sandbox.Slot, tc escapeCase) *sandbox.Result {
	t.Helper()
	bin := hostile(t, tc.prog)
	box := boxWith(t, sl, bin)
	cmd := sl.Command("./"+tc.prog, tc.args...)
	cmd.Box = box
	cmd.Limits = tc.limits
	cmd.Network = tc.network
	res, err := cmd.Run()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	out := string(res.Stdout)
	also := tc.alsoStatus != "" && res.Status == tc.alsoStatus
	if !also && (res.Status != tc.wantStatus || (tc.wantSource != "" && res.Source != tc.wantSource)) {
		t.Errorf("status %s (%s), want %s (%s); exit %d signal %d cpu %v wall %v mem %d KiB error %q\nstdout: %.500s\nstderr: %.500s",
			res.Status, res.Source, tc.wantStatus, tc.wantSource, res.ExitCode, res.Signal, res.CPUTime, res.WallTime, res.Memory>>10, res.Error, out, res.Stderr)
	}
	for _, w := range tc.want {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q: %.500s", w, out)
		}
	}
	for _, d := range tc.deny {
		if strings.Contains(out, d) {
			t.Errorf("stdout has %q: %s", d, linesWith(out, d))
		}
	}
	if tc.check != nil {
		tc.check(t, res)
	}
	assertClean(t, sl)
	return res
}

// assertClean checks that nothing of the slot's runs remains: no process
// of its uids, no cgroup, no temporary box.
func assertClean(t *testing.T, sl *sandbox.Slot, allowPids ...int) {
	t.Helper()
	sl.Settle() // the teardowns of runs that ended with their target
	allowed := map[int]bool{}
	for _, p := range allowPids {
		allowed[p] = true
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := processesOf(sl.UID, sl.TrustedUID)
		var bad []int
		for _, p := range left {
			if !allowed[p] {
				bad = append(bad, p)
			}
		}
		if len(bad) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of the slot's uids remain after the run: %v", bad)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	boxes, _ := os.ReadDir(filepath.Join(sl.Sandbox().Config().StateDir, "boxes"))
	if len(boxes) != 0 {
		t.Errorf("temporary boxes remain: %v", boxes)
	}
	for _, d := range cgroupChildren(sl.Sandbox()) {
		t.Errorf("run cgroup remains: %s", d)
	}
}

func processesOf(uids ...int) []int {
	want := map[string]bool{}
	for _, u := range uids {
		want[strconv.Itoa(u)] = true
	}
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" && want[f[1]] {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// cgroupChildren lists run cgroups left beneath docket's parents: the
// one unified directory on v2, the docket directory of each controller
// (beneath this process's own cgroup) on v1.
func cgroupChildren(sb *sandbox.Sandbox) []string { return cgroupsNamed(sb, sb.RunPrefix()) }

// cgroupsNamed lists the cgroups beneath docket's parents whose names
// start with prefix.
func cgroupsNamed(sb *sandbox.Sandbox, prefix string) []string {
	var dirs []string
	var out []string
	if p, ok := strings.CutPrefix(sandbox.CgroupParent(sb), "v2 "); ok {
		// The parent exists as long as the Sandbox does: a check that
		// cannot read it would pass whatever is left there.
		if _, err := os.ReadDir(p); err != nil {
			out = append(out, fmt.Sprintf("%s (the check cannot read it: %v)", p, err))
		}
		dirs = append(dirs, p)
	} else {
		dirs = v1DocketDirs()
	}
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	return out
}

func v1DocketDirs() []string {
	var dirs []string
	own, _ := os.ReadFile("/proc/self/cgroup")
	for _, line := range strings.Split(string(own), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || parts[1] == "" {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			if ctl == "memory" || ctl == "pids" || ctl == "cpuacct" {
				dirs = append(dirs, filepath.Join("/sys/fs/cgroup", ctl, parts[2], "docket"))
			}
		}
	}
	return dirs
}

func TestEscapeSuite(t *testing.T) { eachHelperPath(t, escapeSuite) }

// escapeFixture is what the suite's attacks aim at: listeners on the
// host, files the target must not read, a host process kill(-1) must miss.
type escapeFixture struct {
	quick             sandbox.Limits
	tcpPort, unixSock string
	exe, secret       string // the test binary, a worker's secret file
	otherAnswer       string // a file in another box
	sentinelPid       int
}

// newEscapeFixture sets the targets up; the sentinel process is killed
// when the test ends.
func newEscapeFixture(t *testing.T, sl *sandbox.Slot) (escapeFixture, *exec.Cmd) {
	f := escapeFixture{quick: sandbox.Limits{CPUTime: scaled(500 * time.Millisecond), WallTime: scaled(2 * time.Second), Memory: 64 << 20}}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tcp.Close() })
	go acceptAll(tcp)
	sockDir := t.TempDir()
	os.Chmod(sockDir, 0o777)
	f.unixSock = filepath.Join(sockDir, "s")
	ul, err := net.Listen("unix", f.unixSock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })
	os.Chmod(f.unixSock, 0o777)
	go acceptAll(ul)
	f.tcpPort = strconv.Itoa(tcp.Addr().(*net.TCPAddr).Port)

	// Files the target must not read: the worker's binary, a worker file,
	// a file in another box.
	f.exe, _ = os.Executable()
	secretDir := t.TempDir()
	os.Chmod(secretDir, 0o755)
	f.secret = filepath.Join(secretDir, "nats.creds")
	os.WriteFile(f.secret, []byte("SECRET"), 0o644)
	otherBox := boxWith(t, sl)
	f.otherAnswer = filepath.Join(otherBox, "answer.txt")
	os.WriteFile(f.otherAnswer, []byte("42"), 0o644)

	// A process outside the sandbox, of the host, that kill(-1) must miss.
	sentinel := exec.Command("/bin/sleep", "60")
	if err := sentinel.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sentinel.Process.Kill() })
	f.sentinelPid = sentinel.Process.Pid
	return f, sentinel
}

func escapeSuite(t *testing.T, sl *sandbox.Slot) {
	f, sentinel := newEscapeFixture(t, sl)
	cases := append(append(resourceCases(f), accessCases(f)...), syscallCases(f)...)
	os.Setenv("DOCKET_TEST_SECRET", "hunter2")
	defer os.Unsetenv("DOCKET_TEST_SECRET")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "tcp connect, network namespace only" {
				// socket() allowed (Network=false keeps the namespace but
				// this case lifts the seccomp rule): only the empty
				// namespace stands between the target and the listener.
				t.Skip("covered by the seccomp case; the namespace alone is checked in TestNetworkNamespace")
			}
			runEscape(t, sl, tc)
		})
	}
	if err := sentinel.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the host sentinel process died during the suite: %v", err)
	}
}

// resourceCases: bombs, floods and limits.
func resourceCases(f escapeFixture) []escapeCase {
	return []escapeCase{
		{name: "fork bomb, 1 process", prog: "forkbomb", limits: f.quick, wantStatus: sandbox.TLE},
		{name: "fork bomb, 16 processes", prog: "forkbomb", limits: with(f.quick, func(l *sandbox.Limits) { l.Processes = 16 }), wantStatus: sandbox.TLE, alsoStatus: sandbox.MLE,
			check: func(t *testing.T, r *sandbox.Result) {
				if r.WallTime > scaled(3*time.Second) {
					t.Errorf("fork bomb ran %v of wall time, past its %v wall limit: its tree was not stopped in time", r.WallTime, scaled(2*time.Second))
				}
			}},
		{name: "thread bomb", prog: "threadbomb", limits: f.quick, wantStatus: sandbox.TLE, alsoStatus: sandbox.MLE, want: []string{"threads "},
			check: func(t *testing.T, r *sandbox.Result) {
				var n int
				fmt.Sscanf(string(r.Stdout), "threads %d", &n)
				if n < 1 || n >= 64 {
					t.Errorf("thread bomb got %d threads, want 1..63 (pids limit 64)", n)
				}
			}},
		{name: "memory bomb", prog: "membomb", limits: f.quick, wantStatus: sandbox.MLE, wantSource: sandbox.SourceMemory},
		{name: "infinite loop", prog: "spin", limits: f.quick, wantStatus: sandbox.TLE, wantSource: sandbox.SourceCPU},
		{name: "sleep", prog: "sleeper", limits: f.quick, wantStatus: sandbox.TLE, wantSource: sandbox.SourceWall},
		{name: "stdout flood", prog: "stdoutflood", limits: with(f.quick, func(l *sandbox.Limits) { l.Stdout = 1 << 20 }), wantStatus: sandbox.OLE, wantSource: sandbox.SourceOutput,
			check: func(t *testing.T, r *sandbox.Result) {
				if len(r.Stdout) != 1<<20 {
					t.Errorf("kept %d bytes of stdout, want exactly the 1 MiB cap", len(r.Stdout))
				}
			}},
		{name: "file flood in the box", prog: "fileflood", args: []string{"/box/big"}, limits: with(f.quick, func(l *sandbox.Limits) { l.FileSize = 4 << 20 }), wantStatus: sandbox.OLE, wantSource: sandbox.SourceFileSize},
		{name: "file flood in /tmp", prog: "fileflood", args: []string{"/tmp/big"}, limits: with(f.quick, func(l *sandbox.Limits) { l.Disk = 4 << 20 }), wantStatus: sandbox.OLE, wantSource: sandbox.SourceDisk},
		{name: "many open files", prog: "manyfiles", limits: f.quick, wantStatus: sandbox.OK,
			check: func(t *testing.T, r *sandbox.Result) {
				var n int
				fmt.Sscanf(string(r.Stdout), "opened %d", &n)
				if n < 1 || n > 64 {
					t.Errorf("opened %d files, want at most 64 (RLIMIT_NOFILE)", n)
				}
			}},
	}
}

// accessCases: the network, files and processes of the host.
func accessCases(f escapeFixture) []escapeCase {
	return []escapeCase{
		{name: "tcp connect to loopback", prog: "connect", args: []string{"tcp", f.tcpPort}, limits: f.quick, wantStatus: sandbox.OK, want: []string{"blocked"}, deny: []string{"CONNECTED"}},
		{name: "unix socket connect", prog: "connect", args: []string{"unix", f.unixSock}, limits: f.quick, wantStatus: sandbox.OK, want: []string{"blocked"}, deny: []string{"CONNECTED"}},
		{name: "tcp connect, network namespace only", prog: "connect", args: []string{"tcp", f.tcpPort}, limits: f.quick, wantStatus: sandbox.OK, deny: []string{"CONNECTED"}},
		{name: "read secrets", prog: "readfile", args: []string{"/etc/shadow", f.exe, f.secret, f.otherAnswer, "/proc/" + strconv.Itoa(f.sentinelPid) + "/status", "/sys/kernel/notes", "/.oldroot/etc/shadow"},
			limits: f.quick, wantStatus: sandbox.OK, want: []string{"blocked /etc/shadow"}, deny: []string{"LEAK"}},
		{name: "environment", prog: "readfile", args: []string{"/proc/1/environ", "/proc/self/environ"}, limits: f.quick, wantStatus: sandbox.OK,
			want: []string{"ONLINE_JUDGE=1"}, deny: []string{"hunter2", "DOCKET_TEST_SECRET"}},
		{name: "write outside the box", prog: "writefile", args: []string{"/x", "/usr/x", "/etc/x", "/dev/x", "/proc/x", "/box/ok"}, limits: f.quick, wantStatus: sandbox.OK,
			want: []string{"WROTE /box/ok", "blocked /x", "blocked /usr/x"}, deny: []string{"WROTE /x", "WROTE /usr", "WROTE /etc", "WROTE /dev/x", "WROTE /proc"}},
		{name: "kill(-1)", prog: "killall", limits: f.quick, wantStatus: sandbox.OK, want: []string{"still alive"}},
	}
}

// syscallCases: calls the seccomp filter refuses, and what stays allowed.
func syscallCases(f escapeFixture) []escapeCase {
	return []escapeCase{
		{name: "ptrace", prog: "syscalls", args: []string{"ptrace"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp, deny: []string{"ALLOWED"}},
		{name: "mount", prog: "syscalls", args: []string{"mount"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp, deny: []string{"ALLOWED"}},
		{name: "unshare", prog: "syscalls", args: []string{"unshare"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp, deny: []string{"ALLOWED"}},
		{name: "chroot escape", prog: "syscalls", args: []string{"chroot"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp, deny: []string{"ALLOWED"}},
		{name: "bpf", prog: "syscalls", args: []string{"bpf"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp},
		{name: "keyctl", prog: "syscalls", args: []string{"keyctl"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp},
		// The helper's own calls (seccomp.HelperCalls), which the spare's
		// pre-filter lets through and the run's delta refuses.
		{name: "setns", prog: "syscalls", args: []string{"setns"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp, deny: []string{"ALLOWED"}},
		{name: "sethostname", prog: "syscalls", args: []string{"sethostname"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp, deny: []string{"ALLOWED"}},
		{name: "move_mount", prog: "syscalls", args: []string{"move_mount"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp, deny: []string{"ALLOWED"}},
		{name: "open_tree", prog: "syscalls", args: []string{"open_tree"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp, deny: []string{"ALLOWED"}},
		{name: "umount2", prog: "syscalls", args: []string{"umount2"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp, deny: []string{"ALLOWED"}},
		// A kernel built or booted without IA32 emulation refuses int 0x80
		// itself (a general protection fault: SIGSEGV) before seccomp sees
		// it; contained either way.
		{name: "i386 int 0x80", prog: "syscalls", args: []string{"int80"}, limits: f.quick, wantStatus: sandbox.RE, wantSource: sandbox.SourceSeccomp, alsoStatus: sandbox.RE, deny: []string{"ALLOWED"},
			check: func(t *testing.T, r *sandbox.Result) {
				if r.Source != sandbox.SourceSeccomp && r.Signal != int(syscall.SIGSEGV) {
					t.Errorf("int 0x80 ended %s (%s) signal %d: want SIGSYS from seccomp, or SIGSEGV from a kernel without IA32 emulation", r.Status, r.Source, r.Signal)
				}
			}},
		{name: "setuid(0)", prog: "syscalls", args: []string{"setuid"}, limits: f.quick, wantStatus: sandbox.OK, want: []string{"refused setuid"}},
		{name: "io_uring", prog: "syscalls", args: []string{"io_uring"}, limits: f.quick, wantStatus: sandbox.OK, want: []string{"refused io_uring: Function not implemented"}},
		{name: "clone3", prog: "syscalls", args: []string{"clone3"}, limits: f.quick, wantStatus: sandbox.OK, want: []string{"refused clone3: Function not implemented"}},
		{name: "fork in a single-process run", prog: "syscalls", args: []string{"fork"}, limits: f.quick, wantStatus: sandbox.OK, want: []string{"refused fork: Operation not permitted"}},
		{name: "fork when allowed", prog: "syscalls", args: []string{"fork"}, limits: with(f.quick, func(l *sandbox.Limits) { l.Processes = 4 }), wantStatus: sandbox.OK, want: []string{"ALLOWED fork"}},
		{name: "threads in a single-process run", prog: "threads", limits: f.quick, wantStatus: sandbox.OK, want: []string{"threads ok"}},
		{name: "grandchild outlives its parent", prog: "grandchild", limits: with(f.quick, func(l *sandbox.Limits) { l.Processes = 4 }), wantStatus: sandbox.OK, want: []string{"parent leaving"},
			check: func(t *testing.T, r *sandbox.Result) {
				if r.WallTime > scaled(time.Second) {
					t.Errorf("run took %v: the grandchild kept it alive", r.WallTime)
				}
			}},
		{name: "symlink tricks", prog: "symlinks", limits: f.quick, wantStatus: sandbox.OK, want: []string{"blocked /box/link0"}, deny: []string{"LEAK"}},
	}
}

// linesWith is the lines of out that hold s (what a denied word was
// printed with; the whole output can be long).
func linesWith(out, s string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func with(l sandbox.Limits, f func(*sandbox.Limits)) sandbox.Limits { f(&l); return l }

func acceptAll(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}
