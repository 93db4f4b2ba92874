package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/bridge"
	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/worker"
	"github.com/nats-io/nats.go/jetstream"
)

// pushProblem pushes an example problem into the fixture's store.
func (f *queueFixture) pushProblem(name string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, _, err := worker.Push(ctx, f.js, "../../problems/"+name); err != nil {
		f.t.Fatal(err)
	}
}

// pushBroken stores a package that will not load (its problem.yaml is
// not YAML) under id, past Push's validation, as a store written by
// another tool could hold.
func (f *queueFixture) pushBroken(id string) {
	f.t.Helper()
	dir := filepath.Join(f.t.TempDir(), id)
	copyTree(f.t, "../../problems/aplusb", dir)
	os.RemoveAll(filepath.Join(dir, "submissions"))
	if err := os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte("name: [unclosed\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	data, err := worker.PackTar(dir)
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	obs, err := f.js.ObjectStore(ctx, protocol.ProblemBucket)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := obs.Put(ctx, jetstream.ObjectMeta{Name: id, Metadata: map[string]string{"problem_digest": "sha256:broken"}}, bytes.NewReader(data)); err != nil {
		f.t.Fatal(err)
	}
}

// A scoring problem's groups each get a `group` event when they finish:
// the very entry the result's groups hold, after that group's tests and
// before the final event.
func TestGroupEventsCarryScoreAndVerdict(t *testing.T) {
	f := newQueueFixture(t, "10s")
	f.pushProblem("scoring-groups")
	src, err := os.ReadFile("../../problems/scoring-groups/submissions/partially_accepted/sum32.cpp")
	if err != nil {
		t.Fatal(err)
	}
	f.startWorker("w1")
	f.submit("groups-1", "scoring-groups", "cpp", map[string]string{"sum32.cpp": string(src)})
	f.result("groups-1", 90*time.Second)
	evs := f.events("groups-1")
	var res *protocol.Event
	var groups []protocol.Event
	lastTestOf := map[string]int{}
	for i, e := range evs {
		switch e.Type {
		case "group":
			groups = append(groups, e)
			if e.Group == nil || e.FeedbackPolicy == "" {
				t.Errorf("group event %d without its group or policy: %+v", e.Seq, e)
				continue
			}
			if last, ok := lastTestOf[e.Group.Name]; !ok || last > i {
				t.Errorf("group %s announced before its tests finished", e.Group.Name)
			}
		case "test":
			for g := e.Test.Group; g != ""; g = parentGroup(g) {
				lastTestOf[g] = i
			}
		case "final":
			res = &evs[i]
		}
	}
	if res == nil || res.Result == nil {
		t.Fatalf("no final event: %+v", evs)
	}
	if len(groups) == 0 || len(groups) != len(res.Result.Groups) {
		t.Fatalf("%d group events, %d groups in the result", len(groups), len(res.Result.Groups))
	}
	for i, g := range groups {
		if *g.Group != res.Result.Groups[i] {
			t.Errorf("group event %d: %+v, the result says %+v", i, *g.Group, res.Result.Groups[i])
		}
	}
	byName := map[string]float64{}
	for _, g := range groups {
		byName[g.Group.Name] = g.Group.Score
	}
	// sum32 overflows on group2's large numbers: 30 of 100.
	if byName["secret/group1"] != 30 || byName["secret/group2"] != 0 || res.Result.Score != 30 || res.Result.MaxScore != 100 {
		t.Errorf("group scores %v, result %g/%g; want group1 30, group2 0, 30/100", byName, res.Result.Score, res.Result.MaxScore)
	}
}

// parentGroup is the group above g ("secret/a" -> "secret" -> "").
func parentGroup(g string) string {
	i := strings.LastIndex(g, "/")
	if i < 0 {
		return ""
	}
	return g[:i]
}

// Results of jobs that end in an error carry what is known (the problem
// the job names, the language's catalog id, the attempt, the worker, and
// from a loaded package max_score and the limits), and the worker's
// metrics label the language by catalog id or "unknown", never by the
// job's raw string.
func TestErrorResultsCarryWhatIsKnown(t *testing.T) {
	f := newQueueFixture(t, "10s")
	f.pushProblem("scoring-groups")
	f.pushBroken("broken")
	metrics := "127.0.0.1:" + freePort(t)
	f.env = append(f.env, "DOCKET_METRICS_ADDR="+metrics)
	f.startWorker("w1")
	long := hostileString(1000)
	type want struct {
		verdict, problem, language string
		maxScore                   float64
		limits                     bool
	}
	cases := map[string]struct {
		problem, lang string
		files         map[string]string
		want          want
	}{
		"err-no-problem": {"no-such-problem", "cpp17", map[string]string{"main.cpp": cppAplusb}, want{"SE", "no-such-problem", "cpp", 0, false}},
		"err-broken":     {"broken", "c++", map[string]string{"main.cpp": cppAplusb}, want{"SE", "broken", "cpp", 0, false}},
		"err-sql-lang":   {"aplusb", "'; DROP TABLE", map[string]string{"main.cpp": cppAplusb}, want{"SE", "aplusb", "", 1, false}},
		"err-long-lang":  {"scoring-groups", long, map[string]string{"main.cpp": cppAplusb}, want{"SE", "scoring-groups", "", 100, false}},
		"err-bad-name":   {"aplusb", "cpp", map[string]string{"-main.cpp": cppAplusb}, want{"CE", "aplusb", "cpp", 0, false}},
		"err-ce":         {"scoring-groups", "cpp", map[string]string{"main.cpp": "int main( {"}, want{"CE", "scoring-groups", "cpp", 100, true}},
	}
	for id, c := range cases {
		f.submit(id, c.problem, c.lang, c.files)
	}
	for id, c := range cases {
		r := f.result(id, 90*time.Second)
		lang, _ := r["language"].(string)
		limits, _ := r["limits"].(map[string]any)
		tl, _ := limits["time_ms"].(float64)
		ml, _ := limits["memory_mb"].(float64)
		known := tl > 0 && ml > 0
		w, _ := r["worker"].(string)
		if r["verdict"] != c.want.verdict || r["problem"] != c.want.problem || lang != c.want.language ||
			r["max_score"] != c.want.maxScore || r["score"] != 0.0 || r["attempt"] != 1.0 || w == "" || known != c.want.limits {
			t.Errorf("%s: verdict %v, problem %v, language %q, score %v/%v, attempt %v, worker %q, limits %v;\n want %+v, attempt 1, a worker (error %v)",
				id, r["verdict"], r["problem"], lang, r["score"], r["max_score"], r["attempt"], w, limits, c.want, r["error"])
		}
	}
	checkLanguageLabels(t, metrics, map[string]int{"cpp": 4, "unknown": 2})
}

// hostileString is n random bytes of printable ASCII, quotes and
// backslashes included.
func hostileString(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(byte(' ' + rand.Intn('~'-' '+1)))
	}
	return b.String()
}

var jobsTotal = regexp.MustCompile(`^docket_jobs_total\{(.*)\} (\d+)$`)
var languageLabel = regexp.MustCompile(`language="((?:[^"\\]|\\.)*)"`)

// checkLanguageLabels scrapes the worker's metrics: every language label
// of docket_jobs_total is a catalog id, "unknown" or "none" (output files
// alone), and the jobs per
// label add up to want (the worker counts a job just after publishing
// its result, so the counts get a few seconds to arrive).
func checkLanguageLabels(t *testing.T, addr string, want map[string]int) {
	t.Helper()
	var got map[string]int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var bad []string
		got, bad = scrapeLanguages(t, addr)
		for _, line := range bad {
			t.Errorf("docket_jobs_total with a language label that is no catalog id: %.200s", line)
		}
		if len(bad) > 0 || sameCounts(got, want) || time.Now().After(deadline) {
			break
		}
	}
	if !sameCounts(got, want) {
		t.Errorf("docket_jobs_total by language: %v, want %v", got, want)
	}
}

// scrapeLanguages reads docket_jobs_total from /metrics: the jobs per
// language label that is a catalog id, "unknown" or "none", and the lines whose
// label is neither.
func scrapeLanguages(t *testing.T, addr string) (map[string]int, []string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	ids := map[string]bool{"unknown": true, "none": true}
	for _, id := range langs.Builtin().IDs() {
		ids[id] = true
	}
	got, bad := map[string]int{}, []string(nil)
	for _, line := range strings.Split(string(body), "\n") {
		m := jobsTotal.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		l := languageLabel.FindStringSubmatch(m[1])
		if l == nil || !ids[l[1]] {
			bad = append(bad, line)
			continue
		}
		var n int
		json.Unmarshal([]byte(m[2]), &n)
		got[l[1]] += n
	}
	return got, bad
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// docket token signs with the secret's trimmed text, from the variable
// or from serve's file alike, and --valid-for gives the expiring form.
func TestTokenKeyIsTrimmedText(t *testing.T) {
	bin := docketBinary(t)
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "bridge-hmac-secret"), []byte(" s3cret \n\t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := bridge.SubmissionToken([]byte("s3cret"), "s-1")
	token := func(env string, args ...string) string {
		cmd := exec.Command(bin, append([]string{"token"}, args...)...)
		cmd.Env = append(os.Environ(), "DOCKET_DATA_DIR="+data, env)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("docket token %v with %q: %v", args, env, err)
		}
		return strings.TrimSpace(string(out))
	}
	for _, env := range []string{"DOCKET_BRIDGE_HMAC_SECRET=", "DOCKET_BRIDGE_HMAC_SECRET=s3cret\n", "DOCKET_BRIDGE_HMAC_SECRET=\ts3cret  "} {
		if got := token(env, "s-1"); got != want {
			t.Errorf("with %q and the file: %s, want %s (the key of \"s3cret\")", env, got, want)
		}
	}
	before := time.Now()
	got := token("DOCKET_BRIDGE_HMAC_SECRET=", "--valid-for", "1h", "s-1")
	exp, _, _ := strings.Cut(got, ".")
	var until int64
	json.Unmarshal([]byte(exp), &until)
	if d := time.Unix(until, 0).Sub(before); d < 59*time.Minute || d > 61*time.Minute ||
		got != bridge.SubmissionTokenUntil([]byte("s3cret"), "s-1", time.Unix(until, 0)) {
		t.Errorf("--valid-for 1h: %s (expires in %v), want the expiring token of \"s3cret\" an hour from now", got, d)
	}
}

// startServe runs docket serve without workers on data with extra
// environment, and waits for its bridge; it returns the process.
func startServe(t *testing.T, data, web string, extra ...string) *exec.Cmd {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(docketBinary(t), "serve", "--data", data, "--problems", "../../problems", "--workers", "0")
	cmd.Env = append(append(os.Environ(), "DOCKET_NATS_LISTEN=127.0.0.1:"+port, "DOCKET_BRIDGE_ADDR="+web,
		"DOCKET_BRIDGE_HMAC_SECRET=", "DOCKET_BRIDGE_TOKEN=", "DOCKET_NATS_MONITOR="), extra...)
	logf, _ := os.Create(t.TempDir() + "/serve.log")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitPort(t, web)
	return cmd
}

// hostPID finds the process whose command line holds marker in /proc,
// which is the host's: inside the test guard's pid namespace
// cmd.Process.Pid names another process there.
func hostPID(t *testing.T, marker string) string {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if b, err := os.ReadFile(d + "/cmdline"); err == nil && strings.Contains(string(b), marker) {
			return filepath.Base(d)
		}
	}
	t.Fatalf("no process with %q in its command line", marker)
	return ""
}

// listening is the set of TCP addresses (ip:port) that process pid (in
// /proc) listens on: its socket descriptors matched with the kernel's
// tables.
func listening(t *testing.T, pid string) map[string]bool {
	t.Helper()
	inodes := map[string]bool{}
	fds, _ := filepath.Glob(filepath.Join("/proc", pid, "fd", "*"))
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	out := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, _ := os.ReadFile(table)
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: LISTEN
				continue
			}
			out[procNetAddr(f[1])] = true
		}
	}
	return out
}

// procNetAddr turns /proc/net/tcp's "0100007F:1F90" into "127.0.0.1:8080"
// (IPv4; IPv6 addresses are kept in the kernel's hex).
func procNetAddr(s string) string {
	hexIP, hexPort, _ := strings.Cut(s, ":")
	var port int
	fmt.Sscanf(hexPort, "%X", &port)
	if len(hexIP) != 8 {
		return hexIP + ":" + fmt.Sprint(port)
	}
	var ip uint32
	fmt.Sscanf(hexIP, "%X", &ip)
	return fmt.Sprintf("%d.%d.%d.%d:%d", byte(ip), byte(ip>>8), byte(ip>>16), byte(ip>>24), port)
}

// docket serve exposes the embedded server's monitoring (/jsz) only when
// DOCKET_NATS_MONITOR asks for it: off by default, no listener beyond
// the NATS and bridge ports; on, /jsz answers JSON with the jobs stream.
// The bridge of serve signs with its secret file's trimmed text.
func TestServeNatsMonitor(t *testing.T) {
	web := "127.0.0.1:" + freePort(t)
	offData := t.TempDir()
	off := startServe(t, offData, web)
	if got := listening(t, hostPID(t, offData)); len(got) != 2 || !got[web] {
		t.Errorf("serve by default listens on %v, want the NATS and bridge ports only", got)
	}
	off.Process.Kill()
	off.Wait()

	data := t.TempDir()
	for name, text := range map[string]string{"bridge-hmac-secret": "s3cret \n\t\n", "bridge-token": "operator\n"} {
		if err := os.WriteFile(filepath.Join(data, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	web, mon := "127.0.0.1:"+freePort(t), "127.0.0.1:"+freePort(t)
	startServe(t, data, web, "DOCKET_NATS_MONITOR="+mon)
	if got := listening(t, hostPID(t, data)); !got[mon] || len(got) != 3 {
		t.Errorf("serve with DOCKET_NATS_MONITOR=%s listens on %v", mon, got)
	}
	resp, err := http.Get("http://" + mon + "/jsz?streams=true")
	if err != nil {
		t.Fatal(err)
	}
	var jsz struct {
		Streams  int `json:"streams"`
		Accounts []struct {
			Streams []struct {
				Name string `json:"name"`
			} `json:"stream_detail"`
		} `json:"account_details"`
	}
	err = json.NewDecoder(resp.Body).Decode(&jsz)
	resp.Body.Close()
	names := ""
	for _, a := range jsz.Accounts {
		for _, s := range a.Streams {
			names += s.Name + " "
		}
	}
	if err != nil || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(names, protocol.JobsStream) {
		t.Errorf("/jsz: %v, %s, streams %q", err, resp.Header.Get("Content-Type"), names)
	}
	for tok, want := range map[string]int{
		bridge.SubmissionToken([]byte("s3cret"), "s-1"):                                  404,
		bridge.SubmissionTokenUntil([]byte("s3cret"), "s-1", time.Now().Add(time.Hour)):  404,
		bridge.SubmissionTokenUntil([]byte("s3cret"), "s-1", time.Now().Add(-time.Hour)): 403,
		bridge.SubmissionToken([]byte("s3cret \n\t\n"), "s-1"):                           403,
	} {
		resp, err := http.Get("http://" + web + "/v1/submissions/s-1?token=" + tok)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("token %s: %d, want %d", tok, resp.StatusCode, want)
		}
	}
}
