package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/agent"
	"github.com/wavekit-dev/wavekit/internal/agent/register"
	"github.com/wavekit-dev/wavekit/internal/fleet"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

const (
	// benchClusters pulled clusters, each with its agent in this process
	// at the default Lease duration.
	benchClusters = 3
	// benchIdle is the window whose hub requests are counted.
	benchIdle = 2 * time.Minute
)

// BenchmarkPulledClusters measures, over benchClusters pulled clusters,
// the time from a change of a ComponentSet to the new render on every
// member and to the set's Ready, and the hub requests while nothing
// changes: the agents' (per cluster) and the operator's. Run it once
// (make bench: -benchtime=1x).
func BenchmarkPulledClusters(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	hub, scheme := startBenchHub(b)
	members, err := testcluster.StartClusters(benchClusters)
	must(b, err)
	b.Cleanup(func() {
		for _, m := range members {
			_ = m.Stop()
		}
	})
	operatorRequests := apicount.New()
	startHubOperator(b, ctx, operatorRequests.Wrap(hub.Config), scheme)
	must(b, hub.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}))
	agentRequests := apicount.New()
	for i, m := range members {
		name := fmt.Sprintf("m%d", i)
		ns, err := register.Register(ctx, hub.Client, register.Cluster{Namespace: "bench", Name: name})
		must(b, err)
		credential, err := register.Credential(ctx, hub.Client, hub.Config, ns, time.Hour)
		must(b, err)
		_, err = envtest.InstallCRDs(m.Config, envtest.CRDInstallOptions{Paths: []string{filepath.Join(testcluster.ModuleRoot(), "config", "crd", "bases")}})
		must(b, err)
		m.Client, err = client.New(m.Config, client.Options{Scheme: scheme})
		must(b, err)
		go func() {
			_ = agent.Run(ctx, agent.Options{Hub: agentRequests.Wrap(credential), Namespace: ns, Local: m.Config,
				Operator: operator.Options{Name: "wavekit.dev", Sources: map[string]string{"site": siteSource()}, CacheDir: b.TempDir()}})
		}()
	}
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "web"}, Spec: v1alpha1.ComponentSetSpec{
		Template: v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site", Values: benchValues(b, "v1")}}, Placement: &v1alpha1.Placement{}}}
	must(b, hub.Client.Create(ctx, set))
	waitFor(b, ctx, func() bool { return setReady(ctx, hub.Client, set) })
	for b.Loop() {
		changed := time.Now()
		latest := &v1alpha1.ComponentSet{}
		must(b, hub.Client.Get(ctx, client.ObjectKeyFromObject(set), latest))
		latest.Spec.Template.Spec.Values = benchValues(b, "v2")
		must(b, hub.Client.Update(ctx, latest))
		waitFor(b, ctx, func() bool {
			for _, m := range members {
				var cm corev1.ConfigMap
				if m.Client.Get(ctx, client.ObjectKey{Namespace: "bench", Name: "web-config"}, &cm) != nil || cm.Data["greeting"] != "v2" {
					return false
				}
			}
			return true
		})
		applied := time.Since(changed)
		waitFor(b, ctx, func() bool { return setReady(ctx, hub.Client, set) })
		ready := time.Since(changed)
		operatorRequests.Reset()
		agentRequests.Reset()
		time.Sleep(benchIdle)
		minutes := benchIdle.Minutes()
		b.ReportMetric(applied.Seconds(), "change-to-members-applied-s")
		b.ReportMetric(ready.Seconds(), "change-to-set-ready-s")
		b.ReportMetric(float64(sum(agentRequests.Verbs()))/benchClusters/minutes, "idle-agent-hub-requests/cluster/min")
		b.ReportMetric(float64(sum(operatorRequests.Verbs()))/minutes, "idle-operator-hub-requests/min")
		b.Logf("idle agents' hub requests: %s", agentRequests)
		b.Logf("idle operator's hub requests: %s", operatorRequests)
	}
}

// startHubOperator runs the reference operator's Components and
// ComponentSets on the hub in this process, with cfg.
func startHubOperator(b *testing.B, ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme) {
	b.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	must(b, err)
	_, err = operator.Setup(mgr, operator.Options{Name: "wavekit.dev", Sources: map[string]string{"site": siteSource()}, CacheDir: b.TempDir()})
	must(b, err, fleet.Setup(mgr, "wavekit.dev", nil, nil))
	go func() { _ = mgr.Start(ctx) }()
}

func setReady(ctx context.Context, c client.Client, set *v1alpha1.ComponentSet) bool {
	got := &v1alpha1.ComponentSet{}
	if c.Get(ctx, client.ObjectKeyFromObject(set), got) != nil {
		return false
	}
	for _, cond := range got.Status.Conditions {
		if cond.Type == component.ConditionReady {
			return cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == got.Generation
		}
	}
	return false
}

func waitFor(b *testing.B, ctx context.Context, done func() bool) {
	b.Helper()
	for !done() {
		select {
		case <-ctx.Done():
			b.Fatal("timed out")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func benchValues(b *testing.B, greeting string) *apiextensionsv1.JSON {
	raw, err := json.Marshal(map[string]any{"greeting": greeting})
	must(b, err)
	return &apiextensionsv1.JSON{Raw: raw}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func must(b *testing.B, errs ...error) {
	b.Helper()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}
