// Package natscluster runs a real NATS JetStream cluster for tests: n
// nats-server processes, built from the nats-server/v2 module that go.mod
// pins (not a distribution's package), routed to each other on loopback,
// each with its own JetStream store in the test's temporary directory.
// Tests kill, stop, freeze and restart single nodes to prove what docket
// does when parts of the cluster fail.
//
// It must not import any other package of docket's; only tests import it.
package natscluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const serverModule = "github.com/nats-io/nats-server/v2"

// ClusterName is the route cluster's name in every node's configuration.
const ClusterName = "docket-test"

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Binary returns the path of a nats-server built from the module version
// that go.mod requires. It is built once per test binary and cached
// across runs under os.TempDir, keyed by that version, so a second run
// costs a `go list` only.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() { buildPath, buildErr = build() })
	if buildErr != nil {
		t.Fatalf("natscluster: %v", buildErr)
	}
	return buildPath
}

func build() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", serverModule).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w (is it in go.mod?)", serverModule, err)
	}
	version := strings.TrimSpace(string(out))
	// World-readable: the directory is shared by every test run on the host.
	dir := filepath.Join(os.TempDir(), "docket-nats-server-"+version)
	bin := filepath.Join(dir, "nats-server")
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Build beside the final name and rename: concurrent test binaries
	// never see a half-written executable.
	tmp := fmt.Sprintf("%s.%d.tmp", bin, os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, serverModule)
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("go build %s@%s: %v\n%s", serverModule, version, err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	return bin, nil
}

// Node is one nats-server of the cluster. Its ports and store survive a
// restart, as a real node's would.
type Node struct {
	Name        string // server_name, as reported in StreamInfo.Cluster.Leader
	ClientPort  int
	ClusterPort int
	HTTPPort    int // monitoring: /healthz, /jsz
	StoreDir    string
	Tags        []string
	ConfigPath  string
	LogPath     string

	cmd    *exec.Cmd
	exited chan struct{}
}

// Running reports whether the node's process is alive (frozen counts).
func (n *Node) Running() bool {
	if n.cmd == nil {
		return false
	}
	select {
	case <-n.exited:
		return false
	default:
		return true
	}
}

// URL is the node's client URL.
func (n *Node) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(n.ClientPort) }

// Cluster is n routed nats-server processes with JetStream.
type Cluster struct {
	t     testing.TB
	bin   string
	Nodes []*Node
	mu    sync.Mutex
}

// Options shape a cluster beyond its size.
type Options struct {
	Nodes int
	// Tags are the server_tags of each node, by index; streams can then
	// be placed on tagged nodes (Place), so that one stream's quorum can
	// be taken away while others keep theirs.
	Tags [][]string
}

// Start starts an n-node JetStream cluster and waits until it is healthy
// (a meta leader elected, every node current). Cleanup kills every node.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	return StartWith(t, Options{Nodes: n})
}

// StartWith is Start with options.
func StartWith(t testing.TB, o Options) *Cluster {
	t.Helper()
	n := o.Nodes
	if n < 1 {
		t.Fatalf("natscluster: %d nodes", n)
	}
	c := &Cluster{t: t, bin: Binary(t)}
	base := t.TempDir()
	for i := range n {
		dir := filepath.Join(base, fmt.Sprintf("n%d", i+1))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		c.Nodes = append(c.Nodes, &Node{
			Name: fmt.Sprintf("n%d", i+1), ClientPort: FreePort(t), ClusterPort: FreePort(t), HTTPPort: FreePort(t),
			StoreDir: filepath.Join(dir, "store"), ConfigPath: filepath.Join(dir, "nats.conf"), LogPath: filepath.Join(dir, "nats.log"),
		})
	}
	routes := make([]string, n)
	for i, nd := range c.Nodes {
		routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", nd.ClusterPort)
	}
	for i, nd := range c.Nodes {
		if i < len(o.Tags) {
			nd.Tags = o.Tags[i]
		}
		if err := os.WriteFile(nd.ConfigPath, []byte(config(nd, routes)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(c.killAll)
	for i := range c.Nodes {
		c.start(i)
	}
	c.WaitHealthy(60 * time.Second)
	return c
}

// config is one node's configuration file. Memory and store limits are
// set because the server's defaults are fractions of the whole machine.
func config(nd *Node, routes []string) string {
	tags := make([]string, len(nd.Tags))
	for i, tg := range nd.Tags {
		tags[i] = strconv.Quote(tg)
	}
	return fmt.Sprintf(`server_name: %q
server_tags: [%s]
listen: "127.0.0.1:%d"
http: "127.0.0.1:%d"
max_payload: 8MB
jetstream {
  store_dir: %q
  max_memory_store: 256MB
  max_file_store: 4GB
}
cluster {
  name: %q
  listen: "127.0.0.1:%d"
  routes: [%s]
}
`, nd.Name, strings.Join(tags, ", "), nd.ClientPort, nd.HTTPPort, nd.StoreDir, ClusterName, nd.ClusterPort, strings.Join(routes, ", "))
}

func (c *Cluster) start(i int) {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	nd := c.Nodes[i]
	if nd.Running() {
		c.t.Fatalf("natscluster: %s already running", nd.Name)
	}
	logf, err := os.OpenFile(nd.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(c.bin, "-c", nd.ConfigPath)
	cmd.Stdout, cmd.Stderr = logf, logf
	// If the test binary dies, so do its servers.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		c.t.Fatalf("natscluster: start %s: %v", nd.Name, err)
	}
	nd.cmd, nd.exited = cmd, make(chan struct{})
	go func(exited chan struct{}) { cmd.Wait(); logf.Close(); close(exited) }(nd.exited)
	if err := waitTCP(fmt.Sprintf("127.0.0.1:%d", nd.ClientPort), 20*time.Second, nd.exited); err != nil {
		c.t.Fatalf("natscluster: %s: %v\n%s", nd.Name, err, tail(nd.LogPath))
	}
}

// URLs is every node's client URL, comma-separated, in node order.
func (c *Cluster) URLs() string { return c.URLsFrom(0) }

// URLsFrom is the same list rotated to begin at node i, so clients can
// be spread over the nodes (nats.go connects to the first it can reach
// unless told to randomize).
func (c *Cluster) URLsFrom(i int) string {
	u := make([]string, len(c.Nodes))
	for k := range c.Nodes {
		u[k] = c.Nodes[(i+k)%len(c.Nodes)].URL()
	}
	return strings.Join(u, ",")
}

// Kill sends SIGKILL to node i and waits until it is gone: a crash, no
// goodbye to its peers, its store as it was on disk.
func (c *Cluster) Kill(i int) { c.signalWait(i, syscall.SIGKILL) }

// Stop shuts node i down gracefully (SIGTERM) and waits until it exits.
func (c *Cluster) Stop(i int) { c.signalWait(i, syscall.SIGTERM) }

// Freeze stops node i's process (SIGSTOP): its sockets stay open and its
// peers see a silent node, not a closed connection.
func (c *Cluster) Freeze(i int) { c.signal(i, syscall.SIGSTOP) }

// Thaw resumes a frozen node (SIGCONT).
func (c *Cluster) Thaw(i int) { c.signal(i, syscall.SIGCONT) }

// Restart starts a killed or stopped node again on its own ports and
// store, and waits until it accepts clients (not until it caught up: see
// WaitHealthy and WaitCurrent).
func (c *Cluster) Restart(i int) { c.start(i) }

func (c *Cluster) signal(i int, sig syscall.Signal) {
	c.t.Helper()
	nd := c.Nodes[i]
	if !nd.Running() {
		c.t.Fatalf("natscluster: %s is not running", nd.Name)
	}
	if err := nd.cmd.Process.Signal(sig); err != nil {
		c.t.Fatalf("natscluster: signal %s: %v", nd.Name, err)
	}
}

func (c *Cluster) signalWait(i int, sig syscall.Signal) {
	c.t.Helper()
	c.signal(i, sig)
	nd := c.Nodes[i]
	if sig != syscall.SIGKILL {
		// A stopped process cannot handle SIGTERM.
		nd.cmd.Process.Signal(syscall.SIGCONT)
	}
	select {
	case <-nd.exited:
	case <-time.After(30 * time.Second):
		nd.cmd.Process.Kill()
		<-nd.exited
		c.t.Errorf("natscluster: %s did not exit on %v within 30s; killed", nd.Name, sig)
	}
}

func (c *Cluster) killAll() {
	for _, nd := range c.Nodes {
		if nd.Running() {
			nd.cmd.Process.Kill()
			<-nd.exited
		}
	}
}

// WaitHealthy waits until every running node answers /healthz with 200:
// connected, JetStream enabled, its meta and stream replicas current.
func (c *Cluster) WaitHealthy(within time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for _, nd := range c.Nodes {
		if !nd.Running() {
			continue
		}
		var last string
		for {
			ok, body := healthz(nd)
			if ok {
				break
			}
			last = body
			if time.Now().After(deadline) {
				c.t.Fatalf("natscluster: %s not healthy within %v: %s\n%s", nd.Name, within, last, tail(nd.LogPath))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func healthz(nd *Node) (bool, string) {
	cl := http.Client{Timeout: 2 * time.Second}
	resp, err := cl.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", nd.HTTPPort))
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode == 200, strings.TrimSpace(b.String())
}

// Connect opens a client connection to every node (in node order) that
// keeps reconnecting; closed at cleanup.
func (c *Cluster) Connect() *nats.Conn {
	c.t.Helper()
	nc, err := nats.Connect(c.URLs(), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond), nats.Timeout(2*time.Second))
	if err != nil {
		c.t.Fatalf("natscluster: connect: %v", err)
	}
	c.t.Cleanup(nc.Close)
	return nc
}

// Index is the position in Nodes of the node with that server name, or -1.
func (c *Cluster) Index(name string) int {
	for i, nd := range c.Nodes {
		if nd.Name == name {
			return i
		}
	}
	return -1
}

// Leader is the index of the node that leads the stream now, from
// StreamInfo.Cluster.Leader. It retries while the stream has no leader
// (an election in progress) until ctx ends.
func (c *Cluster) Leader(ctx context.Context, js jetstream.JetStream, stream string) (int, error) {
	var last error
	for {
		info, err := streamInfo(ctx, js, stream)
		if err == nil {
			if info.Cluster != nil && info.Cluster.Leader != "" {
				if i := c.Index(info.Cluster.Leader); i >= 0 {
					return i, nil
				}
				return -1, fmt.Errorf("stream %s: leader %q is not a node of this cluster", stream, info.Cluster.Leader)
			}
			err = errors.New("no leader")
		}
		last = err
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("leader of %s: %v (%w)", stream, last, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// WaitCurrent waits until the stream has a leader and every replica of it
// is current with no lag: a restarted node has caught up.
func (c *Cluster) WaitCurrent(ctx context.Context, js jetstream.JetStream, stream string) error {
	var last string
	for {
		info, err := streamInfo(ctx, js, stream)
		if err == nil && info.Cluster != nil && info.Cluster.Leader != "" {
			ok := len(info.Cluster.Replicas) == info.Config.Replicas-1
			for _, r := range info.Cluster.Replicas {
				if !r.Current || r.Offline || r.Lag != 0 {
					ok = false
				}
			}
			if ok {
				return nil
			}
			last = fmt.Sprintf("leader %s, replicas %+v", info.Cluster.Leader, replicas(info.Cluster.Replicas))
		} else if err != nil {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stream %s not current: %s (%w)", stream, last, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func replicas(rs []*jetstream.PeerInfo) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s current=%v offline=%v lag=%d", r.Name, r.Current, r.Offline, r.Lag))
	}
	return out
}

func streamInfo(ctx context.Context, js jetstream.JetStream, stream string) (*jetstream.StreamInfo, error) {
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, err := js.Stream(rctx, stream)
	if err != nil {
		return nil, err
	}
	return s.Info(rctx)
}

// Tail returns the end of node i's log, for failure messages.
func (c *Cluster) Tail(i int) string { return tail(c.Nodes[i].LogPath) }

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// FreePort picks a port below the kernel's ephemeral range and not
// handed out before in this process. A port from the ephemeral range (what
// listening on :0 gives) can be taken, between the pick and the server's
// bind, as the source port of any outgoing connection on the machine — a
// worker dialling, a route — and the node then fails to start (seen in
// CI: "bind: address already in use" for a monitor port).
func FreePort(t testing.TB) int {
	lo := ephemeralLow()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		p := portFloor + rand.IntN(lo-portFloor)
		if portsGiven[p] {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		l.Close()
		portsGiven[p] = true
		return p
	}
	t.Fatalf("natscluster: no free port in %d-%d", portFloor, lo)
	return 0
}

const portFloor = 20000

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil {
				lo = v
			}
		}
	}
	if lo <= portFloor+1000 {
		lo = portFloor + 10000 // an unusual range: pick above the floor anyway
	}
	return lo
}

func waitTCP(addr string, within time.Duration, exited <-chan struct{}) error {
	deadline := time.Now().Add(within)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("exited before listening")
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening on %s within %v", addr, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Place moves a stream onto the nodes carrying every tag and waits until
// its leader and all its replicas are such nodes and current.
func (c *Cluster) Place(ctx context.Context, js jetstream.JetStream, stream string, tags ...string) error {
	return c.PlaceReplicas(ctx, js, stream, 0, tags...)
}

// errReconfigureInProgress is the server's JSStreamReconfigureInProgressErr:
// an earlier update of the stream (a scale, or a worker's own
// CreateOrUpdate at start) is still being carried out.
const errReconfigureInProgress jetstream.ErrorCode = 10226

// updateStream updates a stream, waiting out an update still in progress
// until ctx ends.
func updateStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) error {
	for {
		_, err := js.UpdateStream(ctx, cfg)
		var apiErr *jetstream.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode != errReconfigureInProgress {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// PlaceReplicas is Place that also sets the stream's replica count first
// (0 keeps it): a stream scaled to 1 replica on a node of its own can be
// made unreachable, reads included, by that one node's death.
func (c *Cluster) PlaceReplicas(ctx context.Context, js jetstream.JetStream, stream string, replicas int, tags ...string) error {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return err
	}
	cfg := info.Config
	if replicas > 0 && replicas != cfg.Replicas {
		// A scale and a move in one update are refused; scale first.
		cfg.Replicas = replicas
		if err := updateStream(ctx, js, cfg); err != nil {
			return fmt.Errorf("scale %s to %d: %w", stream, replicas, err)
		}
		if err := c.WaitCurrent(ctx, js, stream); err != nil {
			return err
		}
	}
	cfg.Placement = &jetstream.Placement{Cluster: ClusterName, Tags: tags}
	if err := updateStream(ctx, js, cfg); err != nil {
		return fmt.Errorf("place %s on %v: %w", stream, tags, err)
	}
	tagged := func(name string) bool {
		i := c.Index(name)
		if i < 0 {
			return false
		}
		for _, want := range tags {
			if !contains(c.Nodes[i].Tags, want) {
				return false
			}
		}
		return true
	}
	for {
		info, err := streamInfo(ctx, js, stream)
		if err == nil && info.Cluster != nil && tagged(info.Cluster.Leader) && len(info.Cluster.Replicas) == cfg.Replicas-1 {
			ok := true
			for _, r := range info.Cluster.Replicas {
				ok = ok && tagged(r.Name) && r.Current && !r.Offline
			}
			if ok {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("place %s on %v: not moved: %w", stream, tags, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
