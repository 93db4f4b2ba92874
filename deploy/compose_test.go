package deploy_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"go.yaml.in/yaml/v3"
)

// composeFile is the part of the Compose specification docker-compose.yml
// uses; decoding with KnownFields rejects any key outside it (a typo, or
// a key this check does not understand). Top-level x-* keys hold anchors.
type composeFile struct {
	Services   map[string]composeService `yaml:"services"`
	Volumes    map[string]any            `yaml:"volumes"`
	Extensions map[string]any            `yaml:",inline"`
}

type composeService struct {
	Image           string                      `yaml:"image"`
	Build           *composeBuild               `yaml:"build"`
	Command         []string                    `yaml:"command"`
	Entrypoint      []string                    `yaml:"entrypoint"`
	Restart         string                      `yaml:"restart"`
	Environment     map[string]string           `yaml:"environment"`
	EnvFile         []string                    `yaml:"env_file"`
	Volumes         []string                    `yaml:"volumes"`
	Tmpfs           []string                    `yaml:"tmpfs"`
	Ports           []string                    `yaml:"ports"`
	CapAdd          []string                    `yaml:"cap_add"`
	CapDrop         []string                    `yaml:"cap_drop"`
	SecurityOpt     []string                    `yaml:"security_opt"`
	Cgroup          string                      `yaml:"cgroup"`
	Privileged      bool                        `yaml:"privileged"`
	Init            bool                        `yaml:"init"`
	StopGracePeriod string                      `yaml:"stop_grace_period"`
	Healthcheck     *composeHealth              `yaml:"healthcheck"`
	DependsOn       map[string]composeDependsOn `yaml:"depends_on"`
}

type composeBuild struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
}

type composeHealth struct {
	Test        []string `yaml:"test"`
	Interval    string   `yaml:"interval"`
	Timeout     string   `yaml:"timeout"`
	Retries     int      `yaml:"retries"`
	StartPeriod string   `yaml:"start_period"`
}

type composeDependsOn struct {
	Condition string `yaml:"condition"`
}

func parseCompose(b []byte) (*composeFile, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var c composeFile
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("docker-compose.yml: %w", err)
	}
	return &c, nil
}

// natsServerVersion is the nats-server module docket is built and tested
// with (go.mod); the compose and Helm images must run the same release.
func natsServerVersion(t *testing.T) string {
	m := regexp.MustCompile(`github.com/nats-io/nats-server/v2 v(\d+\.\d+\.\d+)`).FindSubmatch(readRepo(t, "go.mod"))
	if m == nil {
		t.Fatal("go.mod names no nats-server/v2 version")
	}
	return string(m[1])
}

var durationFields = []string{"interval", "timeout", "start_period"}

// checkCompose checks files, images, dependencies, env names, health
// checks and the worker's privileges.
func checkCompose(c *composeFile, known map[string]string, natsVersion string) error {
	var ps problems
	for k := range c.Extensions {
		if !strings.HasPrefix(k, "x-") {
			ps.addf("top-level key %q is neither services, volumes nor an x- extension", k)
		}
	}
	built := map[string]bool{}
	for _, s := range c.Services {
		if s.Build != nil && s.Image != "" {
			built[s.Image] = true
		}
	}
	natsImage := regexp.MustCompile(`^nats:(\d+\.\d+\.\d+)(-alpine)?$`)
	for _, name := range sortedKeys(c.Services) {
		s := c.Services[name]
		where := "service " + name
		switch {
		case s.Build != nil:
			ps.add(mustExist(s.Build.Context))
			ps.add(mustExist(path.Join(s.Build.Context, s.Build.Dockerfile)))
		case built[s.Image]:
		case natsImage.MatchString(s.Image):
			if v := natsImage.FindStringSubmatch(s.Image)[1]; v != natsVersion {
				ps.addf("%s: image %s, but docket is tested with nats-server %s (go.mod)", where, s.Image, natsVersion)
			}
		default:
			ps.addf("%s: image %q is neither built here nor nats:<pinned version>", where, s.Image)
		}
		for _, f := range s.EnvFile {
			ps.add(mustExist(f))
		}
		for _, v := range s.Volumes {
			src := strings.SplitN(v, ":", 2)[0]
			if strings.HasPrefix(src, ".") || strings.HasPrefix(src, "/") {
				ps.add(mustExist(src))
			} else if _, ok := c.Volumes[src]; !ok {
				ps.addf("%s: volume %q is not declared under volumes", where, src)
			}
		}
		for _, o := range s.SecurityOpt {
			if f, ok := strings.CutPrefix(o, "seccomp="); ok && f != "unconfined" {
				ps.add(mustExist(f))
			}
		}
		for dep := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				ps.addf("%s: depends on unknown service %q", where, dep)
			}
		}
		if strings.HasPrefix(s.Image, "nats:") {
			continue
		}
		ps.add(checkEnvNames(where, sortedKeys(s.Environment), known))
		if s.Privileged {
			ps.addf("%s: privileged; the seccomp profile and capabilities are meant to make that unnecessary", where)
		}
		if h := s.Healthcheck; h != nil {
			for i, d := range []string{h.Interval, h.Timeout, h.StartPeriod} {
				if _, err := time.ParseDuration(d); d != "" && err != nil {
					ps.addf("%s: healthcheck %s %q: %v", where, durationFields[i], d, err)
				}
			}
		}
	}
	return ps.err()
}

// checkHealth: the service's health check asks /readyz on the port it
// listens on (addrVar: the variable holding its listen address).
func checkHealth(c *composeFile, service, addrVar string) error {
	s, ok := c.Services[service]
	if !ok {
		return fmt.Errorf("no %s service", service)
	}
	if s.Healthcheck == nil {
		return fmt.Errorf("%s: no healthcheck", service)
	}
	_, port, err := net.SplitHostPort(s.Environment[addrVar])
	if err != nil {
		return fmt.Errorf("%s: %s %q: %v", service, addrVar, s.Environment[addrVar], err)
	}
	test := strings.Join(s.Healthcheck.Test, " ")
	if want := ":" + port + "/readyz"; !strings.Contains(test, want) {
		return fmt.Errorf("%s: healthcheck %q does not ask %s", service, test, want)
	}
	return nil
}

// checkSelftestFirst: the service's health check begins with `docket
// selftest --once`, the report its entrypoint kept at start.
func checkSelftestFirst(c *composeFile, service string) error {
	s := c.Services[service]
	if s.Healthcheck == nil || len(s.Healthcheck.Test) < 2 || s.Healthcheck.Test[0] != "CMD-SHELL" ||
		!strings.HasPrefix(s.Healthcheck.Test[1], "docket selftest --once") {
		return fmt.Errorf("%s: the health check's first step is not docket selftest --once", service)
	}
	return nil
}

// checkWorker: the worker runs unprivileged with the shipped profile, a
// private cgroup namespace, SYS_ADMIN, and a stop grace beyond DOCKET_GRACE.
func checkWorker(c *composeFile, grace time.Duration) error {
	var ps problems
	w := c.Services["worker"]
	if w.Build == nil || w.Build.Dockerfile != "deploy/Dockerfile" {
		ps.addf("worker: not built from deploy/Dockerfile")
	}
	if !slices.Contains(w.SecurityOpt, "seccomp=./deploy/seccomp-worker.json") {
		ps.addf("worker: security_opt %v lacks seccomp=./deploy/seccomp-worker.json", w.SecurityOpt)
	}
	if w.Cgroup != "private" {
		ps.addf("worker: cgroup %q, want private (its own cgroup namespace)", w.Cgroup)
	}
	if !slices.Contains(w.CapDrop, "ALL") || !slices.Contains(w.CapAdd, "SYS_ADMIN") {
		ps.addf("worker: want cap_drop ALL and cap_add SYS_ADMIN, got drop %v add %v", w.CapDrop, w.CapAdd)
	}
	if slices.Contains(w.Ports, "9090") || len(w.Ports) > 0 {
		ps.addf("worker: published ports %v break --scale worker=N", w.Ports)
	}
	if !w.Init {
		ps.addf("worker: init: true missing (docket would be PID 1 and left to reap what its runs orphan)")
	}
	if stop, err := time.ParseDuration(w.StopGracePeriod); err != nil || stop <= grace {
		ps.addf("worker: stop_grace_period %q must exceed DOCKET_GRACE %s (%v)", w.StopGracePeriod, grace, err)
	}
	return ps.err()
}

// natsNode is one cluster node as compose runs it.
type natsNode struct {
	service string
	opts    *server.Options
}

// natsNodes parses each nats service's mounted configuration with
// nats-server's own option parser.
func natsNodes(c *composeFile) ([]natsNode, error) {
	var nodes []natsNode
	for _, name := range sortedKeys(c.Services) {
		s := c.Services[name]
		if !strings.HasPrefix(s.Image, "nats:") {
			continue
		}
		var conf string
		for _, v := range s.Volumes {
			if parts := strings.Split(v, ":"); len(parts) >= 2 && parts[1] == "/etc/nats/nats.conf" {
				conf = parts[0]
			}
		}
		if conf == "" || !slices.Contains(s.Command, "/etc/nats/nats.conf") {
			return nil, fmt.Errorf("%s: no configuration file mounted at /etc/nats/nats.conf and passed with -c", name)
		}
		opts, err := server.ProcessConfigFile(repoPath(conf))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", name, conf, err)
		}
		nodes = append(nodes, natsNode{name, opts})
	}
	return nodes, nil
}

// checkNATSCluster: three JetStream nodes, one cluster name, distinct
// server names, each routing to exactly the two others at their cluster
// port; docket's clients list all three.
func checkNATSCluster(nodes []natsNode, natsURL string) error {
	var ps problems
	if len(nodes) != 3 {
		return fmt.Errorf("want 3 NATS nodes, got %d", len(nodes))
	}
	names := map[string]bool{}
	for _, n := range nodes {
		o := n.opts
		if !o.JetStream {
			ps.addf("%s: JetStream is off", n.service)
		}
		if o.Cluster.Name != nodes[0].opts.Cluster.Name || o.Cluster.Name == "" {
			ps.addf("%s: cluster name %q differs from %s's %q", n.service, o.Cluster.Name, nodes[0].service, nodes[0].opts.Cluster.Name)
		}
		if names[o.ServerName] || o.ServerName == "" {
			ps.addf("%s: server_name %q is empty or not unique", n.service, o.ServerName)
		}
		names[o.ServerName] = true
		var got, want []string
		for _, r := range o.Routes {
			got = append(got, r.Host)
		}
		for _, other := range nodes {
			if other.service != n.service {
				want = append(want, net.JoinHostPort(other.service, strconv.Itoa(other.opts.Cluster.Port)))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			ps.addf("%s: routes %v, want the other nodes %v", n.service, got, want)
		}
		url := fmt.Sprintf("nats://%s", net.JoinHostPort(n.service, strconv.Itoa(o.Port)))
		if !slices.Contains(strings.Split(natsURL, ","), url) {
			ps.addf("DOCKET_NATS_URL %q does not list %s", natsURL, url)
		}
	}
	return ps.err()
}

func loadCompose(t *testing.T) *composeFile {
	t.Helper()
	c, err := parseCompose(readRepo(t, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompose(t *testing.T) {
	known := docketEnv(t)
	c := loadCompose(t)
	for _, s := range []string{"nats1", "nats2", "nats3", "worker", "bridge", "push-problems"} {
		if _, ok := c.Services[s]; !ok {
			t.Errorf("no %s service", s)
		}
	}
	expectClean(t, "docker-compose.yml", checkCompose(c, known, natsServerVersion(t)))
	expectClean(t, "worker health", checkHealth(c, "worker", "DOCKET_METRICS_ADDR"))
	expectClean(t, "bridge health", checkHealth(c, "bridge", "DOCKET_BRIDGE_ADDR"))
	expectClean(t, "worker health's first step", checkSelftestFirst(c, "worker"))
	expectClean(t, "worker", checkWorker(c, graceOf(t, c.Services["worker"].Environment, known)))
	nodes, err := natsNodes(c)
	if err != nil {
		t.Fatal(err)
	}
	expectClean(t, "NATS cluster", checkNATSCluster(nodes, c.Services["worker"].Environment["DOCKET_NATS_URL"]))
	if w := c.Services["worker"].Environment["DOCKET_REPLICAS"]; w != "3" {
		t.Errorf("worker DOCKET_REPLICAS %q, want 3 on a 3-node cluster", w)
	}
	push := strings.Join(c.Services["push-problems"].Entrypoint, " ")
	if !strings.Contains(push, "docket-entrypoint problem push /problems/*/") {
		t.Errorf("push-problems runs %q, want docket problem push of every package under /problems", push)
	}
	if _, ok := c.Services["worker"].DependsOn["push-problems"]; !ok {
		t.Error("worker does not wait for push-problems (jobs for unpushed problems would fail)")
	}
}

func TestComposeChecksFail(t *testing.T) {
	known := docketEnv(t)
	orig := string(readRepo(t, "docker-compose.yml"))
	broken := func(old, new string) *composeFile {
		t.Helper()
		if !strings.Contains(orig, old) {
			t.Fatalf("docker-compose.yml no longer contains %q: update this test", old)
		}
		c, err := parseCompose([]byte(strings.Replace(orig, old, new, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	v := natsServerVersion(t)
	expectProblem(t, "missing mounted file", checkCompose(broken("./deploy/nats/n2.conf", "./deploy/nats/n9.conf"), known, v), "n9.conf")
	expectProblem(t, "foreign image", checkCompose(broken("image: nats:2.15.2-alpine", "image: redis:7"), known, v), "redis:7")
	expectProblem(t, "unpinned nats", checkCompose(broken("image: nats:2.15.2-alpine", "image: nats:latest"), known, v), "nats:latest")
	expectProblem(t, "unknown env", checkCompose(broken("DOCKET_LOG_LEVEL: info", "DOCKET_LOGLEVEL: info"), known, v), "DOCKET_LOGLEVEL")
	expectProblem(t, "missing Dockerfile", checkCompose(broken("dockerfile: deploy/Dockerfile", "dockerfile: deploy/Dockerfile.gone"), known, v), "Dockerfile.gone")
	expectProblem(t, "health on another port", checkHealth(broken("http://127.0.0.1:9090/readyz", "http://127.0.0.1:9091/readyz"), "worker", "DOCKET_METRICS_ADDR"), "/readyz")
	expectProblem(t, "health without selftest", checkSelftestFirst(broken("docket selftest --once >/dev/null && ", ""), "worker"), "selftest")
	expectProblem(t, "health on livez", checkHealth(broken("http://127.0.0.1:9090/readyz", "http://127.0.0.1:9090/livez"), "worker", "DOCKET_METRICS_ADDR"), "/readyz")
	expectProblem(t, "short stop grace", checkWorker(broken("stop_grace_period: 45s", "stop_grace_period: 10s"), 30*time.Second), "stop_grace_period")
	expectProblem(t, "no init", checkWorker(broken("    init: true\n    command: [\"worker\"]", "    command: [\"worker\"]"), 30*time.Second), "init")
	expectProblem(t, "shared cgroup ns", checkWorker(broken("cgroup: private", "cgroup: host"), 30*time.Second), "cgroup")
	if _, err := parseCompose([]byte(strings.Replace(orig, "cap_add:", "capadd:", 1))); err == nil {
		t.Error("a misspelt service key decoded without error")
	}

	// A route that names the wrong node, written to a temporary file.
	dir := t.TempDir()
	conf := strings.Replace(string(readRepo(t, "deploy/nats/n3.conf")), "nats-route://nats2:6222", "nats-route://nats3:6222", 1)
	if err := os.WriteFile(dir+"/n3.conf", []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c := loadCompose(t)
	nodes, err := natsNodes(c)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := server.ProcessConfigFile(dir + "/n3.conf")
	if err != nil {
		t.Fatal(err)
	}
	nodes[2].opts = bad
	url := c.Services["worker"].Environment["DOCKET_NATS_URL"]
	expectProblem(t, "wrong route", checkNATSCluster(nodes, url), "routes")
	nodes, _ = natsNodes(c)
	expectProblem(t, "client URL misses a node", checkNATSCluster(nodes, strings.Replace(url, ",nats://nats3:4222", "", 1)), "nats3:4222")
}
