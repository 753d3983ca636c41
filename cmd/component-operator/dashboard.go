package main

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/dashboard"
)

// authCacheTTL is how long the status page keeps a TokenReview's and a
// SubjectAccessReview's answer.
const authCacheTTL = time.Minute

// addDashboard serves the read-only status page on addr while the manager
// runs, from the manager's cache; "" leaves it off.
func addDashboard(mgr ctrl.Manager, addr string) error {
	if addr == "" {
		return nil
	}
	clientset, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("--web-bind-address: %w", err)
	}
	page, err := dashboard.New(context.Background(), mgr.GetCache(), mgr.GetRESTMapper(), dashboard.Options{
		Kinds:  []schema.GroupVersionKind{v1alpha1.GroupVersion.WithKind("Component")},
		Scheme: mgr.GetScheme(),
		Auth:   dashboard.NewKubernetesAuth(clientset, authCacheTTL),
		Log:    mgr.GetLogger().WithName("dashboard"),
	})
	if err != nil {
		return err
	}
	return mgr.Add(dashboard.Server(addr, page))
}
