package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/docketjudge/docket/worker"
)

// A CMS Communication task through the queue: pushed (its manager built
// at push), judged by a worker whose one slot lends the second copy of
// the program a slot of its own, and its result stored as any other:
// each copy in the test's steps.
func TestWorkerCommunication(t *testing.T) {
	f := newQueueFixture(t, "10s")
	if _, _, err := worker.Push(context.Background(), f.js, "../../problems/cms-halves"); err != nil {
		t.Fatal(err)
	}
	f.startWorker("w1")
	src, err := os.ReadFile("../../problems/cms-halves/submissions/accepted/halves.cpp")
	if err != nil {
		t.Fatal(err)
	}
	f.submit("comm-ac", "cms-halves", "cpp", map[string]string{"mine.cpp": string(src)})
	f.submit("comm-re", "cms-halves", "cpp", map[string]string{"halves.cpp": "#include <cstdlib>\nlong long sum_half(int, const long long *) { abort(); }\n"})
	for id, want := range map[string]string{"comm-ac": "AC", "comm-re": "RE"} {
		r := f.result(id, 90*time.Second)
		tests, _ := r["tests"].([]any)
		if r["verdict"] != want || len(tests) != 5 {
			t.Fatalf("%s: %v, want %s", id, r, want)
		}
		steps, _ := tests[0].(map[string]any)["steps"].([]any)
		if len(steps) != 2 {
			t.Errorf("%s: test 0's steps %v, want one per copy", id, tests[0])
		}
	}
}
