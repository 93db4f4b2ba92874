package deploy_test

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/protocol"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// unmarshalStrict decodes YAML as the API server's strict field
// validation does: duplicate keys, unknown fields and keys that differ
// from a field only in case are errors (plain encoding/json would accept
// "filestore" for "fileStore", which Helm and the API server ignore).
func unmarshalStrict(doc []byte, into any) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strictErrs, err := sigsjson.UnmarshalStrict(j, into, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	if len(strictErrs) > 0 {
		return errors.Join(strictErrs...)
	}
	return nil
}

// scaledObject is the part of KEDA's keda.sh/v1alpha1 ScaledObject that
// keda-scaledobject.yaml uses. KEDA's Go types are not a dependency of
// docket (they pull in KEDA's whole operator), so this struct mirrors the
// schema's field names for these fields only; strict decoding then
// rejects a misspelt or unsupported field, as the API server would.
type scaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		ScaleTargetRef struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
		} `json:"scaleTargetRef"`
		PollingInterval *int32 `json:"pollingInterval,omitempty"`
		CooldownPeriod  *int32 `json:"cooldownPeriod,omitempty"`
		MinReplicaCount *int32 `json:"minReplicaCount,omitempty"`
		MaxReplicaCount *int32 `json:"maxReplicaCount,omitempty"`
		Triggers        []struct {
			Type     string            `json:"type"`
			Metadata map[string]string `json:"metadata"`
		} `json:"triggers"`
	} `json:"spec"`
}

// The nats-jetstream scaler's metadata (keda.sh/docs/scalers/nats-jetstream).
var kedaJetStreamKeys = []string{"natsServerMonitoringEndpoint", "account", "stream", "consumer",
	"lagThreshold", "activationLagThreshold", "useHttps"}

// manifests holds every object of deploy/k8s/*.yaml (Helm values aside).
type manifests struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	configMaps  []*corev1.ConfigMap
	secrets     []*corev1.Secret
	pdbs        []*policyv1.PodDisruptionBudget
	scaled      []*scaledObject
}

// decodeManifest decodes one YAML document strictly into the API type its
// apiVersion and kind name; an unknown kind is an error.
func (m *manifests) decodeManifest(where string, doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	var err error
	switch tm.APIVersion + " " + tm.Kind {
	case "apps/v1 Deployment":
		m.deployments, err = decodeInto(doc, m.deployments)
	case "v1 Service":
		m.services, err = decodeInto(doc, m.services)
	case "v1 ConfigMap":
		m.configMaps, err = decodeInto(doc, m.configMaps)
	case "v1 Secret":
		m.secrets, err = decodeInto(doc, m.secrets)
	case "policy/v1 PodDisruptionBudget":
		m.pdbs, err = decodeInto(doc, m.pdbs)
	case "keda.sh/v1alpha1 ScaledObject":
		m.scaled, err = decodeInto(doc, m.scaled)
	default:
		return fmt.Errorf("%s: unexpected object %q %q", where, tm.APIVersion, tm.Kind)
	}
	if err != nil {
		return fmt.Errorf("%s: %s %s: %v", where, tm.APIVersion, tm.Kind, err)
	}
	return nil
}

// decodeInto strictly decodes doc as a new T and appends it to list.
func decodeInto[T any](doc []byte, list []*T) ([]*T, error) {
	o := new(T)
	return append(list, o), unmarshalStrict(doc, o)

}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

func decodeManifests(files map[string]string) (*manifests, error) {
	m := &manifests{}
	var ps problems
	for _, name := range sortedKeys(files) {
		for i, doc := range docSep.Split(files[name], -1) {
			if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(doc, "")) == "" {
				continue
			}
			ps.add(m.decodeManifest(fmt.Sprintf("%s document %d", name, i+1), []byte(doc)))
		}
	}
	return m, ps.err()
}

func (m *manifests) deployment(name string) *appsv1.Deployment {
	for _, d := range m.deployments {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// checkManifests: selectors match their pods, every reference resolves,
// probes ask /readyz on a declared port, env names are docket's, the
// worker's privileges are the documented ones and its grace period
// exceeds DOCKET_GRACE, KEDA watches docket's real stream and consumer.
func checkManifests(m *manifests, known map[string]string, composeCaps []string) error {
	var ps problems
	cms, secrets := map[string]map[string]string{}, map[string]bool{}
	for _, c := range m.configMaps {
		cms[c.Name] = c.Data
		ps.add(checkEnvNames("ConfigMap "+c.Name, sortedKeys(c.Data), known))
	}
	for _, s := range m.secrets {
		secrets[s.Name] = true
		ps.add(checkEnvNames("Secret "+s.Name, sortedKeys(s.StringData), known))
	}
	for _, d := range m.deployments {
		where := "Deployment " + d.Name
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			ps.addf("%s: selector %v does not match its pod labels %v (%v)", where, d.Spec.Selector, d.Spec.Template.Labels, err)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			var names []string
			env := map[string]string{}
			for _, e := range c.Env {
				names = append(names, e.Name)
				env[e.Name] = e.Value
			}
			for _, ef := range c.EnvFrom {
				switch {
				case ef.ConfigMapRef != nil:
					data, ok := cms[ef.ConfigMapRef.Name]
					if !ok {
						ps.addf("%s: envFrom ConfigMap %q is not defined", where, ef.ConfigMapRef.Name)
					}
					for k, v := range data {
						if _, set := env[k]; !set {
							env[k] = v
						}
					}
				case ef.SecretRef != nil && !secrets[ef.SecretRef.Name]:
					ps.addf("%s: envFrom Secret %q is not defined", where, ef.SecretRef.Name)
				}
			}
			ps.add(checkEnvNames(where, names, known))
			ports := map[string]int32{}
			for _, p := range c.Ports {
				ports[p.Name] = p.ContainerPort
			}
			if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
				ps.addf("%s: readiness probe is not GET /readyz", where)
			} else if port, ok := ports[c.ReadinessProbe.HTTPGet.Port.StrVal]; !ok {
				ps.addf("%s: readiness probe port %q is not a declared port", where, c.ReadinessProbe.HTTPGet.Port.String())
			} else if addr := listenAddr(env, c.Args); addr != "" && !strings.HasSuffix(addr, ":"+strconv.Itoa(int(port))) {
				ps.addf("%s: probes port %d but docket listens on %s", where, port, addr)
			}
			if slices.Contains(c.Args, "worker") {
				ps.add(checkWorkerPod(where, d, c, env, known, composeCaps))
			}
		}
	}
	for _, s := range m.services {
		matched := false
		for _, d := range m.deployments {
			if labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
				matched = true
				for _, p := range s.Spec.Ports {
					if !slices.ContainsFunc(d.Spec.Template.Spec.Containers[0].Ports, func(cp corev1.ContainerPort) bool { return cp.Name == p.TargetPort.StrVal }) {
						ps.addf("Service %s: targetPort %q is not a port of %s", s.Name, p.TargetPort.String(), d.Name)
					}
				}
			}
		}
		if !matched {
			ps.addf("Service %s: selector %v matches no Deployment's pods", s.Name, s.Spec.Selector)
		}
	}
	for _, p := range m.pdbs {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil || !slices.ContainsFunc(m.deployments, func(d *appsv1.Deployment) bool { return sel.Matches(labels.Set(d.Spec.Template.Labels)) }) {
			ps.addf("PodDisruptionBudget %s: selector matches no Deployment's pods (%v)", p.Name, err)
		}
	}
	for _, so := range m.scaled {
		ps.add(checkScaledObject(m, so, cms))
	}
	return ps.err()
}

// listenAddr is the address the container's docket listens on for its probes.
func listenAddr(env map[string]string, args []string) string {
	switch {
	case slices.Contains(args, "worker"):
		return env["DOCKET_METRICS_ADDR"]
	case slices.Contains(args, "bridge"):
		return env["DOCKET_BRIDGE_ADDR"]
	}
	return ""
}

func checkWorkerPod(where string, d *appsv1.Deployment, c corev1.Container, env, known map[string]string, composeCaps []string) error {
	var ps problems
	sc := c.SecurityContext
	if sc == nil || sc.Capabilities == nil {
		return fmt.Errorf("%s: worker has no securityContext capabilities", where)
	}
	if sc.Privileged != nil && *sc.Privileged {
		ps.addf("%s: privileged", where)
	}
	var add []string
	for _, cp := range sc.Capabilities.Add {
		add = append(add, string(cp))
	}
	if !slices.Equal(add, composeCaps) || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		ps.addf("%s: capabilities drop %v add %v; want drop ALL and the compose worker's %v", where, sc.Capabilities.Drop, add, composeCaps)
	}
	if sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeLocalhost ||
		sc.SeccompProfile.LocalhostProfile == nil || filepath.Ext(*sc.SeccompProfile.LocalhostProfile) != ".json" {
		ps.addf("%s: seccompProfile is not a Localhost JSON profile (deploy/seccomp-worker.json on the node)", where)
	}
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		ps.addf("%s: allowPrivilegeEscalation=false with CAP_SYS_ADMIN is rejected by the API server", where)
	}
	if sc.AppArmorProfile == nil {
		ps.addf("%s: no appArmorProfile (the runtime default denies mount)", where)
	}
	grace := time.Duration(0)
	if g, err := time.ParseDuration(orDefault(env["DOCKET_GRACE"], known["DOCKET_GRACE"])); err == nil {
		grace = g
	}
	if t := d.Spec.Template.Spec.TerminationGracePeriodSeconds; t == nil || time.Duration(*t)*time.Second <= grace {
		ps.addf("%s: terminationGracePeriodSeconds %v must exceed DOCKET_GRACE %s", where, t, grace)
	}
	if r := env["DOCKET_REPLICAS"]; r != "3" {
		ps.addf("%s: DOCKET_REPLICAS %q, want 3 (a 3-node cluster)", where, r)
	}
	return ps.err()
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func checkScaledObject(m *manifests, so *scaledObject, cms map[string]map[string]string) error {
	var ps problems
	where := "ScaledObject " + so.Name
	ref := so.Spec.ScaleTargetRef
	if ref.Kind != "Deployment" || m.deployment(ref.Name) == nil {
		ps.addf("%s: scaleTargetRef %s %q is not a Deployment here", where, ref.Kind, ref.Name)
	}
	if so.Spec.MinReplicaCount == nil || so.Spec.MaxReplicaCount == nil || *so.Spec.MinReplicaCount > *so.Spec.MaxReplicaCount {
		ps.addf("%s: want minReplicaCount <= maxReplicaCount", where)
	}
	queue := "default"
	for _, data := range cms {
		if q := data["DOCKET_QUEUE"]; q != "" {
			queue = q
		}
	}
	if len(so.Spec.Triggers) == 0 {
		ps.addf("%s: no triggers", where)
	}
	for _, tr := range so.Spec.Triggers {
		if tr.Type != "nats-jetstream" {
			ps.addf("%s: trigger type %q, want nats-jetstream", where, tr.Type)
			continue
		}
		for k := range tr.Metadata {
			if !slices.Contains(kedaJetStreamKeys, k) {
				ps.addf("%s: %q is not a nats-jetstream scaler parameter", where, k)
			}
		}
		if s := tr.Metadata["stream"]; s != protocol.JobsStream {
			ps.addf("%s: stream %q, docket's jobs stream is %q", where, s, protocol.JobsStream)
		}
		if c := tr.Metadata["consumer"]; c != protocol.ConsumerName(queue) {
			ps.addf("%s: consumer %q, docket's workers of queue %q share %q", where, c, queue, protocol.ConsumerName(queue))
		}
		if _, err := strconv.Atoi(tr.Metadata["lagThreshold"]); err != nil {
			ps.addf("%s: lagThreshold %q: %v", where, tr.Metadata["lagThreshold"], err)
		}
		if _, _, err := net.SplitHostPort(tr.Metadata["natsServerMonitoringEndpoint"]); err != nil {
			ps.addf("%s: natsServerMonitoringEndpoint: %v", where, err)
		}
	}
	return ps.err()
}

// natsValues is the part of the official NATS Helm chart's values that
// nats-values.yaml sets (chart nats 1.x, values.yaml). The chart is not
// available offline, so its schema is mirrored for these keys only.
type natsValues struct {
	Config struct {
		Cluster struct {
			Enabled  bool `json:"enabled"`
			Replicas int  `json:"replicas"`
		} `json:"cluster"`
		JetStream struct {
			Enabled   bool `json:"enabled"`
			FileStore struct {
				Enabled bool `json:"enabled"`
				PVC     struct {
					Enabled          bool    `json:"enabled"`
					Size             string  `json:"size"`
					StorageClassName *string `json:"storageClassName,omitempty"`
				} `json:"pvc"`
			} `json:"fileStore"`
			MemoryStore struct {
				Enabled bool `json:"enabled"`
			} `json:"memoryStore"`
		} `json:"jetstream"`
		Monitor struct {
			Enabled bool `json:"enabled"`
			Port    int  `json:"port"`
		} `json:"monitor"`
		Merge map[string]any `json:"merge"`
	} `json:"config"`
	Container struct {
		Image struct {
			Tag string `json:"tag"`
		} `json:"image"`
	} `json:"container"`
	PodTemplate struct {
		TopologySpreadConstraints map[string]corev1.TopologySpreadConstraint `json:"topologySpreadConstraints"`
	} `json:"podTemplate"`
}

func checkNATSValues(b []byte, natsVersion string, m *manifests) error {
	var v natsValues
	if err := unmarshalStrict(b, &v); err != nil {
		return fmt.Errorf("nats-values.yaml: %v", err)
	}
	var ps problems
	c := v.Config
	if !c.Cluster.Enabled || c.Cluster.Replicas != 3 {
		ps.addf("nats-values.yaml: cluster enabled=%v replicas=%d, want a 3-node cluster", c.Cluster.Enabled, c.Cluster.Replicas)
	}
	if !c.JetStream.Enabled || !c.JetStream.FileStore.Enabled || !c.JetStream.FileStore.PVC.Enabled {
		ps.addf("nats-values.yaml: JetStream file storage on a PVC is not enabled")
	}
	if q, err := resource.ParseQuantity(c.JetStream.FileStore.PVC.Size); err != nil || q.Sign() <= 0 {
		ps.addf("nats-values.yaml: pvc size %q: %v", c.JetStream.FileStore.PVC.Size, err)
	}
	if !strings.HasPrefix(v.Container.Image.Tag, natsVersion) {
		ps.addf("nats-values.yaml: image tag %q, docket is tested with nats-server %s", v.Container.Image.Tag, natsVersion)
	}
	for _, so := range m.scaled {
		for _, tr := range so.Spec.Triggers {
			if _, port, _ := net.SplitHostPort(tr.Metadata["natsServerMonitoringEndpoint"]); !c.Monitor.Enabled || port != strconv.Itoa(c.Monitor.Port) {
				ps.addf("nats-values.yaml: monitor enabled=%v port %d, KEDA reads port %s", c.Monitor.Enabled, c.Monitor.Port, port)
			}
		}
	}
	return ps.err()
}

func k8sFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(repoPath("deploy/k8s/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, p := range paths {
		name := filepath.Base(p)
		if name == "nats-values.yaml" {
			continue // Helm values, not a manifest: checked apart
		}
		files[name] = string(readRepo(t, "deploy/k8s/"+name))
	}
	if len(files) < 4 {
		t.Fatalf("only %d manifests under deploy/k8s", len(files))
	}
	return files
}

func composeWorkerCaps(t *testing.T) []string {
	return loadCompose(t).Services["worker"].CapAdd
}

func TestKubernetesManifests(t *testing.T) {
	known := docketEnv(t)
	m, err := decodeManifests(k8sFiles(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"docket-worker", "docket-bridge"} {
		if m.deployment(name) == nil {
			t.Errorf("no Deployment %s", name)
		}
	}
	if len(m.pdbs) == 0 || len(m.scaled) == 0 || len(m.services) == 0 {
		t.Errorf("want a PodDisruptionBudget, a ScaledObject and a Service; got %d, %d, %d", len(m.pdbs), len(m.scaled), len(m.services))
	}
	expectClean(t, "deploy/k8s", checkManifests(m, known, composeWorkerCaps(t)))
	expectClean(t, "deploy/k8s/nats-values.yaml", checkNATSValues(readRepo(t, "deploy/k8s/nats-values.yaml"), natsServerVersion(t), m))
}

func TestKubernetesChecksFail(t *testing.T) {
	known := docketEnv(t)
	files := k8sFiles(t)
	caps := composeWorkerCaps(t)
	broken := func(file, old, new string) (*manifests, error) {
		t.Helper()
		if !strings.Contains(files[file], old) {
			t.Fatalf("%s no longer contains %q: update this test", file, old)
		}
		mod := map[string]string{}
		for k, v := range files {
			mod[k] = v
		}
		mod[file] = strings.Replace(files[file], old, new, 1)
		return decodeManifests(mod)
	}
	check := func(file, old, new string) error {
		t.Helper()
		m, err := broken(file, old, new)
		if err != nil {
			t.Fatalf("%s with %q: %v", file, new, err)
		}
		return checkManifests(m, known, caps)
	}
	if _, err := broken("worker.yaml", "terminationGracePeriodSeconds: 60", "terminationGracePeriodSecs: 60"); err == nil {
		t.Error("a misspelt Deployment field decoded without error")
	}
	// The trigger metadata is a free map in KEDA's schema too, so a
	// misspelt key decodes; checkScaledObject checks the keys (below).
	if _, err := broken("keda-scaledobject.yaml", "cooldownPeriod: 300", "cooldown: 300"); err == nil {
		t.Error("a misspelt ScaledObject field decoded without error")
	}
	if _, err := broken("worker.yaml", "kind: PodDisruptionBudget", "kind: PodDisruptionBudgets"); err == nil {
		t.Error("an unknown kind decoded without error")
	}
	expectProblem(t, "KEDA metadata key", check("keda-scaledobject.yaml", "lagThreshold:", "lagTreshold:"), "lagTreshold")
	expectProblem(t, "wrong consumer", check("keda-scaledobject.yaml", "consumer: workers-default", "consumer: workers"), "consumer")
	expectProblem(t, "wrong stream", check("keda-scaledobject.yaml", "stream: DOCKET_JOBS", "stream: JOBS"), "stream")
	expectProblem(t, "scale target", check("keda-scaledobject.yaml", "name: docket-worker\n  pollingInterval", "name: docket-workers\n  pollingInterval"), "scaleTargetRef")
	expectProblem(t, "short grace", check("worker.yaml", "terminationGracePeriodSeconds: 60", "terminationGracePeriodSeconds: 10"), "terminationGracePeriodSeconds")
	expectProblem(t, "probe path", check("worker.yaml", "path: /readyz", "path: /healthz"), "/readyz")
	expectProblem(t, "caps differ", check("worker.yaml", "add: [SYS_ADMIN, ", "add: ["), "capabilities")
	expectProblem(t, "no seccomp", check("worker.yaml", "type: Localhost", "type: RuntimeDefault"), "seccompProfile")
	expectProblem(t, "unknown env", check("config.yaml", "DOCKET_LOG_LEVEL:", "DOCKET_LOGLEVEL:"), "DOCKET_LOGLEVEL")
	expectProblem(t, "service selector", check("bridge.yaml", "selector: {app.kubernetes.io/name: docket-bridge}", "selector: {app.kubernetes.io/name: bridge}"), "matches no Deployment")
	expectProblem(t, "missing ConfigMap", check("bridge.yaml", "configMapRef: {name: docket-env}", "configMapRef: {name: docket-envs}"), "docket-envs")

	values := string(readRepo(t, "deploy/k8s/nats-values.yaml"))
	m, _ := decodeManifests(files)
	v := natsServerVersion(t)
	expectProblem(t, "one replica", checkNATSValues([]byte(strings.Replace(values, "replicas: 3", "replicas: 1", 1)), v, m), "3-node")
	expectProblem(t, "typo in values", checkNATSValues([]byte(strings.Replace(values, "fileStore:", "filestore:", 1)), v, m), "filestore")
	expectProblem(t, "monitor port", checkNATSValues([]byte(strings.Replace(values, "port: 8222", "port: 8223", 1)), v, m), "KEDA")
}
