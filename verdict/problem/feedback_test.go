package problem

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestFeedbackKey(t *testing.T) {
	for yaml, want := range map[string]FeedbackPolicy{
		"name: x\n":                              "",
		"docket: {feedback: samples}\n":          FeedbackSamples,
		"docket:\n  feedback: all\n":             FeedbackAll,
		"docket: {feedback: none}\n":             FeedbackNone,
		"docket: {feedback: \"\"}\n":             "",
		"docket: {time_limit: 1}\n":              "",
		"docket: {feedback: all, time_limit: 2}": FeedbackAll,
	} {
		d := filepath.Join(t.TempDir(), "p")
		write(t, d, map[string]string{"problem.yaml": yaml, "data/sample/1.in": "", "data/sample/1.ans": "", "data/secret/1.in": "", "data/secret/1.ans": ""})
		p, err := Load(d)
		if err != nil {
			t.Errorf("%q: %v", yaml, err)
			continue
		}
		if p.Feedback != want {
			t.Errorf("%q: feedback %q, want %q", yaml, p.Feedback, want)
		}
	}
}

func TestFeedbackKeyInvalid(t *testing.T) {
	for _, yaml := range []string{
		"docket: {feedback: secret}\n",
		"docket: {feedback: ALL}\n", // exact names only: a typo is never a guess
		"docket: {feedback: \"samples \"}\n",
		"docket: {feedback: 1}\n",
	} {
		d := filepath.Join(t.TempDir(), "p")
		write(t, d, map[string]string{"problem.yaml": yaml, "data/secret/1.in": "", "data/secret/1.ans": ""})
		_, err := Load(d)
		var le *LoadError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "problem.yaml docket.feedback:") || !strings.Contains(err.Error(), "want samples, all or none") {
			t.Errorf("%q: got %v, want a LoadError naming docket.feedback and the valid values", yaml, err)
		}
	}
	// A structure where a word belongs fails the whole file, saying where.
	d := filepath.Join(t.TempDir(), "p")
	write(t, d, map[string]string{"problem.yaml": "docket: {feedback: [all]}\n", "data/secret/1.in": "", "data/secret/1.ans": ""})
	if _, err := Load(d); err == nil || !strings.Contains(err.Error(), "problem.yaml") {
		t.Errorf("a list as the policy: %v", err)
	}
}

func TestParseFeedbackPolicy(t *testing.T) {
	for _, s := range []string{"", "samples", "all", "none"} {
		if p, err := ParseFeedbackPolicy(s); err != nil || string(p) != s {
			t.Errorf("%q: %q %v", s, p, err)
		}
	}
	long := strings.Repeat("x", 5000)
	_, err := ParseFeedbackPolicy(long)
	if !errors.Is(err, ErrFeedbackPolicy) || len(err.Error()) > 200 {
		t.Errorf("a long value: %v (%d bytes), want ErrFeedbackPolicy cut short", errors.Unwrap(err), len(err.Error()))
	}
}

func TestGroupSample(t *testing.T) {
	d := filepath.Join(t.TempDir(), "p")
	write(t, d, map[string]string{"problem.yaml": "",
		"data/sample/1.in": "", "data/sample/1.ans": "",
		"data/sample/more/2.in": "", "data/sample/more/2.ans": "",
		"data/secret/1.in": "", "data/secret/1.ans": "",
		"data/secret/sample/3.in": "", "data/secret/sample/3.ans": "", // a secret group named "sample" is secret
		"data/secret/samples/4.in": "", "data/secret/samples/4.ans": ""})
	p, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"sample/1": true, "sample/more/2": true, "secret/1": false, "secret/sample/3": false, "secret/samples/4": false}
	for _, tc := range p.Tests {
		if tc.Group.Sample() != want[tc.Name] {
			t.Errorf("%s: sample %v", tc.Name, tc.Group.Sample())
		}
	}
	if len(p.Tests) != len(want) {
		t.Errorf("%d tests, want %d", len(p.Tests), len(want))
	}
	if (*Group)(nil).Sample() || p.Root.Sample() {
		t.Error("the root (or no group) is not a sample")
	}
}
