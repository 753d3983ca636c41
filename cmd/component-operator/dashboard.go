package main

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/dashboard"
)

// addDashboard serves the read-only status page of the Components on addr
// while the manager runs, from the manager's cache; "" leaves it off.
func addDashboard(mgr ctrl.Manager, addr string) error {
	return dashboard.AddToManager(mgr, addr, dashboard.Options{
		Kinds: []schema.GroupVersionKind{v1alpha1.GroupVersion.WithKind("Component")},
	})
}
