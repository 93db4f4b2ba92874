package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/internal/natstest"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/rs/zerolog"
)

// zipTree writes the files under src into a zip archive at dst, each
// named prefix + its path (with a directory entry for prefix, as zip -r
// writes one); keep, when set, picks the files.
func zipTree(t *testing.T, src, dst, prefix string, keep func(rel string) bool) string {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	if prefix != "" {
		zw.Create(prefix)
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(src, p)
		if err != nil || d.IsDir() || keep != nil && !keep(rel) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create(prefix + filepath.ToSlash(rel))
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	})
	if err != nil || zw.Close() != nil || f.Close() != nil {
		t.Fatalf("zipping %s: %v", src, err)
	}
	return dst
}

// digestOf is the digest of the package directory dir.
func digestOf(t *testing.T, dir string) string {
	t.Helper()
	p, err := problem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p.Digest
}

// isEmptyDir: what docket unpacked there is gone.
func isEmptyDir(t *testing.T, dir string) {
	t.Helper()
	if es, err := os.ReadDir(dir); err != nil || len(es) != 0 {
		t.Errorf("%s holds %v (%v), want nothing left", dir, es, err)
	}
}

// aplusbZip is problems/aplusb zipped with its files at the root, with
// two of its submissions (what problem check judges, not the digest).
func aplusbZip(t *testing.T, dir string) string {
	return zipTree(t, "../../problems/aplusb", filepath.Join(dir, "aplusb.zip"), "", func(rel string) bool {
		return !strings.HasPrefix(rel, "submissions/") || rel == "submissions/accepted/main.c" || rel == "submissions/wrong_answer/minus.c"
	})
}

// docket run and docket problem check take a zip archive where they take
// a package directory: files at the root (aplusb) or in one top-level
// folder (tps-plus, as IOI publishes its tasks); the package is the
// directory's, digest included, and nothing unpacked is left.
func TestZipPackageRunAndCheck(t *testing.T) {
	needRoot(t)
	bin := docketBinary(t)
	tmp, scratch := t.TempDir(), t.TempDir()
	env := []string{"DOCKET_SANDBOX_DIR=" + t.TempDir(), "DOCKET_CACHE_DIR=" + t.TempDir(), "TMPDIR=" + scratch}
	for _, c := range []struct{ id, zip, dir, sub string }{
		{"aplusb", aplusbZip(t, tmp), "../../problems/aplusb", "../../problems/aplusb/submissions/accepted/main.c"},
		{"tps-plus", zipTree(t, "../../problems/tps-plus", filepath.Join(tmp, "tps-plus.zip"), "tps-plus/", nil),
			"../../problems/tps-plus", "../../problems/tps-plus/solutions/model_solution/plus.cpp"},
	} {
		t.Run(c.id, func(t *testing.T) {
			out, errOut, code := runBin(t, bin, env, "problem", "check", c.zip)
			digest := digestOf(t, c.dir)[:19]
			if code != exitOK || !strings.Contains(out, "got their expected verdict") ||
				!strings.HasPrefix(out, c.id+" (") || !strings.Contains(out, "digest "+digest) {
				t.Errorf("problem check %s: exit %d, want 0, id %s, digest %s:\n%s%s", c.zip, code, c.id, digest, out, errOut)
			}
			isEmptyDir(t, scratch)
			out, errOut, code = runBin(t, bin, env, "run", "--json", "--problem", c.zip, c.sub)
			var res verdict.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitOK || res.Verdict != verdict.AC {
				t.Errorf("run --problem %s: exit %d, %v:\n%s%s", c.zip, code, err, out, errOut)
			}
			isEmptyDir(t, scratch)
		})
	}
}

// A hostile archive is a load error that names the entry: docket run
// exits 2 (with an SE result for --json), problem check 1, and nothing
// is written, outside or in the temporary directory.
func TestZipPackageHostile(t *testing.T) {
	bin := docketBinary(t)
	tmp, scratch := t.TempDir(), t.TempDir()
	evil := filepath.Join(tmp, "pkg", "evil.zip")
	os.Mkdir(filepath.Dir(evil), 0o755)
	f, _ := os.Create(evil)
	zw := zip.NewWriter(f)
	for _, n := range []string{"problem.yaml", "../escaped"} {
		w, _ := zw.Create(n)
		w.Write([]byte("name: x\n"))
	}
	zw.Close()
	f.Close()
	const want = `zip archive ` + `%s: entry "../escaped": unsafe name: a .. element leaves the archive`
	msg := strings.Replace(want, "%s", evil, 1)
	env := []string{"TMPDIR=" + scratch}
	out, errOut, code := runBin(t, bin, env, "run", "--json", "--problem", evil, "../../problems/aplusb/submissions/accepted/main.c")
	var res verdict.Result
	if code != exitUsage || !strings.Contains(errOut, "docket run: "+msg) || json.Unmarshal([]byte(out), &res) != nil ||
		res.Verdict != verdict.SE || res.Error != msg {
		t.Errorf("run: exit %d, want 2 and %q:\n%s%s", code, msg, out, errOut)
	}
	_, errOut, code = runBin(t, bin, env, "problem", "check", evil)
	if code != exitFailed || !strings.Contains(errOut, "docket problem check: "+msg) {
		t.Errorf("problem check: exit %d, want 1 and %q:\n%s", code, msg, errOut)
	}
	_, errOut, code = runBin(t, bin, env, "problem", "check", "../../problems/aplusb/problem.yaml")
	if code != exitFailed || !strings.Contains(errOut, "not a well-formed zip archive") {
		t.Errorf("problem check of a file that is no archive: exit %d:\n%s", code, errOut)
	}
	isEmptyDir(t, scratch)
	if _, err := os.Stat(filepath.Join(tmp, "escaped")); err == nil {
		t.Error("the archive wrote outside")
	}
}

// docket problem push and serve's problems directory push a zip archive
// as the package it holds, under the archive's name, with the digest of
// the package directory; a hostile archive beside it is not pushed.
func TestZipPackagePush(t *testing.T) {
	bin := docketBinary(t)
	tmp, scratch := t.TempDir(), t.TempDir()
	js, url := submitServer(t)
	natstest.Streams(t, js)
	digest := digestOf(t, "../../problems/aplusb")
	out, errOut, code := runBin(t, bin, []string{"DOCKET_NATS_URL=" + url, "TMPDIR=" + scratch}, "problem", "push", aplusbZip(t, tmp))
	if code != exitOK || !strings.HasPrefix(out, "pushed aplusb (") || !strings.Contains(out, digest[:19]) {
		t.Errorf("push: exit %d, want aplusb %s:\n%s%s", code, digest[:19], out, errOut)
	}
	isEmptyDir(t, scratch)
	served := t.TempDir()
	zipTree(t, "../../problems/aplusb", filepath.Join(served, "zipped.zip"), "aplusb/", nil)
	os.WriteFile(filepath.Join(served, "broken.zip"), []byte("not an archive"), 0o644)
	os.WriteFile(filepath.Join(served, "README"), []byte("not a package"), 0o644)
	pushAll(context.Background(), js, served, zerolog.Nop())
	obs, err := js.ObjectStore(context.Background(), protocol.ProblemBucket)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := obs.GetInfo(context.Background(), "zipped"); err != nil || info.Metadata["problem_digest"] != digest {
		t.Errorf("serve's zipped.zip: %v, %v; want digest %s", info, err, digest)
	}
	if _, err := obs.GetInfo(context.Background(), "broken"); err == nil {
		t.Error("broken.zip pushed")
	}
}
