package localcloud

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestLoadBalancersAfterARestart: a Service that had an address before the
// cloud started keeps it, and no new Service gets it, whichever is
// reconciled first.
func TestLoadBalancersAfterARestart(t *testing.T) {
	old := loadBalancerService("old")
	old.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "127.0.0.2"}}
	c := fake.NewClientBuilder().WithObjects(old, loadBalancerService("new")).WithStatusSubresource(&corev1.Service{}).Build()
	l := &loadBalancers{client: c, addresses: newAddresses()}
	ctx := context.Background()
	for _, name := range []string{"new", "old"} {
		if _, err := l.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: "shop", Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"old": "127.0.0.2", "new": "127.0.0.3"} {
		var svc corev1.Service
		if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: name}, &svc); err != nil {
			t.Fatal(err)
		}
		if got := svc.Status.LoadBalancer.Ingress; len(got) != 1 || got[0].IP != want {
			t.Errorf("Service %s has ingress %v, want %s", name, got, want)
		}
	}
}

func loadBalancerService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
	}
}
