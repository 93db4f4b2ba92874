package deploy_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// unit is a unit file's directives by section ("Service.ExecStart"),
// each with every value it is given.
type unit map[string][]string

func parseUnit(src string) unit {
	u := unit{}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(src))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
		default:
			k, v, _ := strings.Cut(line, "=")
			u[section+"."+k] = append(u[section+"."+k], v)
		}
	}
	return u
}

func (u unit) one(key string) string {
	if v := u[key]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// checkWorkerUnit: pinned per instance, cgroups delegated, the stop
// timeout beyond DOCKET_GRACE, restarted always, the shared env file, and
// only docket's own variables.
func checkWorkerUnit(u unit, grace time.Duration, known map[string]string) error {
	var ps problems
	want := map[string]string{"Service.CPUAffinity": "%i", "Service.Delegate": "yes", "Service.Restart": "always",
		"Service.KillMode": "mixed", "Service.EnvironmentFile": "-/etc/docket/worker-%i.env"}
	for k, v := range want {
		if got := u.one(k); got != v {
			ps.addf("%s=%q, want %q", k, got, v)
		}
	}
	if u["Service.EnvironmentFile"][0] != "/etc/docket/worker.env" {
		ps.addf("the first EnvironmentFile is %q, want /etc/docket/worker.env", u["Service.EnvironmentFile"][0])
	}
	stop, err := time.ParseDuration(u.one("Service.TimeoutStopSec") + "s")
	if err != nil || stop <= grace {
		ps.addf("TimeoutStopSec=%q must exceed DOCKET_GRACE %s", u.one("Service.TimeoutStopSec"), grace)
	}
	var names []string
	for _, e := range u["Service.Environment"] {
		n, _, _ := strings.Cut(e, "=")
		names = append(names, n)
	}
	ps.add(checkEnvNames("docket-worker@.service", names, known))
	if !strings.Contains(u.one("Service.ExecStart"), "/usr/local/bin/docket worker") {
		ps.addf("ExecStart %q does not run docket worker", u.one("Service.ExecStart"))
	}
	return ps.err()
}

// metricsAddr runs the unit's ExecStart for instance n with docket
// replaced by env, the way systemd would expand it (%i, $$), and returns
// the DOCKET_METRICS_ADDR docket would get.
func metricsAddr(t *testing.T, u unit, n string, extraEnv ...string) string {
	t.Helper()
	line := u.one("Service.ExecStart")
	line = strings.ReplaceAll(line, "%i", n)
	line = strings.ReplaceAll(line, "$$", "$")
	line = strings.ReplaceAll(line, "/usr/local/bin/docket worker", "/usr/bin/env")
	script, ok := strings.CutPrefix(line, "/bin/sh -c ")
	if !ok {
		t.Fatalf("ExecStart %q is not /bin/sh -c '...'", line)
	}
	cmd := exec.Command("/bin/sh", "-c", strings.Trim(script, "'"))
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, extraEnv...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ExecStart for instance %s: %v", n, err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "DOCKET_METRICS_ADDR="); ok {
			return v
		}
	}
	t.Fatalf("instance %s gets no DOCKET_METRICS_ADDR: %s", n, out)
	return ""
}

// verifyUnits runs systemd-analyze verify on copies of the units whose
// /usr/local/bin/docket is replaced by /bin/true (verify checks that
// ExecStart is executable; docket is not installed here). The template is
// verified as an instance, docket-worker@2. verify reports unknown keys
// on stderr with exit status 0, so any output about our files fails.
func verifyUnits(t *testing.T, analyze string, files map[string]string, instances []string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		src = strings.ReplaceAll(src, "/usr/local/bin/docket", "/bin/true")
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var args []string
	for _, in := range instances {
		args = append(args, filepath.Join(dir, in))
	}
	out, err := exec.Command(analyze, append([]string{"verify"}, args...)...).CombinedOutput()
	var ours []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, dir) || strings.Contains(l, "docket") {
			ours = append(ours, l)
		}
	}
	if err == nil && len(ours) > 0 {
		err = os.ErrInvalid
	}
	return strings.Join(ours, "\n"), err
}

func systemdAnalyze(t *testing.T) string {
	p, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed: unit files not verified (apt-get install systemd)")
	}
	return p
}

func unitFiles(t *testing.T) map[string]string {
	return map[string]string{
		"docket-worker@.service": string(readRepo(t, "deploy/systemd/docket-worker@.service")),
		"docket-bridge.service":  string(readRepo(t, "deploy/systemd/docket-bridge.service")),
	}
}

func TestSystemdUnits(t *testing.T) {
	known := docketEnv(t)
	files := unitFiles(t)
	u := parseUnit(files["docket-worker@.service"])
	expectClean(t, "docket-worker@.service", checkWorkerUnit(u, graceOf(t, nil, known), known))
	if got := metricsAddr(t, u, "3"); got != "127.0.0.1:9103" {
		t.Errorf("instance 3 metrics on %q, want 127.0.0.1:9103", got)
	}
	if got := metricsAddr(t, u, "12"); got != "127.0.0.1:9112" {
		t.Errorf("instance 12 metrics on %q, want 127.0.0.1:9112", got)
	}
	if got := metricsAddr(t, u, "3", "DOCKET_METRICS_ADDR=0.0.0.0:7000"); got != "0.0.0.0:7000" {
		t.Errorf("a per-instance env file's DOCKET_METRICS_ADDR is overridden: got %q", got)
	}
	b := parseUnit(files["docket-bridge.service"])
	expectClean(t, "docket-bridge.service ExecStart", func() error {
		if b.one("Service.ExecStart") != "/usr/local/bin/docket bridge" {
			return os.ErrInvalid
		}
		return nil
	}())

	analyze := systemdAnalyze(t)
	if out, err := verifyUnits(t, analyze, files, []string{"docket-worker@2.service", "docket-bridge.service"}); err != nil {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

func TestSystemdChecksFail(t *testing.T) {
	known := docketEnv(t)
	files := unitFiles(t)
	orig := files["docket-worker@.service"]
	broken := func(old, new string) unit {
		t.Helper()
		if !strings.Contains(orig, old) {
			t.Fatalf("unit no longer contains %q: update this test", old)
		}
		return parseUnit(strings.Replace(orig, old, new, 1))
	}
	grace := graceOf(t, nil, known)
	expectProblem(t, "not pinned", checkWorkerUnit(broken("CPUAffinity=%i", "CPUAffinity=0-3"), grace, known), "CPUAffinity")
	expectProblem(t, "no delegation", checkWorkerUnit(broken("Delegate=yes", "Delegate=no"), grace, known), "Delegate")
	expectProblem(t, "short stop", checkWorkerUnit(broken("TimeoutStopSec=60", "TimeoutStopSec=20"), grace, known), "TimeoutStopSec")
	expectProblem(t, "unknown env", checkWorkerUnit(broken("DOCKET_CACHE_DIR=", "DOCKET_CACHEDIR="), grace, known), "DOCKET_CACHEDIR")

	analyze := systemdAnalyze(t)
	bad := map[string]string{"docket-worker@.service": strings.Replace(orig, "Delegate=yes", "Delegate=yes\nDelgate=yes", 1)}
	if out, err := verifyUnits(t, analyze, bad, []string{"docket-worker@2.service"}); err == nil || !strings.Contains(out, "Delgate") {
		t.Errorf("systemd-analyze verify passed a unit with an unknown key: %v\n%s", err, out)
	}
	bad = map[string]string{"docket-bridge.service": strings.Replace(files["docket-bridge.service"], "/usr/local/bin/docket bridge", "/nonexistent/docket bridge", 1)}
	if _, err := verifyUnits(t, analyze, bad, []string{"docket-bridge.service"}); err == nil {
		t.Error("systemd-analyze verify passed a unit whose ExecStart does not exist")
	}
}
