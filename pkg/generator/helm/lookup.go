package helm

import (
	"context"

	"helm.sh/helm/v3/pkg/engine"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The template function lookup is Helm's own (the engine's), fed by one of
// three sources, in this order:
//
//  1. the context's client.Reader (manifests.ClientFrom): readerProvider below
//     adapts it to the engine's ClientProvider, so lookups read through the
//     operator's informer-backed cache and never hit the API server directly;
//  2. WithRESTConfig: Helm's dynamic client for that config (engine.New);
//  3. neither: Helm's offline lookup, which finds nothing (as `helm template`).
//
// Helm's semantics are kept: a missing object or list gives an empty map,
// a name of "" lists, the namespace is ignored for cluster-scoped kinds (the
// controller-runtime client decides the scope from its RESTMapper), and an
// unknown kind is an error.
type readerProvider struct {
	ctx    context.Context
	reader client.Reader
}

var _ engine.ClientProvider = readerProvider{}

// GetClientFor returns a read-only resource client for apiVersion and kind.
// It reports every kind as namespaced; the reader drops the namespace for
// cluster-scoped kinds.
func (p readerProvider) GetClientFor(apiVersion, kind string) (dynamic.NamespaceableResourceInterface, bool, error) {
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	return &readerResource{provider: p, gvk: gvk}, true, nil
}

// readerResource implements the two calls the engine's lookup makes, Get and
// List. The embedded interface is nil: any other (writing) call panics, and
// the engine turns a panic during rendering into an error.
type readerResource struct {
	dynamic.NamespaceableResourceInterface
	provider  readerProvider
	gvk       schema.GroupVersionKind
	namespace string
}

// Namespace returns the resource client scoped to namespace.
func (r *readerResource) Namespace(namespace string) dynamic.ResourceInterface {
	scoped := *r
	scoped.namespace = namespace
	return &scoped
}

// Get reads one object through the reader.
func (r *readerResource) Get(_ context.Context, name string, _ metav1.GetOptions, _ ...string) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(r.gvk)
	key := client.ObjectKey{Namespace: r.namespace, Name: name}
	if err := r.provider.reader.Get(r.provider.ctx, key, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// List reads all objects of the kind (in the namespace, if one is set).
func (r *readerResource) List(_ context.Context, _ metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(r.gvk.GroupVersion().WithKind(r.gvk.Kind + "List"))
	var opts []client.ListOption
	if r.namespace != "" {
		opts = append(opts, client.InNamespace(r.namespace))
	}
	if err := r.provider.reader.List(r.provider.ctx, list, opts...); err != nil {
		return nil, err
	}
	return list, nil
}
