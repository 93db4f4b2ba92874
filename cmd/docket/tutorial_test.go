package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The doc-test of docs/tutorial.md: its fenced blocks marked "sh tutorial"
// run in order in one bash session against a real docket serve, and each
// "text expect" block names lines that must appear in the output of the
// run block before it. The tutorial's own HTML comment says the same to
// its editors.
const (
	tutorialPath    = "../../docs/tutorial.md"
	tutorialRunInfo = "sh tutorial"
	tutorialExpInfo = "text expect"
	// The whole session, readiness wait included; about 30 s on the
	// 2-core development machine, most of it serve building the Polygon
	// examples' tests.
	tutorialTimeout = 6 * time.Minute
)

// tutorialBlock is one run block of the tutorial: its script, the line
// of docs/tutorial.md its fence opens on, and the lines its output must
// hold.
type tutorialBlock struct {
	line   int
	script string
	expect []string
}

// parseTutorial reads the run blocks of a Markdown text. An expect block
// that does not follow a run block, or a second one for the same block,
// or an unclosed fence is an error: a typo in the page must fail the
// test, not silently drop a check.
func parseTutorial(md string) ([]tutorialBlock, error) {
	var blocks []tutorialBlock
	var body []string
	info, open, lastRun := "", 0, false
	sc := bufio.NewScanner(strings.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fence := strings.HasPrefix(line, "```")
		switch {
		case open == 0 && fence:
			info, open, body = strings.TrimSpace(line[3:]), n, nil
		case open != 0 && strings.TrimSpace(line) == "```":
			var err error
			if blocks, lastRun, err = closeBlock(blocks, lastRun, info, open, body); err != nil {
				return nil, err
			}
			open = 0
		case open != 0:
			body = append(body, line)
		}
	}
	if open != 0 {
		return nil, fmt.Errorf("line %d: fence never closed", open)
	}
	return blocks, sc.Err()
}

// closeBlock adds a finished fenced block to blocks; lastRun says whether
// the previous fenced block was a run block still without expectations.
func closeBlock(blocks []tutorialBlock, lastRun bool, info string, line int, body []string) ([]tutorialBlock, bool, error) {
	switch info {
	case tutorialRunInfo:
		return append(blocks, tutorialBlock{line: line, script: strings.Join(body, "\n") + "\n"}), true, nil
	case tutorialExpInfo:
		if !lastRun {
			return nil, false, fmt.Errorf("line %d: a %q block must follow a %q block", line, tutorialExpInfo, tutorialRunInfo)
		}
		b := &blocks[len(blocks)-1]
		for _, l := range body {
			if l = strings.TrimRight(l, " \t"); l != "" {
				b.expect = append(b.expect, l)
			}
		}
		return blocks, false, nil
	}
	return blocks, false, nil
}

func TestParseTutorial(t *testing.T) {
	md := "# t\n```sh tutorial\necho a\n```\n\n```text expect\na\n\n```\n```sh\nnot run\n```\n" +
		"```sh tutorial\nx=1\necho $x\n```\n"
	got, err := parseTutorial(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].line != 2 || got[0].script != "echo a\n" || strings.Join(got[0].expect, "|") != "a" ||
		got[1].line != 13 || got[1].script != "x=1\necho $x\n" || got[1].expect != nil {
		t.Errorf("parsed %+v", got)
	}
	for name, bad := range map[string]string{
		"expect first":    "```text expect\na\n```\n",
		"expect twice":    "```sh tutorial\necho a\n```\n```text expect\na\n```\n```text expect\nb\n```\n",
		"expect after sh": "```sh tutorial\necho a\n```\n```sh\nb\n```\n```text expect\na\n```\n",
		"unclosed":        "```sh tutorial\necho a\n",
	} {
		if _, err := parseTutorial(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The session script replaces make run's addresses and data directory
// and refuses any other address, which would reach another server.
func TestTutorialScript(t *testing.T) {
	sub := tutorialSubst("127.0.0.1:18080", "14222", "/tmp/d")
	blocks := []tutorialBlock{{line: 3, script: "curl http://127.0.0.1:8080/x\ncat .docket/bridge-token\nexec 3<>/dev/tcp/127.0.0.1/4222\n"}}
	got, err := tutorialScript(blocks, sub, "/o")
	want := "set -eo pipefail\n{\ncurl http://127.0.0.1:18080/x\ncat /tmp/d/bridge-token\nexec 3<>/dev/tcp/127.0.0.1/14222\n} >/o/0.out 2>&1\n" +
		"printf '%s\\n' \"$EPOCHREALTIME\" >/o/0.t\n"
	if err != nil || got != want {
		t.Errorf("script %q, %v\nwant %q", got, err, want)
	}
	for _, bad := range []string{"curl localhost:8080\n", "curl 127.0.0.1:9090/metrics\n", "nc 127.0.0.1/4223\n"} {
		if _, err := tutorialScript([]tutorialBlock{{line: 1, script: bad}}, sub, "/o"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// tutorialAddrs are the addresses the tutorial names (make run's
// defaults): every one in a run block must be one of these forms, which
// the test replaces with its own serve's, so that no block reaches
// another docket on the machine.
var tutorialAddrs = regexp.MustCompile(`127\.0\.0\.1[:/][0-9]+|localhost|0\.0\.0\.0`)

// tutorialSubst returns the replacements of make run's addresses and
// data directory by the test serve's.
func tutorialSubst(web, natsPort, data string) *strings.Replacer {
	return strings.NewReplacer(
		"127.0.0.1:8080", web,
		"127.0.0.1/4222", "127.0.0.1/"+natsPort,
		".docket/", data+"/")
}

// tutorialScript is the bash script of the whole session: each block's
// output goes to out/N.out, and out/N.t gets the time it ended, so that a
// failing block (set -e ends the shell) is the first without one.
func tutorialScript(blocks []tutorialBlock, sub *strings.Replacer, out string) (string, error) {
	var s strings.Builder
	s.WriteString("set -eo pipefail\n")
	for i, b := range blocks {
		for _, a := range tutorialAddrs.FindAllString(b.script, -1) {
			if a != "127.0.0.1:8080" && a != "127.0.0.1/4222" {
				return "", fmt.Errorf("docs/tutorial.md:%d: address %s: only 127.0.0.1:8080 and /dev/tcp/127.0.0.1/4222 are replaced by the test's", b.line, a)
			}
		}
		fmt.Fprintf(&s, "{\n%s} >%s/%d.out 2>&1\nprintf '%%s\\n' \"$EPOCHREALTIME\" >%s/%d.t\n",
			sub.Replace(b.script), out, i, out, i)
	}
	return s.String(), nil
}

// TestTutorial runs docs/tutorial.md against a docket serve started as
// make run starts it, on free ports with its own data directory.
func TestTutorial(t *testing.T) {
	needRoot(t)
	md, err := os.ReadFile(tutorialPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseTutorial(string(md))
	if err != nil {
		t.Fatalf("docs/tutorial.md: %v", err)
	}
	if len(blocks) == 0 {
		t.Fatalf("docs/tutorial.md has no %q block", tutorialRunInfo)
	}
	ts := startTutorialServe(t)
	out := t.TempDir()
	script, err := tutorialScript(blocks, tutorialSubst(ts.web, ts.natsPort, ts.data), out)
	if err != nil {
		t.Fatal(err)
	}
	runErr := runTutorialShell(t, script, ts.env)
	checkTutorialBlocks(t, blocks, out, tutorialSubst(ts.web, ts.natsPort, ts.data), ts.started, runErr, ts.log)
	t.Logf("tutorial: %d blocks in %.1fs from docket serve's start (its readiness included)", len(blocks), time.Since(ts.started).Seconds())
}

// tutorialServe is the docket serve of the tutorial's test and the
// environment of its shell.
type tutorialServe struct {
	web, natsPort, data, log string
	env                      []string
	started                  time.Time
}

// startTutorialServe starts what make run starts, docket serve with the
// example problems, on free ports, and returns without waiting for it:
// the tutorial's first block waits for readiness as a reader does.
func startTutorialServe(t *testing.T) tutorialServe {
	bin := docketBinary(t)
	ts := tutorialServe{natsPort: freePort(t), web: "127.0.0.1:" + freePort(t), data: t.TempDir()}
	sandbox, tmp := t.TempDir(), tutorialTmp(t)
	common := append(environWithoutDocket(), "DOCKET_NATS_URL=nats://127.0.0.1:"+ts.natsPort,
		"DOCKET_DATA_DIR="+ts.data, "DOCKET_SANDBOX_DIR="+sandbox)
	serve := exec.Command(bin, "serve", "--data", ts.data, "--problems", "../../problems")
	serve.Env = append(common[:len(common):len(common)], "DOCKET_NATS_LISTEN=127.0.0.1:"+ts.natsPort,
		"DOCKET_BRIDGE_ADDR="+ts.web, "DOCKET_CACHE_DIR="+t.TempDir(), "DOCKET_METRICS_ADDR=", "DOCKET_NATS_MONITOR=")
	ts.log = filepath.Join(t.TempDir(), "serve.log")
	logf, err := os.Create(ts.log)
	if err != nil {
		t.Fatal(err)
	}
	serve.Stdout, serve.Stderr = logf, logf
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	ts.started = time.Now()
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait(); logf.Close() })
	ts.env = append(common[:len(common):len(common)], "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "TMPDIR="+tmp)
	return ts
}

// environWithoutDocket is this process's environment without DOCKET_*
// variables, so that serve and the tutorial's commands run with make
// run's defaults whatever the test's environment says; but for the
// sandbox's uid base, which a shared machine may set to keep docket
// processes apart.
func environWithoutDocket() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DOCKET_") || strings.HasPrefix(kv, "DOCKET_SANDBOX_UID_BASE=") {
			env = append(env, kv)
		}
	}
	return env
}

// tutorialTmp is the shell's TMPDIR: readable by every uid, as /tmp is
// (t.TempDir's parent is private to root).
func tutorialTmp(t *testing.T) string {
	dir, err := os.MkdirTemp("", "docket-tutorial-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	return dir
}

// runTutorialShell runs script in bash from the module root, in a
// process group of its own that is killed at the timeout (a block that
// hangs, a curl waiting on a stream) and at the end (anything a block
// left in the background).
func runTutorialShell(t *testing.T, script string, env []string) error {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), tutorialTimeout)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script)
	sh.Dir, sh.Env = root, env
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sh.Cancel = func() error { return syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) }
	sh.WaitDelay = 5 * time.Second
	msgs, err := sh.CombinedOutput()
	if sh.Process != nil {
		syscall.Kill(-sh.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("bash killed after %v: %v\n%s", tutorialTimeout, err, msgs)
	}
	if err != nil {
		return fmt.Errorf("bash: %v\n%s", err, msgs)
	}
	return nil
}

// checkTutorialBlocks reports the first block that failed (the first
// without an end time, when the shell failed), and every expected line
// missing from its block's output, with the block's time.
func checkTutorialBlocks(t *testing.T, blocks []tutorialBlock, out string, sub *strings.Replacer, start time.Time, runErr error, serveLog string) {
	prev := float64(start.UnixNano()) / 1e9
	for i, b := range blocks {
		got, _ := os.ReadFile(filepath.Join(out, strconv.Itoa(i)+".out"))
		end, err := os.ReadFile(filepath.Join(out, strconv.Itoa(i)+".t"))
		if err != nil {
			t.Fatalf("docs/tutorial.md:%d: the block failed: %v\nits script:\n%s\nits output:\n%s\ndocket serve's log (end):\n%s",
				b.line, runErr, sub.Replace(b.script), got, fileTail(serveLog, 20))
		}
		at, _ := strconv.ParseFloat(strings.TrimSpace(strings.ReplaceAll(string(end), ",", ".")), 64)
		t.Logf("docs/tutorial.md:%d: %.2fs", b.line, at-prev)
		prev = at
		for _, want := range b.expect {
			if w := sub.Replace(want); !strings.Contains(string(got), w) {
				t.Errorf("docs/tutorial.md:%d: output lacks %q\nits output:\n%s", b.line, w, got)
			}
		}
	}
	if runErr != nil {
		t.Errorf("every block ended, but: %v", runErr)
	}
}

// tail is the last n lines of a file, for a failure's message.
func fileTail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
