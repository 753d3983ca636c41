package fleet

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/rewatch"
)

// The Secrets the ComponentSet controller reads come from caches of their
// own, each selected by a label: the registered clusters' (<operator>/
// cluster=true), the set's copies of their kubeconfigs (<operator>/set-copy,
// copies.go) and, when the API server serves Cluster API, its kubeconfig
// Secrets (cluster.x-k8s.io/cluster-name). The manager's cache would hold
// every Secret's metadata for the reads of a few: the kept renders, the
// Secrets the Components apply, service account tokens — with shards,
// every shard all of them.

// secretCaches are those caches; kubeconfigs is nil when the API server
// does not serve Cluster API.
type secretCaches struct {
	registered, copies, kubeconfigs cache.Cache
}

// newSecretCaches makes and starts with mgr the caches of the Secrets of
// namespaces (all when nil); kubeconfigs only when capi is true.
func newSecretCaches(mgr ctrl.Manager, k keys, capi bool, namespaces map[string]cache.Config) (secretCaches, error) {
	var c secretCaches
	var err error
	if c.registered, err = newSecretCache(mgr, k.cluster, selection.Equals, namespaces); err != nil {
		return c, err
	}
	if c.copies, err = newSecretCache(mgr, k.copy, selection.Equals, namespaces); err != nil {
		return c, err
	}
	if capi {
		c.kubeconfigs, err = newSecretCache(mgr, capiClusterNameLabel, selection.Exists, namespaces)
	}
	return c, err
}

// newSecretCache is a cache of the metadata of the Secrets whose label
// key is "true" (selection.Equals) or is set (selection.Exists), in
// namespaces (all when nil), run by mgr.
func newSecretCache(mgr ctrl.Manager, key string, op selection.Operator, namespaces map[string]cache.Config) (cache.Cache, error) {
	var values []string
	if op == selection.Equals {
		values = []string{"true"}
	}
	selected, err := labels.NewRequirement(key, op, values)
	if err != nil {
		return nil, fmt.Errorf("the label %s of a cache of Secrets: %w", key, err)
	}
	opts := cache.Options{
		HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
		DefaultLabelSelector: labels.NewSelector().Add(*selected),
		DefaultTransform:     cache.TransformStripManagedFields(),
		// A copy: the cache writes its defaults into the map.
		DefaultNamespaces: maps.Clone(namespaces),
	}
	secrets, err := cache.New(mgr.GetConfig(), rewatch.CacheOptions(mgr.GetConfig(), mgr.GetScheme(), opts))
	if err != nil {
		return nil, fmt.Errorf("the cache of Secrets labelled %s: %w", key, err)
	}
	if err := mgr.Add(secrets); err != nil {
		return nil, err
	}
	return secrets, nil
}

// cachedSecret reads the metadata of the Secret namespace/name from the
// cache that holds it, if any does; found is false when none does.
func (r *Reconciler) cachedSecret(ctx context.Context, namespace, name string) (*metav1.PartialObjectMetadata, bool, error) {
	for _, reader := range []client.Reader{r.secrets.registered, r.secrets.copies, r.secrets.kubeconfigs} {
		if reader == nil {
			continue
		}
		if m, found, err := r.secretMetadata(ctx, reader, namespace, name); err != nil || found {
			return m, found, err
		}
	}
	return nil, false, nil
}

// secretMetadata is the metadata-only object of a Secret.
func secretMetadata() *metav1.PartialObjectMetadata {
	s := &metav1.PartialObjectMetadata{}
	s.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	return s
}
