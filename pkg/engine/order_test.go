package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/wavekit-dev/wavekit/pkg/apirequest"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// createOrder records the resource of every create request (a POST, or a
// server-side apply answered 201 Created), in the order the API server
// received them.
type createOrder struct {
	mu        sync.Mutex
	resources []string
}

func (o *createOrder) wrap(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			created := apirequest.Verb(req) == "create" || (apirequest.Verb(req) == "apply" && resp != nil && resp.StatusCode == http.StatusCreated)
			if created && err == nil && resp.StatusCode < 300 {
				o.mu.Lock()
				o.resources = append(o.resources, apirequest.Resource(req.URL.Path))
				o.mu.Unlock()
			}
			return resp, err
		})
	})
	return out
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

var _ = Describe("order under concurrency", func() {
	It("never starts a stage or a wave before the previous one is written and ready", func() {
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		order := &createOrder{}
		opts := engine.DefaultCachedTargetOptions(prefix)
		opts.Concurrency = 8
		target, err := engine.NewCachedTarget(ctx, order.wrap(env.Config), env.Scheme, opts)
		Expect(err).NotTo(HaveOccurred())
		applier, err := target.NewApplier()
		Expect(err).NotTo(HaveOccurred())

		ns := fmt.Sprintf("order-%d", namespaceCounter.Add(1))
		var objects []any
		for i := range 12 {
			objects = append(objects,
				configMap(ns, fmt.Sprintf("cm-%d", i), nil),
				&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("svc-%d", i)},
					Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
				&corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("later-%d", i),
					Annotations: annotations("apply-order", "1")}},
			)
		}
		objects = append(objects,
			&rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}, ObjectMeta: metav1.ObjectMeta{Name: ns + "-role"}},
			&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns}},
		)
		owner := engine.Owner{ID: manifests.OwnerID("", "Order", ns, "o"), Description: "Order " + ns, Namespace: ns, Generation: 1}
		var inventory []manifests.InventoryItem
		save := func(_ context.Context, items []manifests.InventoryItem) error { inventory = items; return nil }
		Eventually(func() (bool, error) {
			res, err := applier.Apply(ctx, owner, toObjects(objects), inventory, save)
			inventory = res.Inventory
			return res.Done, err
		}).Should(BeTrue())

		Expect(collapse(order.resources)).To(Equal([]string{"namespaces", "clusterroles", "configmaps", "services", "secrets"}))
		Expect(order.resources).To(HaveLen(2 + 3*12))
	})
})

// collapse turns runs of the same resource into one entry: a resource that
// appears twice means two stages interleaved.
func collapse(resources []string) []string {
	var out []string
	for _, r := range resources {
		if len(out) == 0 || out[len(out)-1] != r {
			out = append(out, r)
		}
	}
	return out
}
