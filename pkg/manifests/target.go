package manifests

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// CachedTarget is a Target whose Live reader is an informer cache that only
// holds objects with the owner label; informers start on demand, one per
// kind. The cache runs until the context given to NewCachedTarget ends.
type CachedTarget struct {
	Target
	// Cache is the label-filtered informer cache (register event handlers on
	// its informers to watch dependents). CRDs are the exception: it holds
	// all of them, so that a render can fingerprint them without a request.
	Cache cache.Cache
	// RenderReader is the reader to give generators (manifests.WithClient):
	// CRDs come from Cache, everything else (Helm's lookup) from the API
	// server, since the cache holds only the owner's objects.
	RenderReader client.Reader
}

// NewCachedTarget connects to a cluster for an operator named operatorName.
func NewCachedTarget(ctx context.Context, cfg *rest.Config, operatorName string, scheme *runtime.Scheme) (*CachedTarget, error) {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating HTTP client for %s: %w", cfg.Host, err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating REST mapper for %s: %w", cfg.Host, err)
	}
	owned, err := labels.NewRequirement(Key(operatorName, LabelOwnerID), selection.Exists, nil)
	if err != nil {
		return nil, fmt.Errorf("owner label selector: %w", err)
	}
	informers, err := cache.New(cfg, cache.Options{
		HTTPClient: httpClient, Scheme: scheme, Mapper: mapper,
		DefaultLabelSelector: labels.NewSelector().Add(*owned),
		ByObject:             map[client.Object]cache.ByObject{crdMetadata(): {Label: labels.Everything()}},
	})
	if err != nil {
		return nil, fmt.Errorf("creating cache for %s: %w", cfg.Host, err)
	}
	c, err := client.New(cfg, client.Options{HTTPClient: httpClient, Scheme: scheme, Mapper: mapper})
	if err != nil {
		return nil, fmt.Errorf("creating client for %s: %w", cfg.Host, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating discovery client for %s: %w", cfg.Host, err)
	}
	go func() { _ = informers.Start(ctx) }()
	if !informers.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("cache for %s did not start", cfg.Host)
	}
	return &CachedTarget{
		Target: Target{Client: c, Live: informers, Discovery: dc}, Cache: informers,
		RenderReader: renderReader{crds: informers, rest: c},
	}, nil
}

func crdMetadata() *metav1.PartialObjectMetadata {
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdGVK.WithKind("CustomResourceDefinition"))
	return crd
}

var crdGVK = schema.GroupVersion{Group: groupAPIExtension, Version: "v1"}

// renderReader reads CRDs from the cache and everything else directly.
type renderReader struct {
	crds client.Reader
	rest client.Reader
}

func (r renderReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return r.pick(obj).Get(ctx, key, obj, opts...)
}

func (r renderReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return r.pick(list).List(ctx, list, opts...)
}

func (r renderReader) pick(obj runtime.Object) client.Reader {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Group == groupAPIExtension && strings.HasPrefix(gvk.Kind, "CustomResourceDefinition") {
		return r.crds
	}
	return r.rest
}
