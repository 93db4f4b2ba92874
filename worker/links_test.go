package worker

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func linkedPackage(t *testing.T) string {
	d := filepath.Join(t.TempDir(), "linked")
	writeFiles(t, d, map[string]string{
		"problem.yaml":                "name: Linked\n",
		"data/sample/1.in":            "1\n",
		"data/sample/1.ans":           "1\n",
		"data/secret/subtask1/01.in":  "2\n",
		"data/secret/subtask1/01.ans": "2\n",
	})
	for _, n := range []string{"01.in", "01.ans"} {
		os.MkdirAll(filepath.Join(d, "data/secret/subtask2"), 0o755)
		if err := os.Symlink("../subtask1/"+n, filepath.Join(d, "data/secret/subtask2", n)); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// A link inside the package is pushed as the file it names: the archive
// has no link entry, the unpacked package regular files with the content
// and the same digest as the package pushed.
func TestPackResolvesLinks(t *testing.T) {
	src := linkedPackage(t)
	data, err := PackTar(src)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeDir {
			t.Errorf("%s: entry type %q in the archive", h.Name, h.Typeflag)
		}
	}
	dir := filepath.Join(t.TempDir(), "linked")
	if err := Unpack(data, dir); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"01.in", "01.ans"} {
		p := filepath.Join(dir, "data/secret/subtask2", n)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s: %v %v, want a regular file", p, fi, err)
		}
		if b, _ := os.ReadFile(p); string(b) != "2\n" {
			t.Errorf("%s: %q, want the linked content", p, b)
		}
	}
	want, err := problem.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := problem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest != want.Digest || len(got.Tests) != 3 {
		t.Errorf("unpacked: digest %s, %d tests; pushed: digest %s", got.Digest, len(got.Tests), want.Digest)
	}
}

func TestPackRefusesBadLinks(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	for name, tc := range map[string]struct {
		target string
		want   error
	}{
		"absolute":  {outside, problem.ErrLinkAbsolute},
		"outside":   {"../../../../outside.txt", problem.ErrLinkOutside},
		"dangling":  {"gone.in", problem.ErrLinkDangling},
		"loop":      {"x.in", problem.ErrLinkLoop},
		"directory": {"../subtask1", problem.ErrLinkNotFile},
	} {
		t.Run(name, func(t *testing.T) {
			src := linkedPackage(t)
			link := filepath.Join(src, "data/secret/subtask2/x.in")
			if err := os.Symlink(tc.target, link); err != nil {
				t.Fatal(err)
			}
			data, err := PackTar(src)
			if !errors.Is(err, tc.want) || data != nil {
				t.Fatalf("PackTar: %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), "data/secret/subtask2/x.in") {
				t.Errorf("error %q does not name the link", err)
			}
		})
	}
}

// A package directory that is itself a link packs its target's files.
func TestPackThroughLinkedDirectory(t *testing.T) {
	src := linkedPackage(t)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(src, alias); err != nil {
		t.Fatal(err)
	}
	want, err := PackTar(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := PackTar(alias)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("packing through a linked directory: %d bytes, want %d", len(got), len(want))
	}
}

// The example package with linked subtasks goes through a real object
// store: a worker's copy has regular files with the linked content, and
// the digest the push recorded.
func TestPushLinkedExampleThroughStore(t *testing.T) {
	_, _, js := embeddedJS(t)
	ctx := context.Background()
	pushed, _, err := Push(ctx, js, "../problems/linked-subtasks")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 30}
	got, err := c.Get(ctx, js, "linked-subtasks", pushed.Digest)
	if err != nil {
		t.Fatal(err)
	}
	linked := 0
	for _, tc := range got.Tests {
		if !strings.HasPrefix(tc.Name, "secret/group2/g1-") {
			continue
		}
		linked++
		for _, f := range []string{tc.In, tc.Ans} {
			if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("%s: %v %v, want a regular file in the worker's copy", f, fi, err)
			}
		}
		want, _ := os.ReadFile(filepath.Join("../problems/linked-subtasks/data/secret/group1", strings.TrimPrefix(tc.Name, "secret/group2/g1-")+".in"))
		if b, _ := os.ReadFile(tc.In); len(want) == 0 || !bytes.Equal(b, want) {
			t.Errorf("%s: %d bytes, want group1's %d", tc.In, len(b), len(want))
		}
	}
	if linked != 3 || got.Digest != pushed.Digest {
		t.Errorf("%d linked tests (want 3), digest %s (pushed %s)", linked, got.Digest, pushed.Digest)
	}
}

// A statement linked out of the package, as DOMjudge's example problems
// link their problem.pdf, is left out of the pushed archive: the package
// unpacks without it, with the digest the pushed package has.
func TestPackLeavesOutLinkedStatement(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "doc.pdf")
	os.WriteFile(outside, []byte("%PDF secret\n"), 0o644)
	src := linkedPackage(t)
	if err := os.Symlink(outside, filepath.Join(src, "problem.pdf")); err != nil {
		t.Fatal(err)
	}
	data, err := PackTar(src)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("problem.pdf")) || bytes.Contains(data, []byte("%PDF secret")) {
		t.Fatal("the archive holds the linked statement")
	}
	dir := filepath.Join(t.TempDir(), "linked")
	if err := Unpack(data, dir); err != nil {
		t.Fatal(err)
	}
	want, err := problem.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := problem.Load(dir)
	if err != nil || got.Digest != want.Digest {
		t.Fatalf("unpacked: %v, digest %v; pushed %s", err, got, want.Digest)
	}
}

// A worker logs a package's warnings when it first judges with it, once
// per package: here the trusted validator of kattis-checker, judged
// twice by a capacity-mode worker (which loads the package and judges
// nothing), whatever the pushing CLI was told to print.
func TestWorkerLogsPackageWarnings(t *testing.T) {
	js, ctx, wnc := aplusbStore(t)
	if _, _, err := Push(ctx, js, "../problems/kattis-checker"); err != nil {
		t.Fatal(err)
	}
	logs := &syncWriter{}
	w, err := New(ctx, wnc, NotJudging(), Config{Name: "warn-0", Mode: ModeCapacityTest, EnsureInfra: true, AckWait: 3 * time.Second,
		CacheDir: t.TempDir(), InlineDir: t.TempDir(), Logger: zerolog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	subj := protocol.Subjects{Prefix: "docket"}
	var ids []string
	for _, id := range []string{"warn-a", "warn-b", "warn-c"} {
		prob := map[bool]string{true: "aplusb", false: "kattis-checker"}[id == "warn-c"]
		b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: id, Problem: prob, Language: "cpp17", Files: map[string]string{"main.cpp": "int main(){}"}})
		if _, err := js.Publish(ctx, subj.QueueJobs("default"), b, jetstream.WithMsgID(id)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx) }()
	waitForResults(t, ctx, js, subj, ids, 30*time.Second)
	rcancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"code":"trusted_code"`) {
			warned = append(warned, line)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], `"problem":"kattis-checker"`) || !strings.Contains(warned[0], "output_validators/check/check.cpp") ||
		!strings.Contains(warned[0], `"level":"warn"`) {
		t.Errorf("trusted_code warnings in the log, want one for kattis-checker:\n%s", strings.Join(warned, "\n"))
	}
}

// A CMS task folder travels through the store as a package does: the
// worker's copy loads as the same task (digest, name, graders, tests),
// and a second Get finds it loaded.
func TestPushCMSTaskThroughStore(t *testing.T) {
	_, _, js := embeddedJS(t)
	ctx := context.Background()
	pushed, _, err := Push(ctx, js, "../problems/cms-plus")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cache{Dir: t.TempDir(), MaxBytes: 1 << 30}
	got, err := c.Get(ctx, js, "cms-plus", pushed.Digest)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest != pushed.Digest || got.CMSName != "plus" || len(got.Tests) != 5 || len(got.Includes["cpp"]) != 2 || got.Kind != problem.Scoring {
		t.Fatalf("the worker's copy: %+v", got)
	}
	again, err := c.Get(ctx, js, "cms-plus", pushed.Digest)
	if err != nil || again != got {
		t.Errorf("second Get: %p %v, want the loaded %p", again, err, got)
	}
}
