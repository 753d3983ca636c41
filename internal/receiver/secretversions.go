package receiver

import (
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/wavekit-dev/wavekit/pkg/rewatch"
)

// The status controller learns that a Receiver's Secret changed from a
// watch of the metadata of every Secret of the watched namespaces: a
// Receiver may name any Secret, with any labels. That cache is its own and
// keeps of each Secret its name, namespace, UID and resourceVersion only,
// not its labels, annotations and owners: with the kept renders and the
// Secrets the Components apply, a cluster holds thousands.

// newSecretVersions makes and starts with mgr the cache of the Secrets of
// namespaces (all when nil), each reduced to what tells that it changed.
func newSecretVersions(mgr ctrl.Manager, namespaces map[string]cache.Config) (cache.Cache, error) {
	opts := cache.Options{
		HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
		DefaultTransform: versionOnly,
		// A copy: the cache writes its defaults into the map.
		DefaultNamespaces: maps.Clone(namespaces),
	}
	secrets, err := cache.New(mgr.GetConfig(), rewatch.CacheOptions(mgr.GetConfig(), mgr.GetScheme(), opts))
	if err != nil {
		return nil, fmt.Errorf("the cache of the Secrets' versions: %w", err)
	}
	if err := mgr.Add(secrets); err != nil {
		return nil, err
	}
	return secrets, nil
}

// versionOnly keeps of an object's metadata its name, namespace, UID and
// resourceVersion.
func versionOnly(in any) (any, error) {
	m, ok := in.(*metav1.PartialObjectMetadata)
	if !ok {
		return in, nil
	}
	return &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion}}, nil
}

// secretMetadata is the metadata-only object of a Secret.
func secretMetadata() *metav1.PartialObjectMetadata {
	s := &metav1.PartialObjectMetadata{}
	s.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	return s
}
