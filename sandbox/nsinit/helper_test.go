package nsinit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/docketjudge/docket/sandbox/rlimit"
	"github.com/docketjudge/docket/sandbox/seccomp/load"
	"golang.org/x/sys/unix"
)

// The tests below start this test binary as the helper (the constructor
// in nsinit.c takes it over) and speak the protocol to it, as Cmd.Start
// does. They stay on the host, so they only use requests that
// fail before any setup, or run harmless programs (true, sh, id) with the
// layers that need no namespace; the sandbox package tests the rest.

type helperRun struct {
	setup  string // the first message: "R" or "E" + message
	exec   string // after "R": "" (execve happened) or "X" + message
	stdout string
	exit   int
}

// runHelper sends raw (a framed request, possibly malformed), closes the
// request pipe (a helper waiting for more request bytes sees EOF) and
// waits. extra are the helper's files from fd 6 on (its cgroup files).
func runHelper(t *testing.T, raw []byte, attr *syscall.SysProcAttr, extra ...*os.File) helperRun {
	t.Helper()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	statR, statW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer statR.Close()
	var stdout bytes.Buffer
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{Arg0}
	cmd.Env = []string{}
	cmd.Stdout = &stdout
	cmd.ExtraFiles = append([]*os.File{reqR, statW, nil}, extra...)
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reqR.Close()
	statW.Close()
	reqW.Write(raw) // a helper that gave up early may not read it all
	reqW.Close()
	var run helperRun
	b := make([]byte, 1)
	if n, _ := statR.Read(b); n == 1 {
		run.setup = string(b)
	}
	rest, _ := io.ReadAll(statR)
	cmd.Wait()
	run.exit = cmd.ProcessState.ExitCode()
	if run.setup != "R" {
		run.setup += string(rest)
	} else if len(rest) < ReadyStamp {
		t.Fatalf("the ready byte has no stamp after it: % x", rest)
	} else if _, ok := StampAge(binary.LittleEndian.Uint64(rest)); !ok {
		t.Fatalf("the ready stamp % x is not a CLOCK_MONOTONIC time of the last minute", rest[:ReadyStamp])
	} else {
		rest = rest[ReadyStamp:]
		// Framed records from PID 1: an exec failure, the target's status.
		for len(rest) >= 5 {
			v := binary.LittleEndian.Uint32(rest[1:5])
			kind := rest[0]
			rest = rest[5:]
			switch kind {
			case ExecError:
				n := min(int(v), len(rest))
				run.exec = "X" + string(rest[:n])
				rest = rest[n:]
			case TargetStatus:
				run.exit = syscall.WaitStatus(v).ExitStatus()
				if len(rest) < StatusStamp {
					t.Fatalf("the target's status has no stamp after it: % x", rest)
				}
				if _, ok := StampAge(binary.LittleEndian.Uint64(rest)); !ok {
					t.Fatalf("the status stamp % x is not a CLOCK_MONOTONIC time of the last minute", rest[:StatusStamp])
				}
				rest = rest[StatusStamp:]
			default:
				t.Fatalf("unknown record %q", kind)
			}
		}
	}
	run.stdout = stdout.String()
	return run
}

func TestHelperMalformed(t *testing.T) {
	for _, tc := range []struct {
		raw  []byte
		want string
	}{
		{nil, "Eread request: EOF"},
		{[]byte{5, 0}, "Eread request: unexpected EOF"},
		{[]byte{9, 0, 0, 0}, "Eread request: EOF"},
		{[]byte{9, 0, 0, 0, 'A', 4, 0}, "Eread request: unexpected EOF"},
		{[]byte{0xff, 0xff, 0xff, 0xff}, "Eread request: request too large (4294967295 bytes)"},
		{[]byte{0, 0, 0, 2}, "Eread request: request too large (33554432 bytes)"},
		{[]byte{0, 0, 0, 0}, "Eread request: empty argv"},
	} {
		run := runHelper(t, tc.raw, nil)
		if run.setup != tc.want || run.exit != 127 {
			t.Errorf("%q: got %q, exit %d; want %q, exit 127", tc.raw, run.setup, run.exit, tc.want)
		}
	}
	for _, tc := range malformed {
		body := tc.body
		raw := append(u32(uint32(len(body))), body...)
		run := runHelper(t, raw, nil)
		if want := "Eread request: " + tc.want; run.setup != want || run.exit != 127 {
			t.Errorf("%s: got %q, exit %d; want %q, exit 127", tc.name, run.setup, run.exit, want)
		}
	}
}

func TestHelperSetupErrors(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(dir+"/sub", 0o755)
	os.WriteFile(dir+"/plain", []byte("data\n"), 0o644)
	env := []string{"PATH=/nonexistent-docket::" + dir}
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{Argv: []string{"docket-no-such-program"}, Env: env},
			"Efind program: docket-no-such-program: not found in the box or on PATH /nonexistent-docket::" + dir},
		{Request{Argv: []string{"sub"}, Env: env},
			"Efind program: sub: not found in the box or on PATH /nonexistent-docket::" + dir},
		{Request{Argv: []string{"x"}},
			"Efind program: x: not found in the box or on PATH "},
		{Request{Argv: []string{"./sub"}, Dir: dir}, "Efind program: ./sub: is a directory"},
		{Request{Argv: []string{dir + "/plain"}}, "Efind program: " + dir + "/plain: not executable: permission denied"},
		{Request{Argv: []string{"/nonexistent-docket/x"}}, "Efind program: /nonexistent-docket/x: no such file or directory"},
		{Request{Argv: []string{"/bin/true"}, Dir: "/nonexistent-docket"}, "Echdir /nonexistent-docket: no such file or directory"},
		// Rlimits and seccomp are applied in the forked target, after the
		// release: their failures are exec errors.
		{Request{Argv: []string{"/bin/true"}, Rlimits: []rlimit.Limit{{Resource: 99}}},
			"Xrlimit: setrlimit rlimit(99): invalid argument"},
		{Request{Argv: []string{"/bin/true"}, Rlimits: []rlimit.Limit{{Resource: unix.RLIMIT_CORE, Cur: 2, Max: 1}}},
			"Xrlimit: setrlimit RLIMIT_CORE: invalid argument"},
		{Request{Argv: []string{"/bin/true"}, Seccomp: load.Programs{{}, {{Code: 0xffff}}}},
			"Xseccomp: seccomp: load filter 1: invalid argument"},
	} {
		tc.req.UID, tc.req.GID = -1, -1
		run := runHelper(t, encode(t, &tc.req), nil)
		if tc.want[0] == ExecError {
			if run.setup != "R" || run.exec != tc.want || run.exit != 127 {
				t.Errorf("%v: got %+v; want ready, then %q, exit 127", tc.req.Argv, run, tc.want)
			}
			continue
		}
		if run.setup != tc.want || run.exit != 127 {
			t.Errorf("%v: got %q, exit %d; want %q, exit 127", tc.req.Argv, run.setup, run.exit, tc.want)
		}
	}
}

// allow is a filter that allows every call.
var allow = load.Program{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}

func TestHelperExec(t *testing.T) {
	req := &Request{
		Argv: []string{"sh", "-c", `ulimit -n; pwd; echo "$X"; grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status; ls /proc/self/fd`},
		Env:  []string{"PATH=/usr/bin:/bin", "X=y z"}, Dir: "/",
		UID: -1, GID: -1,
		Rlimits: []rlimit.Limit{{Resource: unix.RLIMIT_NOFILE, Cur: 17, Max: 17}},
		Seccomp: load.Programs{allow, allow},
	}
	run := runHelper(t, encode(t, req), nil)
	want := "17\n/\ny z\nNoNewPrivs:\t1\nSeccomp:\t2\n0\n1\n2\n3\n"
	if run.setup != "R" || run.exec != "" || run.exit != 0 || run.stdout != want {
		t.Errorf("got %+v, want stdout %q", run, want)
	}
}

// The target writes "0" to each file from fd 6 on, as many as the request
// says, before anything else of its own setup; a file it cannot write is an
// exec error, and the program never runs.
func TestHelperJoinsCgroupFiles(t *testing.T) {
	dir := t.TempDir()
	var files []*os.File
	for i := 0; i < 2; i++ {
		f, err := os.Create(filepath.Join(dir, fmt.Sprint("procs", i)))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files = append(files, f)
	}
	req := &Request{Argv: []string{"/bin/sh", "-c", "ls /proc/self/fd"}, Env: []string{"PATH=/usr/bin:/bin"}, UID: -1, GID: -1, CgroupFDs: 2}
	run := runHelper(t, encode(t, req), nil, files...)
	if run.setup != "R" || run.exec != "" || run.exit != 0 || run.stdout != "0\n1\n2\n3\n" {
		t.Errorf("got %+v, want the program run with stdio only", run)
	}
	for i := range files {
		if b, _ := os.ReadFile(files[i].Name()); string(b) != "0" {
			t.Errorf("file %d holds %q, want the target's \"0\"", i, b)
		}
	}
	marker := filepath.Join(dir, "ran")
	ro, err := os.Open(files[0].Name())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	req = &Request{Argv: []string{"/bin/touch", marker}, UID: -1, GID: -1, CgroupFDs: 1}
	run = runHelper(t, encode(t, req), nil, ro)
	if want := "Xcgroup join: bad file descriptor"; run.setup != "R" || run.exec != want || run.exit != 127 {
		t.Errorf("got %+v, want %q, exit 127", run, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the target ran without joining its cgroup")
	}
}

func TestHelperExecError(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/notelf", []byte("\x00\x01\x02 not a program\n"), 0o755)
	req := &Request{Argv: []string{"./notelf"}, Dir: dir, UID: -1, GID: -1}
	run := runHelper(t, encode(t, req), nil)
	if want := "Xexecve ./notelf: exec format error"; run.setup != "R" || run.exec != want || run.exit != 127 {
		t.Errorf("got %+v, want %q, exit 127", run, want)
	}
}

func TestHelperCredentials(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	// A new UTS namespace: the hostname must not change the host's.
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUTS}
	req := &Request{
		Argv: []string{"/bin/sh", "-c", "id -u; id -g; id -G; hostname; grep PPid /proc/self/status >/dev/null && echo ok"},
		Env:  []string{"PATH=/usr/bin:/bin"}, Dir: "/",
		Hostname: "docket-test", UID: 65534, GID: 65533,
	}
	run := runHelper(t, encode(t, req), attr)
	if want := "65534\n65533\n65533\ndocket-test\nok\n"; run.setup != "R" || run.exit != 0 || run.stdout != want {
		t.Errorf("got %+v, want stdout %q", run, want)
	}
	// The new uid must be able to execute the program: access(X_OK) runs
	// after the switch.
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	os.WriteFile(dir+"/rootonly", []byte("#!/bin/sh\n"), 0o700)
	req = &Request{Argv: []string{dir + "/rootonly"}, UID: 65534, GID: 65534}
	run = runHelper(t, encode(t, req), attr)
	if want := "Efind program: " + dir + "/rootonly: not executable: permission denied"; run.setup != want {
		t.Errorf("got %q, want %q", run.setup, want)
	}
	if !strings.HasPrefix(run.setup, "E") || run.exit != 127 {
		t.Errorf("exit %d, want 127", run.exit)
	}
}
