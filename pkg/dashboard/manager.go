package dashboard

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// AuthCacheTTL is how long AddToManager's page keeps the answer of a
// TokenReview or a SubjectAccessReview.
const AuthCacheTTL = time.Minute

// AddToManager serves the page on addr while mgr runs, from mgr's cache
// and scheme, with viewers' tokens checked by TokenReviews and what they
// see decided by SubjectAccessReviews (KubernetesAuth, AuthCacheTTL) unless
// opts.Auth is set; "" leaves it off. The operator's identity needs to
// create tokenreviews and subjectaccessreviews, and to list and watch
// Events.
func AddToManager(mgr manager.Manager, addr string, opts Options) error {
	if addr == "" {
		return nil
	}
	if opts.Auth == nil {
		clientset, err := kubernetes.NewForConfig(mgr.GetConfig())
		if err != nil {
			return fmt.Errorf("dashboard: %w", err)
		}
		opts.Auth = NewKubernetesAuth(clientset, AuthCacheTTL)
	}
	if opts.Scheme == nil {
		opts.Scheme = mgr.GetScheme()
	}
	if opts.Log.GetSink() == nil {
		opts.Log = mgr.GetLogger().WithName("dashboard")
	}
	page, err := New(context.Background(), mgr.GetCache(), mgr.GetRESTMapper(), opts)
	if err != nil {
		return err
	}
	return mgr.Add(Server(addr, page))
}
