package dynamic_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/component/dynamic"
)

// Served kinds of one process share their target: one connection, cache
// and watch of each kind of object they apply, where each kind once had
// its own (issue 92: 3.3 MiB and a watch of each kind of object a kind).
var _ = Describe("kinds served by one process", func() {
	ctx := context.Background()

	// serveTwo serves two kinds whose reconcilers differ only in labels,
	// ObjectLabels when shared and DependentLabels when not, on a manager
	// whose requests counter counts; an instance of each becomes Ready.
	serveTwo := func(group string, labels func(kind string) component.ReconcilerOptions) (*apicount.Counter, string) {
		GinkgoHelper()
		counter := apicount.New()
		mgr, err := ctrl.NewManager(counter.Wrap(env.Config), ctrl.Options{Scheme: scheme,
			Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
		Expect(err).NotTo(HaveOccurred())
		componenttest.RunManager(ctx, mgr)
		ns := newNamespace(ctx)
		for _, kind := range []string{"Sprocket", "Cog"} {
			gvk := widgetCRD(ctx, group, kind)
			opts := labels(kind)
			opts.Filter = func(c component.Component) bool { return c.GetNamespace() == ns }
			r := component.NewReconciler[*Widget]("dynamic.wavekit.dev", configMapOf, opts).WithPostReadHook(hook)
			served, err := dynamic.Start(ctx, mgr, gvk, r, dynamic.Options{})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { _ = served.Stop() })
			Expect(env.Client.Create(ctx, instance(gvk, ns, strings.ToLower(kind), kind))).To(Succeed())
			Eventually(readyStatus(ctx, gvk, ns, strings.ToLower(kind))).WithTimeout(30 * time.Second).Should(Equal("True/Ready"))
		}
		return counter, ns
	}

	kindLabel := func(kind string) map[string]string {
		return map[string]string{"dynamic.wavekit.dev/kind": kind}
	}

	It("share one watch of the kinds of object they apply, which carry each kind's ObjectLabels, and read none before creating it", func() {
		counter, ns := serveTwo("shared.dynamic.example.com", func(kind string) component.ReconcilerOptions {
			return component.ReconcilerOptions{ObjectLabels: kindLabel(kind)}
		})
		for _, kind := range []string{"Sprocket", "Cog"} {
			var cm corev1.ConfigMap
			Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: strings.ToLower(kind) + "-widget"}, &cm)).To(Succeed())
			Expect(cm.Labels).To(HaveKeyWithValue("dynamic.wavekit.dev/kind", kind))
		}
		Expect(counter.Count("watch", "configmaps")).To(Equal(1), "one watch of ConfigMaps for both kinds: %s", counter)
		Expect(counter.Count("list", "configmaps")).To(Equal(1), counter.String())
		Expect(counter.Count("get", "configmaps")).To(BeZero(),
			"the shared cache holds every owned ConfigMap, so a new one is applied without a read: %s", counter)
		Expect(counter.Count("watch", "secrets")).To(Equal(1), "one watch of the key of kept renders for both kinds: %s", counter)
		Expect(counter.Count("get", "secrets")).To(Equal(1), "one read of that key for both kinds: %s", counter)
	})

	It("keep targets of their own when their caches select different labels (DependentLabels, as shards do)", func() {
		counter, _ := serveTwo("apart.dynamic.example.com", func(kind string) component.ReconcilerOptions {
			return component.ReconcilerOptions{DependentLabels: kindLabel(kind)}
		})
		Expect(counter.Count("watch", "configmaps")).To(Equal(2), counter.String())
		Expect(counter.Count("get", "configmaps")).To(BeZero(),
			"a cache of some owned objects cannot tell a new object from another's, but the API server refuses an apply that would create over one: %s", counter)
	})
})
