package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/live"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/runonce"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/rewatch"
)

// DefaultStartTimeout bounds the requests NewCachedTarget makes before the
// target is usable, when CachedTargetOptions sets no StartTimeout.
const DefaultStartTimeout = 30 * time.Second

// CachedTarget is a Target whose Live reader is an informer cache that only
// holds objects with the owner label; informers start on demand, one per
// kind. The cache runs until the context given to NewCachedTarget ends.
type CachedTarget struct {
	Target
	// Cache is the label-filtered informer cache (register event handlers on
	// its informers to watch dependents). CRDs are the exception: it holds
	// all of them, so that a render can fingerprint them without a request,
	// unless the target's identity may not list CRDs (then none).
	Cache cache.Cache
	// RenderReader is the reader to give generators (manifests.WithClient):
	// CRDs come from Cache, everything else (Helm's lookup) from the API
	// server, since the cache holds only the owner's objects.
	RenderReader client.Reader
	// opts are the appliers' options (CachedTargetOptions.Options).
	opts Options
}

// CachedTargetOptions tune NewCachedTarget: the applier's Options, stated
// once for the cache and the appliers of the target, and the cache's own.
type CachedTargetOptions struct {
	// Options are the options of the target's appliers (NewApplier). The
	// cache holds the objects with the owner label of Options.Name (the
	// operator name, required) and Options.Labels (a shard's label), and
	// keeps the managedFields of the objects whose fields Options.FieldOwner
	// must take over from Options.TakeOver's managers, stripping them from
	// the others (TakeOverTransform); Options.Now is its clock.
	Options
	// Namespaces, if set, limit the informers of namespaced kinds to these
	// namespaces (a tenant's identity may list only there). Objects of other
	// namespaces are read directly and are not watched.
	Namespaces []string
	// StartTimeout bounds the requests made before the target is returned
	// (default DefaultStartTimeout).
	StartTimeout time.Duration
}

// DefaultCachedTargetOptions are the options of a target of the operator
// operatorName with the applier's defaults, cluster-wide informers, and
// DefaultStartTimeout.
func DefaultCachedTargetOptions(operatorName string) CachedTargetOptions {
	return CachedTargetOptions{Options: Options{Name: operatorName}, StartTimeout: DefaultStartTimeout}
}

// NewCachedTarget connects to a cluster for the operator opts.Name: its
// cache holds the objects with that operator's owner label. It checks,
// within opts.StartTimeout, that the API server answers and whether the
// identity may list CRDs; a cluster that does not answer is an error that
// names it.
func NewCachedTarget(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, opts CachedTargetOptions) (*CachedTarget, error) {
	if opts.Name == "" {
		return nil, fmt.Errorf("cached target options: Name (the operator name) is required")
	}
	opts.Options = opts.withDefaults()
	operatorName := opts.Name
	cfg = rewatch.Config(cfg) // informers that outlast the API server's restarts
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating HTTP client for %s: %w", cfg.Host, err)
	}
	dynamicMapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating REST mapper for %s: %w", cfg.Host, err)
	}
	mapper := kinds.Remembered(dynamicMapper)
	c, err := client.New(cfg, client.Options{HTTPClient: httpClient, Scheme: scheme, Mapper: mapper})
	if err != nil {
		return nil, fmt.Errorf("creating client for %s: %w", cfg.Host, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating discovery client for %s: %w", cfg.Host, err)
	}
	crdsReadable, err := checkTarget(ctx, cfg.Host, dc, c, opts.StartTimeout)
	if err != nil {
		return nil, err
	}
	owned, err := labels.NewRequirement(manifests.Key(operatorName, manifests.LabelOwnerID), selection.Exists, nil)
	if err != nil {
		return nil, fmt.Errorf("owner label selector: %w", err)
	}
	selector, err := ownedSelector(*owned, opts.Labels)
	if err != nil {
		return nil, err
	}
	ends := runonce.NewEndStates(operatorName, opts.Now)
	cacheOpts := cache.Options{
		HTTPClient: httpClient, Scheme: scheme, Mapper: mapper,
		DefaultLabelSelector: selector,
		DefaultNamespaces:    namespaceConfigs(opts.Namespaces),
		// managedFields are often the larger half of an object: the cache
		// keeps them only where a write must take fields over first. The
		// transform also notes the last state of each Job and test, which a
		// deletion's event carries (internal/runonce).
		DefaultTransform: ends.Observing(plantedEnds(TakeOverTransform(opts.FieldOwner, opts.TakeOver))),
		NewInformer:      rewatch.Informers(cfg.Host, scheme),
	}
	if crdsReadable {
		cacheOpts.ByObject = map[client.Object]cache.ByObject{crdMetadata(): {Label: labels.Everything()}}
	}
	informers, err := cache.New(cfg, cacheOpts)
	if err != nil {
		return nil, fmt.Errorf("creating cache for %s: %w", cfg.Host, err)
	}
	go func() { _ = informers.Start(ctx) }()
	// Until Start has run, every read fails with ErrCacheNotStarted: the
	// target is not handed out before. No informer exists yet, so this waits
	// for the start alone, not for a list.
	if !informers.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("starting the cache for %s: %w", cfg.Host, context.Cause(ctx))
	}
	var crds client.Reader = noCRDs{}
	if crdsReadable {
		crds = informers
	}
	deleter, err := live.NewDeleter(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	var reader LiveReader = live.NewSynced(informers)
	if len(opts.Namespaces) > 0 {
		reader = live.Scoped{Cache: reader, Direct: c, Namespaces: opts.Namespaces}
	}
	return &CachedTarget{
		Target: Target{Client: c, Live: reader, Discovery: dc, deleter: deleter, ends: ends, probes: live.NewProbes()}, Cache: informers,
		RenderReader: renderReader{crds: crds, rest: c}, opts: opts.Options,
	}, nil
}

// NewApplier returns an applier of the target with the options the target
// was made with.
func (t *CachedTarget) NewApplier() (*Applier, error) {
	return NewApplier(t.Target, t.opts)
}

// ownedSelector selects the objects with the owner label and extra labels.
func ownedSelector(owned labels.Requirement, extra map[string]string) (labels.Selector, error) {
	selector := labels.NewSelector().Add(owned)
	for k, v := range extra {
		req, err := labels.NewRequirement(k, selection.Equals, []string{v})
		if err != nil {
			return nil, fmt.Errorf("cache label %s=%s: %w", k, v, err)
		}
		selector = selector.Add(*req)
	}
	return selector, nil
}

// checkTarget asks the API server for its version, which every identity may
// read, and whether the identity may list CRDs, within timeout. Nothing else
// waits on a target that does not answer.
func checkTarget(ctx context.Context, host string, dc *discovery.DiscoveryClient, c client.Client, timeout time.Duration) (bool, error) {
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := dc.RESTClient().Get().AbsPath("/version").Do(ctx).Error(); err != nil {
		return false, fmt.Errorf("target cluster %s does not answer within %s: %w", host, timeout, err)
	}
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(kinds.CRDGroupVersion.WithKind("CustomResourceDefinitionList"))
	err := c.List(ctx, list, client.Limit(1))
	switch {
	case apierrors.IsForbidden(err):
		return false, nil // CRDs it cannot read are not its to manage
	case err != nil:
		return false, fmt.Errorf("listing CRDs of target cluster %s: %w", host, err)
	}
	return true, nil
}

func namespaceConfigs(namespaces []string) map[string]cache.Config {
	if len(namespaces) == 0 {
		return nil
	}
	out := map[string]cache.Config{}
	for _, ns := range namespaces {
		out[ns] = cache.Config{}
	}
	return out
}

func crdMetadata() *metav1.PartialObjectMetadata {
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(kinds.CRDGroupVersion.WithKind("CustomResourceDefinition"))
	return crd
}

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
	if gvk.Group == kinds.GroupAPIExtension && strings.HasPrefix(gvk.Kind, "CustomResourceDefinition") {
		return r.crds
	}
	return r.rest
}

// noCRDs is the CRD reader of an identity that may not list CRDs: it sees
// none, without asking.
type noCRDs struct{}

func (noCRDs) Get(_ context.Context, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	return apierrors.NewNotFound(schema.GroupResource{Group: kinds.GroupAPIExtension, Resource: "customresourcedefinitions"}, key.Name)
}

func (noCRDs) List(context.Context, client.ObjectList, ...client.ListOption) error { return nil }
