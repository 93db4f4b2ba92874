package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
)

// stopGrace is the workers' DOCKET_GRACE in these tests, and stopSlack
// what a stopping worker may take beyond it: the kill is at once, the
// nak one round trip, the exit the teardown of a slot.
const (
	stopGrace = 2 * time.Second
	stopSlack = time.Second
)

// The language "stopc" of one worker: a phase of it that takes a minute.
// The worker that takes over gets a languages file where stopc is a
// plain shell program, so that the job it judges ends at once: what is
// under test is the first worker's stop, not the program.
const (
	stopcSlowCompile = `languages:
  - id: stopc
    name: stop test, a compiler that sleeps a minute
    extensions: [".stopc"]
    source: main.stopc
    compile: ["/bin/sleep", "60"]
    run: ["/bin/sh", "{main}"]
`
	stopcSpinner = `languages:
  - id: stopc
    name: stop test, a program that spins
    extensions: [".stopc"]
    source: main.stopc
    run: ["/bin/sh", "-c", "while :; do :; done"]
`
	stopcSleeper = `languages:
  - id: stopc
    name: stop test, a program that sleeps a minute
    extensions: [".stopc"]
    source: main.stopc
    run: ["/bin/sleep", "60"]
`
	stopcPlain = `languages:
  - id: stopc
    name: stop test, a shell program
    extensions: [".stopc"]
    source: main.stopc
    run: ["/bin/sh", "{main}"]
`
)

// stopWorker is a docket worker process with its log.
type stopWorker struct {
	cmd *exec.Cmd
	log string
}

// startStopWorker starts a worker whose stopc is langsYAML, and waits
// until it fetches.
func (f *queueFixture) startStopWorker(name, langsYAML string) *stopWorker {
	f.t.Helper()
	dir := f.t.TempDir()
	langsFile := filepath.Join(dir, "languages.yaml")
	if err := os.WriteFile(langsFile, []byte(langsYAML), 0o644); err != nil {
		f.t.Fatal(err)
	}
	w := &stopWorker{cmd: exec.Command(f.bin, "worker"), log: filepath.Join(dir, name+".log")}
	w.cmd.Env = append(append([]string{}, f.env...), "DOCKET_LANGS_FILE="+langsFile, "DOCKET_GRACE="+stopGrace.String())
	logf, err := os.Create(w.log)
	if err != nil {
		f.t.Fatal(err)
	}
	w.cmd.Stdout, w.cmd.Stderr = logf, logf
	if err := w.cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { w.cmd.Process.Kill(); w.cmd.Wait(); f.t.Logf("%s log:\n%s", name, readLog(w.log)) })
	f.waitLog(w, "worker fetching", 30*time.Second)
	return w
}

func readLog(path string) string { b, _ := os.ReadFile(path); return string(b) }

// waitLog waits for a line of w's log, and says when it appeared.
func (f *queueFixture) waitLog(w *stopWorker, s string, within time.Duration) time.Time {
	f.t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if strings.Contains(readLog(w.log), s) {
			return time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatalf("%q not in %s within %v", s, w.log, within)
	return time.Time{}
}

// submitStopc submits an a+b solution in stopc with a 60 s time limit.
func (f *queueFixture) submitStopc(id string) {
	b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: id, Problem: "aplusb", Language: "stopc",
		Files: map[string]string{"main.stopc": "read a b\necho $((a + b))\n"}, Limits: &protocol.JobLimits{TimeMs: 60000}})
	f.submitRaw("default", id, b)
}

// waitEvent waits for an event of attempt 1 of the given type.
func (f *queueFixture) waitEvent(id string, typ protocol.EventType, within time.Duration) {
	f.t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		for _, e := range f.events(id) {
			if e.Attempt == 1 && e.Type == typ {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.t.Fatalf("%s: no %q event of attempt 1 within %v", id, typ, within)
}

// checkOneFinal: the job ends with one final, judged by a later
// attempt, and its first attempt published none of the given types.
func (f *queueFixture) checkOneFinal(id string, notFirst ...protocol.EventType) {
	f.t.Helper()
	time.Sleep(500 * time.Millisecond) // anything late would be stored by now
	evs := f.events(id)
	var seen []string
	for _, e := range evs {
		seen = append(seen, fmt.Sprintf("%s/%d", e.Type, e.Attempt))
		for _, typ := range notFirst {
			if e.Attempt == 1 && e.Type == typ {
				f.t.Errorf("%s: the abandoned attempt published a %q event", id, typ)
			}
		}
	}
	if finals(evs) != 1 {
		f.t.Errorf("%s: %d final events, want 1 (events %v)", id, finals(evs), seen)
	}
	f.t.Logf("%s events (type/attempt): %v", id, seen)
}

// SIGTERM during a compile that would take a minute: past the grace
// period the compile is killed, the job given back and judged by a
// second worker at once (AckWait is a minute), one final result.
func TestSIGTERMDuringCompile(t *testing.T) {
	stopDuring(t, stopcSlowCompile, "started", "compile", "test", "group")
}

// SIGTERM during a test that would spin for its whole 60 s time limit:
// the same, and the abandoned attempt reports no test (not even as
// skipped) and no group.
func TestSIGTERMDuringLongTest(t *testing.T) {
	stopDuring(t, stopcSpinner, "compile", "test", "group")
}

// stopDuring runs a job on a worker whose stopc is slow, SIGTERMs it once
// the slow phase (after the event inPhase) is under way, and holds the
// stop to its promises.
func stopDuring(t *testing.T, slowLangs string, inPhase protocol.EventType, notFirst ...protocol.EventType) {
	f := newQueueFixture(t, "60s")
	w1 := f.startStopWorker("w1", slowLangs)
	id := "stop-" + string(inPhase)
	f.submitStopc(id)
	f.waitEvent(id, inPhase, 60*time.Second)
	f.startStopWorker("w2", stopcPlain) // fetching, the job held by w1
	time.Sleep(500 * time.Millisecond)  // into the slow phase
	term := time.Now()
	w1.cmd.Process.Signal(syscall.SIGTERM)
	err := w1.cmd.Wait()
	exited := time.Since(term)
	if err != nil {
		t.Errorf("w1 exit after SIGTERM: %v", err)
	}
	if exited > stopGrace+stopSlack {
		t.Errorf("w1 exited %v after SIGTERM, want within the grace period %v + %v", exited.Round(time.Millisecond), stopGrace, stopSlack)
	}
	r := f.result(id, 20*time.Second)
	judged := time.Since(term)
	if r["verdict"] != "AC" || r["attempt"].(float64) != 2 {
		t.Errorf("result %v, want AC by attempt 2", r)
	}
	if judged > stopGrace+5*time.Second {
		t.Errorf("judged by the second worker %v after the SIGTERM, want within seconds of the grace period's end (AckWait is 60 s)", judged.Round(time.Millisecond))
	}
	f.checkOneFinal(id, notFirst...)
	t.Logf("w1 exited %v after SIGTERM (grace %v); the job judged by w2 %v after it", exited.Round(time.Millisecond), stopGrace, judged.Round(time.Millisecond))
}

// A worker frozen past AckWait (SIGSTOP) in the middle of a test that
// would sleep a minute: the job goes to another worker; once thawed, the
// frozen one sees its lease lost at its next heartbeat, kills the run at
// once (it is free again within a second or two, not when the minute is
// over) and publishes nothing more for the attempt.
func TestLeaseLostKillsTheRun(t *testing.T) {
	f := newQueueFixture(t, "3s")
	w1 := f.startStopWorker("w1", stopcSleeper)
	id := "lease-lost"
	f.submitStopc(id)
	f.waitEvent(id, "compile", 60*time.Second)
	time.Sleep(500 * time.Millisecond) // into the test
	w1.cmd.Process.Signal(syscall.SIGSTOP)
	f.startStopWorker("w2", stopcPlain)
	r := f.result(id, 30*time.Second)
	if r["verdict"] != "AC" || r["attempt"].(float64) != 2 {
		t.Errorf("result %v, want AC by attempt 2", r)
	}
	thawed := time.Now()
	w1.cmd.Process.Signal(syscall.SIGCONT)
	lost := f.waitLog(w1, "job lease lost", 90*time.Second)
	took := lost.Sub(thawed)
	// The next heartbeat (a second, AckWait/3) notices; the kill is at once.
	if took > 3*time.Second {
		t.Errorf("the thawed worker gave the job up %v after SIGCONT, want at its next heartbeat (the run killed, not waited for)", took.Round(time.Millisecond))
	}
	f.checkOneFinal(id, "test")
	t.Logf("thawed worker gave the job up %v after SIGCONT", took.Round(time.Millisecond))
}

// A job that leaves the jobs stream while it is judged (here deleted by
// an operator; acked by the worker of a later attempt, or terminated, is
// the same to the server) is no longer the worker's: at its next
// heartbeat it kills the run at once and publishes nothing more.
func TestJobRemovedKillsTheRun(t *testing.T) {
	f := newQueueFixture(t, "3s")
	w1 := f.startStopWorker("w1", stopcSleeper)
	id := "removed"
	f.submitStopc(id)
	f.waitEvent(id, "compile", 60*time.Second)
	time.Sleep(500 * time.Millisecond) // into the test
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := f.js.Stream(ctx, protocol.JobsStream)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(ctx, f.subj.Job("default", id))
	if err != nil {
		t.Fatal(err)
	}
	removed := time.Now()
	if err := s.DeleteMsg(ctx, m.Sequence); err != nil {
		t.Fatal(err)
	}
	lost := f.waitLog(w1, "the job left the jobs stream", 90*time.Second)
	took := lost.Sub(removed)
	// A heartbeat a second (AckWait/3) notices; the kill is at once.
	if took > 3*time.Second {
		t.Errorf("the worker gave the job up %v after it was removed, want at its next heartbeat (the run killed, not waited for)", took.Round(time.Millisecond))
	}
	time.Sleep(500 * time.Millisecond)
	evs := f.events(id)
	for _, e := range evs {
		if e.Type != "started" && e.Type != "compile" {
			t.Errorf("published after the job was removed: %s of attempt %d", e.Type, e.Attempt)
		}
	}
	if w1.cmd.ProcessState != nil {
		t.Errorf("the worker exited: %v", w1.cmd.ProcessState)
	}
	t.Logf("the worker gave the removed job up %v after its removal; %d events in all", took.Round(time.Millisecond), len(evs))
}
