package manifests

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
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
	// its informers to watch dependents).
	Cache cache.Cache
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
	return &CachedTarget{Target: Target{Client: c, Live: informers, Discovery: dc}, Cache: informers}, nil
}
