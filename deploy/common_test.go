// Package deploy_test validates the deployment artifacts offline: these
// machines have no container engine and no cluster, so what can be
// checked without running them is checked here (docs/deploy.md says what
// was not run). Every check is a function that returns the problems it
// found; each test runs it on the shipped files (no problem expected) and
// on a broken copy (a problem expected), so no check passes vacuously.
package deploy_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// root is the repository root: the tests run in deploy/.
const root = ".."

func repoPath(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }

func readRepo(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(repoPath(p))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustExist(p string) error {
	if _, err := os.Stat(repoPath(p)); err != nil {
		return fmt.Errorf("%s: not in the repository: %v", p, err)
	}
	return nil
}

// problems collects a check's findings.
type problems []error

func (ps *problems) addf(format string, args ...any) { *ps = append(*ps, fmt.Errorf(format, args...)) }
func (ps *problems) add(err error) {
	if err != nil {
		*ps = append(*ps, err)
	}
}
func (ps problems) err() error { return errors.Join(ps...) }

// expectClean fails the test with every problem found.
func expectClean(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s:\n%v", what, err)
	}
}

// expectProblem fails unless the check found a problem mentioning want.
func expectProblem(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: the check found nothing wrong with a broken input", what)
		return
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: want a problem mentioning %q, got:\n%v", what, want, err)
	}
}

// envconfigTag matches docket's configuration fields; envconfig prefixes
// every name with DOCKET_ (cmd/docket/config.go envProcess).
var envconfigTag = regexp.MustCompile("envconfig:\"([A-Z0-9_]+)\"((?:\\s+[a-z_]+:\"[^\"]*\")*)")

// docketEnv is every DOCKET_* variable docket reads, derived from the
// envconfig tags in cmd/docket, plus the entrypoint script's own
// (DOCKET_REMOUNT_CGROUP), each with its default ("" if none).
func docketEnv(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(repoPath("cmd/docket/*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cmd/docket sources: %v", err)
	}
	env := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range envconfigTag.FindAllStringSubmatch(string(b), -1) {
			def := ""
			if d := regexp.MustCompile(`default:"([^"]*)"`).FindStringSubmatch(m[2]); d != nil {
				def = d[1]
			}
			env["DOCKET_"+m[1]] = def
		}
	}
	if len(env) < 10 {
		t.Fatalf("found only %d envconfig names in cmd/docket: the tag pattern no longer matches", len(env))
	}
	script := string(readRepo(t, "deploy/entrypoint.sh"))
	for _, m := range regexp.MustCompile(`\$\{(DOCKET_[A-Z0-9_]+):-([^}]*)\}`).FindAllStringSubmatch(script, -1) {
		env[m[1]] = m[2]
	}
	return env
}

// checkEnvNames reports names that docket does not read.
func checkEnvNames(where string, names []string, known map[string]string) error {
	var ps problems
	for _, n := range names {
		if _, ok := known[n]; !ok && strings.HasPrefix(n, "DOCKET_") {
			ps.addf("%s: %s is not a docket variable (known: cmd/docket envconfig tags)", where, n)
		} else if !ok {
			ps.addf("%s: %s is not a docket variable (docket reads only DOCKET_*)", where, n)
		}
	}
	return ps.err()
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// graceOf is DOCKET_GRACE as configured in env, or docket's default.
func graceOf(t *testing.T, env map[string]string, known map[string]string) time.Duration {
	t.Helper()
	v := env["DOCKET_GRACE"]
	if v == "" {
		v = known["DOCKET_GRACE"]
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("DOCKET_GRACE %q: %v", v, err)
	}
	return d
}

func TestEnvNamesCheckFails(t *testing.T) {
	known := docketEnv(t)
	for _, n := range []string{"DOCKET_NATS_URL", "DOCKET_REPLICAS", "DOCKET_METRICS_ADDR", "DOCKET_BRIDGE_ADDR",
		"DOCKET_BRIDGE_TOKEN", "DOCKET_BRIDGE_HMAC_SECRET", "DOCKET_GRACE", "DOCKET_REMOUNT_CGROUP"} {
		if _, ok := known[n]; !ok {
			t.Errorf("%s missing from the derived list %v", n, sortedKeys(known))
		}
	}
	expectProblem(t, "misspelt name", checkEnvNames("test", []string{"DOCKET_NATS_URLS"}, known), "DOCKET_NATS_URLS")
	expectProblem(t, "foreign name", checkEnvNames("test", []string{"NATS_URL"}, known), "NATS_URL")
}
