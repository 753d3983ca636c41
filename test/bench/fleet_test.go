package bench_test

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/testcluster"
)

// fleetClusters is how many bare API servers BenchmarkComponentSet10 runs.
const fleetClusters = 10

// BenchmarkComponentSet10 compares, with the component-operator binary, a
// ComponentSet over 10 bare API servers (one wave) with 10 Components, one
// per cluster, created at once: the time until every cluster's Component is
// Ready for the install and for an upgrade (a new value), each from the
// write on the hub until the last Ready at the new generation. The set goes
// first; both go to the same clusters, in namespaces of their own, after
// Components of a third namespace warmed the operator's ten targets up.
func BenchmarkComponentSet10(b *testing.B) {
	hub := env.Get(b)
	targets, err := testcluster.StartClusters(fleetClusters)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		for _, t := range targets {
			_ = t.Stop()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	setNS, componentsNS, warmNS := newNamespace(b, hub, "fleet"), newNamespace(b, hub, "fleetc"), newNamespace(b, hub, "fleetw")
	site := filepath.Join(testcluster.ModuleRoot(), "test", "fleet", "testdata", "site")
	metricsAddr := freeAddress(b)
	op := startOperator(b, ctx, hub, map[string]string{"site": site}, []string{setNS, componentsNS, warmNS},
		"--metrics-bind-address", metricsAddr, "--metrics-secure=false")
	requests := func() map[string]float64 { return clientRequests(b, ctx, metricsAddr) }
	hosts := make([]string, len(targets))
	for i, t := range targets {
		hosts[i] = hostOf(b, t.Config.Host)
	}
	operatorName := setNS + ".wavekit.dev"
	for _, ns := range []string{setNS, componentsNS, warmNS} {
		for i, t := range targets {
			secret, err := t.KubeconfigSecret(ns, fmt.Sprintf("c%02d", i), map[string]string{operatorName + "/cluster": "true"})
			if err != nil {
				b.Fatal(err)
			}
			if err := hub.Client.Create(ctx, secret); err != nil {
				b.Fatal(err)
			}
		}
	}
	// The operator keeps one target per kubeconfig, whichever namespace
	// names it: Components of a namespace of their own make the ten
	// targets first, so that neither measurement pays for them.
	benchComponents(b, ctx, hub.Client, warmNS)
	runs := 0
	for b.Loop() {
		if runs++; runs > 1 { // the set and the Components exist after the first run
			b.Fatal("run it once: -benchtime=1x")
		}
		before := requests()
		setInstall, setUpgrade := benchSet(b, ctx, hub.Client, setNS)
		afterSet := requests()
		compInstall, compUpgrade := benchComponents(b, ctx, hub.Client, componentsNS)
		afterComponents := requests()
		time.Sleep(fleetIdle) // the idle window whose requests are counted
		idle := requests()
		setPerCluster, setMax := perCluster(before, afterSet, hosts)
		compPerCluster, compMax := perCluster(afterSet, afterComponents, hosts)
		b.ReportMetric(setPerCluster, "set-requests-per-cluster")
		b.ReportMetric(setMax, "set-requests-max-cluster")
		b.ReportMetric(compPerCluster, "components-requests-per-cluster")
		b.ReportMetric(compMax, "components-requests-max-cluster")
		b.ReportMetric(total(afterComponents, idle), "idle-requests")
		b.ReportMetric(setInstall.Seconds(), "set-install-s")
		b.ReportMetric(compInstall.Seconds(), "components-install-s")
		b.ReportMetric(setUpgrade.Seconds(), "set-upgrade-s")
		b.ReportMetric(compUpgrade.Seconds(), "components-upgrade-s")
		b.ReportMetric(setInstall.Seconds()/compInstall.Seconds(), "install-ratio")
		b.ReportMetric(setUpgrade.Seconds()/compUpgrade.Seconds(), "upgrade-ratio")
	}
	b.ReportMetric(op.stop(b), "operator-peak-RSS-MiB")
}

// fleetIdle is the window after both measurements whose requests (to the
// hub and the clusters) BenchmarkComponentSet10 counts: none is the goal.
const fleetIdle = 30 * time.Second

// clientRequests reads the operator's rest_client_requests_total (plain
// HTTP, --metrics-secure=false) and sums it by the host the requests went
// to: the operator's own count of what it asked of each API server.
func clientRequests(b *testing.B, ctx context.Context, addr string) map[string]float64 {
	var body strings.Builder
	if err := load(ctx, "http://"+addr+"/metrics", "", &body); err != nil {
		b.Fatal(err)
	}
	byHost := map[string]float64{}
	for _, line := range strings.Split(body.String(), "\n") {
		labels, value, ok := strings.Cut(strings.TrimPrefix(line, "rest_client_requests_total{"), "} ")
		if !ok || !strings.HasPrefix(line, "rest_client_requests_total{") {
			continue
		}
		_, host, _ := strings.Cut(labels, `host="`)
		host, _, _ = strings.Cut(host, `"`)
		var n float64
		if _, err := fmt.Sscan(value, &n); err != nil {
			b.Fatalf("reading %q: %v", line, err)
		}
		byHost[host] += n
	}
	return byHost
}

// hostOf is the host:port of an API server's URL, as client-go labels it.
func hostOf(b *testing.B, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		b.Fatal(err)
	}
	return u.Host
}

// perCluster is the mean and the largest number of requests each of hosts
// got between two counts.
func perCluster(before, after map[string]float64, hosts []string) (mean, most float64) {
	for _, h := range hosts {
		n := after[h] - before[h]
		mean += n / float64(len(hosts))
		most = max(most, n)
	}
	return mean, most
}

// total is how many requests went anywhere between two counts.
func total(before, after map[string]float64) float64 {
	n := 0.0
	for h, v := range after {
		n += v - before[h]
	}
	return n
}

func siteValues(greeting string) *apiextensionsv1.JSON {
	return &apiextensionsv1.JSON{Raw: fmt.Appendf(nil, `{"greeting":%q}`, greeting)}
}

// benchSet times a set's install and upgrade over every cluster Secret of ns.
func benchSet(b *testing.B, ctx context.Context, c client.Client, ns string) (time.Duration, time.Duration) {
	set := &v1alpha1.ComponentSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "site"}, Spec: v1alpha1.ComponentSetSpec{
		Template:  v1alpha1.ComponentTemplate{Spec: v1alpha1.ComponentSpec{Source: "site", Values: siteValues("v1")}},
		Placement: &v1alpha1.Placement{},
	}}
	start := time.Now()
	if err := c.Create(ctx, set); err != nil {
		b.Fatal(err)
	}
	waitComponentsReady(b, ctx, c, ns, fleetClusters)
	install := time.Since(start)
	start = time.Now()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
			return err
		}
		set.Spec.Template.Spec.Values = siteValues("v2")
		return c.Update(ctx, set)
	})
	if err != nil {
		b.Fatal(err)
	}
	waitComponentsReady(b, ctx, c, ns, fleetClusters, "v2")
	return install, time.Since(start)
}

// benchComponents times 10 Components' install and upgrade, each written
// by its own goroutine at once.
func benchComponents(b *testing.B, ctx context.Context, c client.Client, ns string) (time.Duration, time.Duration) {
	write := func(greeting string) {
		var wg sync.WaitGroup
		for i := range fleetClusters {
			wg.Go(func() {
				name := fmt.Sprintf("c%02d", i)
				comp := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "site-" + name}}
				err := c.Get(ctx, client.ObjectKeyFromObject(comp), comp)
				// The values a set gives the cluster's Component.
				values := &apiextensionsv1.JSON{Raw: fmt.Appendf(nil,
					`{"cluster":{"annotations":{},"labels":{},"name":%q},"greeting":%q}`, name, greeting)}
				comp.Spec = v1alpha1.ComponentSpec{Source: "site", Name: "site", Values: values,
					KubeConfig: &v1alpha1.SecretKeyReference{Name: name, Key: "value"}}
				if err == nil {
					err = c.Update(ctx, comp)
				} else {
					err = c.Create(ctx, comp)
				}
				if err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	start := time.Now()
	write("v1")
	waitComponentsReady(b, ctx, c, ns, fleetClusters)
	install := time.Since(start)
	start = time.Now()
	write("v2")
	waitComponentsReady(b, ctx, c, ns, fleetClusters, "v2")
	return install, time.Since(start)
}

// waitComponentsReady polls until n Components of ns are Ready at their
// generation (and, if given, have the greeting value).
func waitComponentsReady(b *testing.B, ctx context.Context, c client.Client, ns string, n int, greeting ...string) {
	for {
		var list v1alpha1.ComponentList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			b.Fatal(err)
		}
		ready := 0
		for _, comp := range list.Items {
			cond := comp.Status.ReadyCondition()
			if cond != nil && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == comp.Generation &&
				(len(greeting) == 0 || strings.Contains(string(comp.Spec.Values.Raw), fmt.Sprintf(`"greeting":%q`, greeting[0]))) {
				ready++
			}
		}
		if ready == n {
			return
		}
		if ctx.Err() != nil {
			b.Fatalf("%d of %d Components of %s Ready: %v", ready, n, ns, ctx.Err())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
