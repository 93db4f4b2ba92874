package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/internal/natstest"
)

// trustedPackage is a+b judged by a Python output validator, with one
// accepted submission, and its statement linked out of the package as
// DOMjudge's example problems link theirs.
func trustedPackage(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "statement.pdf"), []byte("%PDF\n"), 0o644)
	d := filepath.Join(root, "trusted")
	for n, b := range map[string]string{
		"problem.yaml": "name: trusted\nvalidation: custom\n", "data/secret/1.in": "2 3\n", "data/secret/1.ans": "5\n",
		"output_validators/check/check.py": "import sys\nexit(42 if sys.stdin.read().split() == open(sys.argv[2]).read().split() else 43)\n",
		"submissions/accepted/main.py":     "print(sum(map(int, input().split())))\n",
		"problem_statement/problem.en.tex": "a+b\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(d, n)), 0o755)
		if err := os.WriteFile(filepath.Join(d, n), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../statement.pdf", filepath.Join(d, "problem.pdf")); err != nil {
		t.Fatal(err)
	}
	return d
}

// hasTrustWarning: stderr warns, naming the validator and saying to push
// only trusted packages, and warns of the statement left out.
func hasTrustWarning(s string) bool {
	return strings.Contains(s, "warning: trusted: the package's own programs run trusted") &&
		strings.Contains(s, "output_validators/check/check.py") && strings.Contains(s, "push only packages from sources you trust") &&
		strings.Contains(s, "problem.pdf -> ../statement.pdf")
}

// docket run, problem check and problem push warn about a package whose
// programs run trusted (naming them) and about a statement linked out
// of it (which loads, left out); --quiet silences the warnings on stderr,
// and --json carries them whatever --quiet says.
func TestPackageWarnings(t *testing.T) {
	bin := docketBinary(t)
	pkg := trustedPackage(t)
	js, url := submitServer(t)
	natstest.Streams(t, js)
	nats := []string{"DOCKET_NATS_URL=" + url}
	out, errOut, code := runBin(t, bin, nats, "problem", "push", pkg)
	if code != exitOK || !hasTrustWarning(errOut) || !strings.Contains(out, "pushed trusted") {
		t.Errorf("push: exit %d:\n%s%s", code, out, errOut)
	}
	out, errOut, code = runBin(t, bin, nats, "problem", "push", "--quiet", "--json", pkg)
	var pushed pushedJSON
	if err := json.Unmarshal([]byte(out), &pushed); code != exitOK || err != nil || strings.Contains(errOut, "warning") ||
		len(pushed.Warnings) != 2 || pushed.Warnings[1].Code != "trusted_code" || pushed.Warnings[1].Paths[0] != "output_validators/check/check.py" {
		t.Errorf("push --quiet --json: exit %d, %v:\n%s%s", code, err, out, errOut)
	}
	if os.Geteuid() != 0 {
		t.Skip("judging needs the full sandbox, which needs root: run and problem check not tried")
	}
	env := []string{"DOCKET_SANDBOX_DIR=" + t.TempDir(), "DOCKET_CACHE_DIR=" + t.TempDir()}
	sub := filepath.Join(pkg, "submissions/accepted/main.py")
	out, errOut, code = runBin(t, bin, env, "run", "--problem", pkg, sub)
	if code != exitOK || !hasTrustWarning(errOut) {
		t.Errorf("run: exit %d:\n%s%s", code, out, errOut)
	}
	out, errOut, code = runBin(t, bin, env, "run", "--quiet", "--json", "--problem", pkg, sub)
	var res runJSON
	if err := json.Unmarshal([]byte(out), &res); code != exitOK || err != nil || strings.Contains(errOut, "warning") ||
		len(res.PackageWarnings) != 2 || res.PackageWarnings[0].Code != "link_outside" {
		t.Errorf("run --quiet --json: exit %d, %v:\n%s%s", code, err, out, errOut)
	}
	out, errOut, code = runBin(t, bin, env, "problem", "check", pkg)
	if code != exitOK || !hasTrustWarning(errOut) {
		t.Errorf("problem check: exit %d:\n%s%s", code, out, errOut)
	}
	if _, errOut, _ = runBin(t, bin, env, "problem", "check", "--quiet", pkg); strings.Contains(errOut, "warning") {
		t.Errorf("problem check --quiet warns:\n%s", errOut)
	}
}
