package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/testprog"
	"golang.org/x/sys/unix"
)

// server is a running `docket-exec --serve`.
type server struct {
	cmd     *exec.Cmd
	socket  string
	log     lockedLog     // its stderr
	done    chan struct{} // closed when it has ended and its stderr is read
	waitErr error         // its Wait's, once done is closed
	once    sync.Once
}

// lockedLog is a server's stderr, written by exec's copy and read by the
// test.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServer starts bin --serve with the state directory state and the
// extra variables env, and waits for it to say it serves. The test's end
// stops it with SIGTERM and checks it ends cleanly and removes its socket.
func startServer(t *testing.T, bin, state string, env ...string) *server {
	t.Helper()
	s := &server{cmd: exec.Command(bin, "--serve"), socket: filepath.Join(state, "exec.sock"), done: make(chan struct{})}
	s.cmd.Env = append(append(os.Environ(), "DOCKET_SANDBOX_DIR="+state), env...)
	for _, e := range env {
		if p, ok := strings.CutPrefix(e, "DOCKET_EXEC_SOCKET="); ok {
			s.socket = p
		}
	}
	s.cmd.Stderr = &s.log
	s.cmd.WaitDelay = 5 * time.Second // for whatever else holds its stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() { s.stop(t) })
	if !waitFor(30*time.Second, func() bool { return strings.Contains(s.logged(), "serving on") || s.ended() }) || s.ended() {
		t.Fatalf("the server did not serve: %s", s.logged())
	}
	return s
}

func (s *server) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// stop sends the server SIGTERM (once) and checks it ends cleanly and
// removes its socket.
func (s *server) stop(t *testing.T) {
	s.once.Do(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		<-s.done
		if s.waitErr != nil {
			t.Errorf("the server, on SIGTERM: %v\n%s", s.waitErr, s.logged())
		}
		if _, err := os.Lstat(s.socket); !os.IsNotExist(err) {
			t.Errorf("the server left its socket %s (%v)", s.socket, err)
		}
	})
}

func (s *server) logged() string { return s.log.String() }

// buildClient puts the C client, compiled once per test binary as make
// build compiles it (testprog), into dir, beside docket-exec, where the
// client looks for docket-exec when no server runs.
func buildClient(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(testprog.C(t, "../docket-exec-client/client.c", "-Wall", "-Wextra", "-Werror"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "docket-exec-client")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// served builds docket-exec and the client and starts a server with a
// state directory of its own.
func served(t *testing.T) (bin, client, state string) {
	bin, client, state, _ = servedBy(t)
	return bin, client, state
}

func servedBy(t *testing.T) (bin, client, state string, s *server) {
	needRoot(t)
	bin = build(t, map[string]string{"docket-exec": "."})["docket-exec"]
	client = buildClient(t, filepath.Dir(bin))
	state = t.TempDir()
	return bin, client, state, startServer(t, bin, state)
}

// TestClientSameAsDocketExec: a command line through the client and its
// server gives what docket-exec gives for it: the JSON, the output, the
// exit codes, the usage errors and the help.
func TestClientSameAsDocketExec(t *testing.T) {
	bin, client, state := served(t)
	for _, args := range [][]string{
		{"--json", "--", "/bin/echo", "hello", ""},
		{"--json", "--", "/nonexistent"},
		{"--json", "--env", "X=1", "--", "/bin/sh", "-c", "echo $X; echo e >&2; exit 4"},
		{"--json", "--time", "100ms", "--", "/bin/sh", "-c", "while :; do :; done"},
		{"--json", "--memory", "16M", "--processes", "4", "--", "/bin/sh", "-c", "echo ok"},
	} {
		direct, _, directCode := run(t, state, append([]string{bin}, args...)...)
		served, errOut, servedCode := run(t, state, append([]string{client}, args...)...)
		a, b := stable(t, direct), stable(t, served)
		if directCode != servedCode || !reflect.DeepEqual(a, b) {
			t.Errorf("%v: docket-exec exit %d %v, the client exit %d %v (stderr %q)", args, directCode, a, servedCode, b, errOut)
		}
	}
	out, errOut, code := run(t, state, client, "--", "/bin/sh", "-c", "echo out; echo err >&2; exit 3")
	if code != 1 || out != "out\n" || !strings.HasPrefix(errOut, "err\n--- status RE") {
		t.Errorf("plain output: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, args := range [][]string{{}, {"--bogus", "--", "/bin/true"}, {"--time", "2", "--", "/bin/true"}, {"--serve"}} {
		if _, errOut, code := run(t, state, append([]string{client}, args...)...); code != 2 || !strings.Contains(errOut, "docket-exec-client") {
			t.Errorf("%v: exit %d (want 2), stderr %q", args, code, errOut)
		}
	}
	direct, _, _ := run(t, state, bin, "--help")
	served, _, code := run(t, state, client, "--help")
	if a, b := helpBody(direct), helpBody(served); code != 0 || a != b || !strings.HasPrefix(served, "usage: docket-exec-client") {
		t.Errorf("--help: exit %d, differs from docket-exec's:\n%s\n---\n%s", code, a, b)
	}
}

// TestClientPaths: relative --stdin and --dir are the client's, read
// from its working directory, not the server's.
func TestClientPaths(t *testing.T) {
	_, client, state := served(t)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "in.txt"), []byte("from the client's directory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(client, "--stdin", "in.txt", "--dir", "box", "--processes", "4", "--", "/bin/sh", "-c", "cat; echo made > made.txt")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+state)
	out, err := cmd.Output()
	if err != nil || string(out) != "from the client's directory\n" {
		t.Fatalf("%v: %q", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(work, "box", "made.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("the run's file in the client's --dir: %q, %v", b, err)
	}
	// A client started with its stdout closed: its socket would take
	// descriptor 1 and the server would write the output into the
	// connection itself (stuck once the socket's buffer is full), so the
	// client gives it /dev/null.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	closed := exec.CommandContext(ctx, "/bin/sh", "-c", `exec "$0" -- /usr/bin/head -c 4000000 /dev/zero >&-`, client)
	closed.Env = cmd.Env
	closed.WaitDelay = time.Second // the server holds the client's stderr
	if out, err := closed.CombinedOutput(); err != nil {
		t.Errorf("stdout closed, 4 MB of output: %v (ctx %v), %q", err, ctx.Err(), out)
	}
}

// TestClientKilledKillsRun: a client killed while its command runs ends
// the run; the server goes on serving.
func TestClientKilledKillsRun(t *testing.T) {
	_, client, state := served(t)
	const mark = "37.25" // the sleep's argument, to find it among the host's processes
	cmd := exec.Command(client, "--wall", "60s", "--", "/bin/sleep", mark)
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+state)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool { return sleeping(mark) }) {
		cmd.Process.Kill()
		t.Fatal("the run's sleep never showed up")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !waitFor(10*time.Second, func() bool { return !sleeping(mark) }) {
		t.Fatal("the run's sleep outlived its client by 10 s")
	}
	if out, errOut, code := run(t, state, client, "--", "/bin/echo", "next"); code != 0 || out != "next\n" {
		t.Errorf("after a killed client: exit %d, %q %q", code, out, errOut)
	}
}

// sleeping says whether a process `/bin/sleep mark` is running on the
// host: the run's target, whose command line is exactly that (the
// client's own ends with it).
func sleeping(mark string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && string(b) == "/bin/sleep\x00"+mark+"\x00" {
			return true
		}
	}
	return false
}

func waitFor(d time.Duration, ok func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return true
		}
	}
	return ok()
}

// TestServerRefuses: what the server refuses, each with a clear answer,
// and it goes on serving: a client of another user, a client whose
// sandbox variables differ, malformed requests, --serve with a command,
// a second server on the socket.
func TestServerRefuses(t *testing.T) {
	needRoot(t)
	bin := build(t, map[string]string{"docket-exec": "."})["docket-exec"]
	client := buildClient(t, filepath.Dir(bin))
	state := t.TempDir()
	open, err := os.MkdirTemp("", "docket-exec-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(open) })
	os.Chmod(open, 0o755)
	sockEnv := "DOCKET_EXEC_SOCKET=" + filepath.Join(open, "exec.sock")
	s := startServer(t, bin, state, sockEnv)
	clientRun := func(extra []string, cred *syscall.Credential, args ...string) (string, int) {
		cmd := exec.Command(client, args...)
		cmd.Env = append(append(os.Environ(), "DOCKET_SANDBOX_DIR="+state, sockEnv), extra...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		cmd.Run()
		return stderr.String(), cmd.ProcessState.ExitCode()
	}
	// Another user, even with the socket's mode opened to everyone.
	os.Chmod(s.socket, 0o666)
	if errOut, code := clientRun(nil, &syscall.Credential{Uid: 65534, Gid: 65534}, "--", "/bin/true"); code != 3 || !waitFor(5*time.Second, func() bool { return strings.Contains(s.logged(), "refused a client") }) {
		t.Errorf("uid 65534: exit %d (want 3), stderr %q, server log %q", code, errOut, s.logged())
	}
	if errOut, code := clientRun([]string{"DOCKET_SANDBOX_MIN_LEVEL=none"}, nil, "--", "/bin/true"); code != 2 || !strings.Contains(errOut, "DOCKET_SANDBOX_MIN_LEVEL") {
		t.Errorf("another minimum level: exit %d (want 2), stderr %q", code, errOut)
	}
	for name, req := range malformed() {
		reply, errOut := rawRequest(t, s.socket, req)
		if reply != "\x02" || (req.fds == 2 && !strings.Contains(errOut, "malformed request")) {
			t.Errorf("%s: reply %q (want exit code 2), stderr %q", name, reply, errOut)
		}
	}
	for _, args := range [][]string{{"--serve", "--", "/bin/true"}, {"--serve", "--json"}} {
		if _, errOut, code := run(t, state, append([]string{bin}, args...)...); code != 2 || !strings.Contains(errOut, "--serve takes no command") {
			t.Errorf("%v: exit %d (want 2), stderr %q", args, code, errOut)
		}
	}
	second := exec.Command(bin, "--serve")
	second.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+t.TempDir(), sockEnv)
	if out, err := second.CombinedOutput(); second.ProcessState.ExitCode() != 3 || !strings.Contains(string(out), "already listens") {
		t.Errorf("a second server on the socket: %v, %s", err, out)
	}
	if errOut, code := clientRun(nil, nil, "--", "/bin/true"); code != 0 {
		t.Errorf("a good request after the refusals: exit %d, %s", code, errOut)
	}
}

// rawReq is a request written by hand: its bytes and how many
// descriptors go with them.
type rawReq struct {
	bytes []byte
	fds   int
}

func malformed() map[string]rawReq {
	length := func(n uint32, rest string) []byte { return append(binary.LittleEndian.AppendUint32(nil, n), rest...) }
	good := "docket-exec-client 1\x00/\x00\x00/bin/true\x00"
	return map[string]rawReq{
		"no descriptors":      {length(uint32(len(good)), good), 0},
		"three descriptors":   {length(uint32(len(good)), good), 3},
		"another magic":       {length(23, "docket-exec-client 9\x00/\x00\x00"), 2},
		"too long":            {length(64<<20, ""), 2},
		"shorter than said":   {length(100, good), 2},
		"longer than said":    {length(4, good), 2},
		"closed mid-length":   {[]byte{1, 0}, 2},
		"a variable not ours": {length(uint32(len("docket-exec-client 1\x00/\x00PATH=/\x00\x00")), "docket-exec-client 1\x00/\x00PATH=/\x00\x00"), 2},
	}
}

// rawRequest sends req on a fresh connection, with the write ends of
// pipes as its descriptors, and returns the server's reply and what it
// wrote to the second descriptor.
func rawRequest(t *testing.T, socket string, req rawReq) (reply, stderr string) {
	t.Helper()
	sock, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sock)
	if err := unix.Connect(sock, &unix.SockaddrUnix{Name: socket}); err != nil {
		t.Fatal(err)
	}
	var fds []int
	var reads []*os.File
	for i := 0; i < req.fds; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		fds = append(fds, int(w.Fd()))
		reads = append(reads, r)
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	if err := unix.Sendmsg(sock, req.bytes, oob, nil, 0); err != nil {
		t.Fatal(err)
	}
	unix.Shutdown(sock, unix.SHUT_WR)
	unix.SetsockoptTimeval(sock, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 15})
	b := make([]byte, 16)
	n, _ := unix.Read(sock, b)
	if len(reads) >= 2 {
		// The server has closed its copies; the pipes' write ends left
		// are ours, so read what is there without waiting for EOF.
		reads[1].SetReadDeadline(time.Now().Add(time.Second))
		msg := make([]byte, 4096)
		m, _ := reads[1].Read(msg)
		stderr = string(msg[:m])
	}
	return string(b[:max(n, 0)]), stderr
}

// TestClientsAtOnce: clients served at the same time each get their own
// command's output and exit code.
func TestClientsAtOnce(t *testing.T) {
	_, client, state := served(t)
	const n = 6
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(client, "--env", fmt.Sprintf("N=%d", i), "--processes", "4", "--", "/bin/sh", "-c", "sleep 0.2; echo $N; exit $N")
			cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+state)
			out, _ := cmd.Output()
			if want := min(i, 1); cmd.ProcessState.ExitCode() != want || string(out) != fmt.Sprintf("%d\n", i) {
				errs <- fmt.Sprintf("client %d: exit %d (want %d), stdout %q", i, cmd.ProcessState.ExitCode(), want, out)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestClientWithoutServer: with no server, the client runs docket-exec
// from its own directory, the same command; with DOCKET_EXEC_SOCKET
// naming a socket nobody serves, it says so and exits 3.
func TestClientWithoutServer(t *testing.T) {
	needRoot(t)
	bin := build(t, map[string]string{"docket-exec": "."})["docket-exec"]
	client := buildClient(t, filepath.Dir(bin))
	state := t.TempDir()
	args := []string{"--json", "--", "/bin/echo", "standalone"}
	direct, _, directCode := run(t, state, append([]string{bin}, args...)...)
	alone, errOut, aloneCode := run(t, state, append([]string{client}, args...)...)
	if a, b := stable(t, direct), stable(t, alone); directCode != aloneCode || !reflect.DeepEqual(a, b) {
		t.Errorf("no server: docket-exec exit %d %v, the client exit %d %v (stderr %q)", directCode, a, aloneCode, b, errOut)
	}
	cmd := exec.Command(client, "--", "/bin/true")
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+state, "DOCKET_EXEC_SOCKET="+filepath.Join(state, "nobody.sock"))
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 3 || !strings.Contains(string(out), "nobody.sock") {
		t.Errorf("a socket nobody serves: exit %d, %q", cmd.ProcessState.ExitCode(), out)
	}
}

// TestServerStopKillsLongRuns: on SIGTERM the server waits for the
// commands under way, but not for ever: a run still going after the drain
// is killed, its client told (SE, cancelled, exit 3), and the server ends.
func TestServerStopKillsLongRuns(t *testing.T) {
	_, client, state, s := servedBy(t)
	const mark = "41.75"
	cmd := exec.Command(client, "--json", "--wall", "120s", "--", "/bin/sleep", mark)
	cmd.Env = append(os.Environ(), "DOCKET_SANDBOX_DIR="+state)
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool { return sleeping(mark) }) {
		cmd.Process.Kill()
		t.Fatal("the run's sleep never showed up")
	}
	s.stop(t)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 3 || !strings.Contains(out.String(), `"verdict_source":"cancelled"`) {
		t.Errorf("a run under way when the server stopped: exit %d, %s", code, out.String())
	}
	if !waitFor(10*time.Second, func() bool { return !sleeping(mark) }) || !strings.Contains(s.logged(), "killing their runs") {
		t.Errorf("the run outlived its server by 10 s, or was not killed by it (log: %s)", s.logged())
	}
}
