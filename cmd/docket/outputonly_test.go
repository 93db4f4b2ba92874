package main

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/docketjudge/docket/worker"
)

// An OutputOnly task's submission goes through the queue: docket submit
// carries a directory of output files with no language, a worker judges
// them (AC 100, --follow exits 0); a backend's job of one output file and
// "language": "" is judged too (AC 25, the other tests not submitted).
// The worker's metrics count both under the language "none".
func TestWorkerOutputOnly(t *testing.T) {
	f := newQueueFixture(t, "10s")
	if _, _, err := worker.Push(context.Background(), f.js, "../../problems/cms-outputonly"); err != nil {
		t.Fatal(err)
	}
	metrics := "127.0.0.1:" + freePort(t)
	f.env = append(f.env, "DOCKET_METRICS_ADDR="+metrics)
	f.startWorker("w1")
	cmd := exec.Command(f.bin, "submit", "--problem", "cms-outputonly", "--id", "oo-cli", "--follow", "--timeout", "60s",
		"../../problems/cms-outputonly/submissions/accepted/optimal")
	cmd.Env = f.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docket submit --follow: %v\n%s", err, out)
	}
	f.submit("oo-raw", "cms-outputonly", "", map[string]string{"output_001.txt": "64 32 4\n"})
	for id, want := range map[string]float64{"oo-cli": 100, "oo-raw": 25} {
		r := f.result(id, 60*time.Second)
		if r["verdict"] != "AC" || r["score"] != want || r["language"] != nil {
			t.Errorf("%s: %v, want AC %g and no language", id, r, want)
		}
	}
	checkLanguageLabels(t, metrics, map[string]int{"none": 2}) // not "unknown": nothing was wrong
}
