package robustness_test

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/faultproxy"
	"github.com/wavekit-dev/wavekit/internal/testing/history"
	"github.com/wavekit-dev/wavekit/internal/testing/invariants"
	"github.com/wavekit-dev/wavekit/internal/testing/operatortest"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// run is one soak: an operator (its replicas, under one operator name),
// the namespace of its Components on every cluster, what it records, and
// the generator's model.
type run struct {
	ns, operator string
	seed         int64
	model        *model
	hist         *history.History
	proxy        *faultproxy.Proxy
	replicas     []*replica
	logDir       string
	stats        *stats
	spans        *spanSink

	mu  sync.Mutex
	own map[string]bool // the test's own writes (invariants.OwnKey)
	// violations are those the operations saw, until the next check.
	violations []invariants.Violation
	// foreign are the objects of others the test made.
	foreign map[string]bool
	// tornDown: the teardown deleted every Component, the probes too.
	tornDown bool
}

// runOptions say which operator binary a run uses and with what environment.
type runOptions struct {
	ns, operator string
	binary       string
	environ      []string
	seed         int64
	// replicasPerShard are the replicas of each of the shards a and b.
	replicasPerShard int
	// sources are the source kinds the generator makes Components of;
	// faults says whether it injects faults.
	sources []string
	faults  bool
}

// startRun sets up the namespace, the operator's RBAC and replicas, the
// recorders and the ComponentSet of a run; everything stops with the spec.
func startRun(opts runOptions) *run {
	GinkgoHelper()
	r := &run{ns: opts.ns, operator: opts.operator, seed: opts.seed, model: newModel(opts.seed, len(members), opts.sources, opts.faults),
		hist: &history.History{}, logDir: GinkgoT().TempDir(), stats: newStats(), own: map[string]bool{}, foreign: map[string]bool{}}
	recordCtx, stopRecording := context.WithCancel(ctx)
	DeferCleanup(stopRecording)
	r.createNamespaces()
	r.record(recordCtx)
	cfg := r.operatorIdentity()
	proxy, err := faultproxy.Start(strings.TrimPrefix(hostOf(cfg), "https://"))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(proxy.Close)
	r.proxy = proxy
	r.spans = startSpanSink()
	DeferCleanup(r.spans.server.Close)
	proxied := rest.CopyConfig(cfg)
	proxied.Host = "https://" + proxy.Addr()
	r.startReplicas(opts.binary, proxied, opts.environ, opts.replicasPerShard)
	r.createSet()
	r.createProbes()
	return r
}

func hostOf(cfg *rest.Config) string {
	u, err := url.Parse(cfg.Host)
	Expect(err).NotTo(HaveOccurred())
	return u.Host
}

// createNamespaces makes the run's namespace on every cluster, the admin
// credentials of PostgreSQL and the member clusters' Secrets in it.
func (r *run) createNamespaces() {
	GinkgoHelper()
	for _, c := range append([]*testcluster.Env{hub}, members...) {
		Expect(c.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.ns}})).To(Succeed())
	}
	Expect(hub.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: "postgres-admin"},
		Data: pg.AdminCredentials()})).To(Succeed())
	for i, m := range members {
		secret, err := m.KubeconfigSecret(r.ns, memberName(i), map[string]string{manifests.Key(r.operator, "cluster"): "true"})
		Expect(err).NotTo(HaveOccurred())
		Expect(hub.Client.Create(ctx, secret)).To(Succeed())
	}
}

// recorded are the kinds the recorder watches on the hub, and on members.
var (
	hubKinds = map[string]schema.GroupVersionResource{
		"Component":    v1alpha1.GroupVersion.WithResource("components"),
		"ComponentSet": v1alpha1.GroupVersion.WithResource("componentsets"),
		"ConfigMap":    {Version: "v1", Resource: "configmaps"},
		"Secret":       {Version: "v1", Resource: "secrets"},
		"Deployment":   {Group: "apps", Version: "v1", Resource: "deployments"},
		"Job":          {Group: "batch", Version: "v1", Resource: "jobs"},
		"Event":        {Group: "events.k8s.io", Version: "v1", Resource: "events"},
	}
	memberKinds = map[string]schema.GroupVersionResource{
		"ConfigMap": {Version: "v1", Resource: "configmaps"},
		"Secret":    {Version: "v1", Resource: "secrets"},
	}
)

// record starts the recorders of the run's namespace on every cluster.
func (r *run) record(ctx context.Context) {
	GinkgoHelper()
	start := func(cluster string, cfg *rest.Config, kinds map[string]schema.GroupVersionResource) {
		for kind, resource := range kinds {
			Expect(history.Record(ctx, r.hist, history.Source{Cluster: cluster, Config: cfg, Kind: kind, Resource: resource,
				Namespace: r.ns})).To(Succeed())
		}
	}
	start("hub", hub.Config, hubKinds)
	for i, m := range members {
		start(memberName(i), m.Config, memberKinds)
	}
}

// operatorIdentity creates the chart's RBAC for the run's operator, with
// the rules its sources need, and returns its ServiceAccount's config.
func (r *run) operatorIdentity() *rest.Config {
	GinkgoHelper()
	verbs := []any{"get", "list", "watch", "create", "update", "patch", "delete"}
	release := strings.Split(r.operator, ".")[0]
	values := map[string]any{"operatorName": r.operator, "leaderElection": true, "leaderElectionNamespace": operatorNamespace,
		"shards": []any{"a", "b"}, "replicas": 2, "rbac": map[string]any{"extraRules": []any{
			map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps", "secrets"}, "verbs": verbs},
			map[string]any{"apiGroups": []any{"apps"}, "resources": []any{"deployments"}, "verbs": verbs},
			map[string]any{"apiGroups": []any{"batch"}, "resources": []any{"jobs"}, "verbs": verbs},
			map[string]any{"apiGroups": []any{"apiextensions.k8s.io"}, "resources": []any{"customresourcedefinitions"}, "verbs": verbs},
			map[string]any{"apiGroups": []any{crdGroup}, "resources": []any{"*"}, "verbs": []any{"get", "list", "watch"}},
		}}}
	Expect(operatortest.ApplyRBAC(ctx, hub.Client, testcluster.ModuleRoot(), release, operatorNamespace, values)).To(Succeed())
	cfg, err := operatortest.ServiceAccountConfig(ctx, hub.Client, hub.Config, operatorNamespace, release+"-component-operator")
	Expect(err).NotTo(HaveOccurred())
	return cfg
}

// createSet makes the run's ComponentSet: the waves templates on every
// member cluster the set selects (none at first).
func (r *run) createSet() {
	GinkgoHelper()
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: "fleet"}}
	set.Spec.Template.Labels = map[string]string{manifests.Key(r.operator, "shard"): "a"}
	set.Spec.Template.Spec = v1alpha1.ComponentSpec{Source: sourceWaves,
		Values: jsonValues(map[string]any{"op": r.operator, "deployment": false, "count": 2, "password": "fleet-password-" + r.ns})}
	set.Spec.Placement = &v1alpha1.Placement{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"soak": "in"}}}
	Expect(hub.Client.Create(ctx, set)).To(Succeed())
}

func objectMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name}
}

// note records what the test did in the trace.
func (r *run) note(format string, args ...any) {
	r.hist.Note(fmt.Sprintf(format, args...))
}

// ownWrite records a write of the test's own.
func (r *run) ownWrite(cluster, kind string, obj metav1.Object) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := cluster + "/" + kind + "/" + obj.GetNamespace() + "/" + obj.GetName()
	r.own[invariants.OwnKey(key, history.ParseRV(obj.GetResourceVersion()))] = true
}

// violate records a violation an operation saw.
func (r *run) violate(v invariants.Violation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v.At = time.Now()
	r.violations = append(r.violations, v)
}

// takeViolations returns the violations the operations saw since the last
// call.
func (r *run) takeViolations() []invariants.Violation {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.violations
	r.violations = nil
	return out
}

// facts are what the checker knows of the run now.
func (r *run) facts() invariants.Facts {
	r.mu.Lock()
	defer r.mu.Unlock()
	own := make(map[string]bool, len(r.own))
	for k := range r.own {
		own[k] = true
	}
	foreign := make(map[string]bool, len(r.foreign))
	for k := range r.foreign {
		foreign[k] = true
	}
	return invariants.Facts{Operator: r.operator, ComponentCluster: "hub", Own: own, Foreign: foreign, Gaps: r.hist.Gaps()}
}

// logPath is the log file of a replica.
func (r *run) logPath(name string) string { return filepath.Join(r.logDir, name+".log") }
