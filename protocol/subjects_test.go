package protocol

import (
	"regexp"
	"strings"
	"testing"
)

func TestParseJob(t *testing.T) {
	s := Subjects{Prefix: "docket"}
	cases := []struct {
		subject, queue, id string
		ok                 bool
	}{
		{"docket.jobs.default", "default", "", true},
		{"docket.jobs.default.s-42", "default", "s-42", true},
		{s.Job("contest_1", "x"), "contest_1", "x", true},
		{"docket.jobs.defualt.s-1", "defualt", "s-1", true}, // a typo is a queue: the sweep answers it
		{"docket.jobs.a.b.c", "a", "b.c", false},
		{"docket.jobs.q.bad$id", "q", "bad$id", false},
		{"docket.events.s-1", "", "", false},
		{"judge.jobs.default.s-1", "", "", false},
	}
	for _, c := range cases {
		q, id, ok := s.ParseJob(c.subject)
		if q != c.queue || id != c.id || ok != c.ok {
			t.Errorf("ParseJob(%q) = %q, %q, %v; want %q, %q, %v", c.subject, q, id, ok, c.queue, c.id, c.ok)
		}
	}
}

func TestNameRules(t *testing.T) {
	for _, c := range []struct {
		valid func(string) bool
		name  string
		in    string
		want  bool
	}{
		{ValidID, "id", "s-42_A", true},
		{ValidID, "id", "", false},
		{ValidID, "id", "a.b", false},
		{ValidID, "id", "a*", false},
		{ValidID, "id", string(make([]byte, 129)), false},
		{ValidQueue, "queue", "default", true},
		{ValidQueue, "queue", "contest.a", false},
		{ValidQueue, "queue", ">", false},
		{ValidQueue, "queue", "", false},
		{ValidPrefix, "prefix", "docket", true},
		{ValidPrefix, "prefix", "org.judge", true},
		{ValidPrefix, "prefix", "bad prefix", false},
		{ValidPrefix, "prefix", "a..b", false},
		{ValidPrefix, "prefix", ".a", false},
		{ValidPrefix, "prefix", "a.*", false},
	} {
		if got := c.valid(c.in); got != c.want {
			t.Errorf("valid %s %q = %v, want %v", c.name, c.in, got, c.want)
		}
	}
}

// TestConsumerTakesBothForms: a queue's consumer filter takes the job
// subjects of both forms of that queue, and no other queue's.
func TestConsumerTakesBothForms(t *testing.T) {
	s := Subjects{Prefix: "docket"}
	f := ConsumerConfig(ConsumerOptions{Prefix: "docket", Queue: "default"}).FilterSubjects
	want := []string{"docket.jobs.default", "docket.jobs.default.*"}
	if len(f) != 2 || f[0] != want[0] || f[1] != want[1] {
		t.Fatalf("filter %v, want %v", f, want)
	}
	if s.Job("default", "s-1") != "docket.jobs.default.s-1" || s.QueueJobs("default") != "docket.jobs.default" {
		t.Fatal("job subjects")
	}
}

// The validators are loops, not regular expressions (start-up cost): they
// accept exactly what the expressions they replaced accepted.
func TestValidatorsMatchTheirExpressions(t *testing.T) {
	for _, c := range []struct {
		name  string
		valid func(string) bool
		re    *regexp.Regexp
	}{
		{"id", ValidID, regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)},
		{"queue", ValidQueue, regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)},
		{"prefix", ValidPrefix, regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)},
		{"event name", func(s string) bool { return ValidToken(s, 64, ".") }, regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)},
	} {
		inputs := []string{"", "a", "a.b", ".a", "a.", "a..b", "A-z_9", "a b", "a\n", "a*", "a>", "é", "a\x00",
			strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("b", 128), strings.Repeat("b", 129),
			strings.Repeat("a.", 32), strings.Repeat("a.", 31) + "a"}
		for b := 0; b < 256; b++ {
			inputs = append(inputs, string([]byte{byte(b)}), "x"+string([]byte{byte(b)})+"y")
		}
		for _, in := range inputs {
			want := c.re.MatchString(in)
			if c.name == "prefix" && len(in) > 64 {
				want = false // ValidPrefix's length cap
			}
			if got := c.valid(in); got != want {
				t.Errorf("%s %q: %v, want %v", c.name, in, got, want)
			}
		}
	}
}
