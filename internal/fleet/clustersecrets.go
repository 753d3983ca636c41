package fleet

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/wavekit-dev/wavekit/pkg/rewatch"
)

// newClusterSecrets is a cache of the metadata of the Secrets labelled
// label=true (the registered clusters), in namespaces (all when empty),
// run by mgr. The manager's own cache would hold every Secret's metadata
// for the watch of a few: the kept renders, the Secrets the Components
// apply, service account tokens — with shards, every shard all of them.
// Cluster API's kubeconfig Secrets, which carry no label of ours, are
// still watched through the manager's cache.
func newClusterSecrets(mgr ctrl.Manager, label string, namespaces []string) (cache.Cache, error) {
	registered, err := labels.NewRequirement(label, selection.Equals, []string{"true"})
	if err != nil {
		return nil, fmt.Errorf("the cluster label %s: %w", label, err)
	}
	opts := cache.Options{
		HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
		DefaultLabelSelector: labels.NewSelector().Add(*registered),
		DefaultTransform:     cache.TransformStripManagedFields(),
	}
	if len(namespaces) > 0 {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	secrets, err := cache.New(mgr.GetConfig(), rewatch.CacheOptions(mgr.GetConfig(), mgr.GetScheme(), opts))
	if err != nil {
		return nil, fmt.Errorf("the cache of cluster Secrets: %w", err)
	}
	if err := mgr.Add(secrets); err != nil {
		return nil, err
	}
	return secrets, nil
}

// secretMetadata is the metadata-only object of a Secret.
func secretMetadata() *metav1.PartialObjectMetadata {
	s := &metav1.PartialObjectMetadata{}
	s.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	return s
}
