package rewatch

import (
	"context"
	"net/http"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// NewInformerFunc is the type of controller-runtime's cache.Options.NewInformer.
type NewInformerFunc = func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer

// Informers returns a cache.Options.NewInformer that makes client-go's
// shared informers with their ListerWatcher wrapped (Wrap), labelled with
// cluster (the Host of the cache's rest.Config) and the resource of their
// objects, which scheme names (nil: only objects that carry their kind).
func Informers(cluster string, scheme *runtime.Scheme) NewInformerFunc {
	return func(lw toolscache.ListerWatcher, example runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
		wrapped := Wrap(lw, example, cluster, resourceOf(example, scheme))
		informer := toolscache.NewSharedIndexInformer(wrapped, example, resync, indexers)
		wrapped.SetStore(informer.GetStore())
		return informer
	}
}

// resourceOf names the resource of example: Kind.group, Kind for the core
// group, or its Go type when neither it nor scheme knows its kind.
func resourceOf(example runtime.Object, scheme *runtime.Scheme) string {
	gvk := example.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" && scheme != nil {
		if found, err := apiutil.GVKForObject(example, scheme); err == nil {
			gvk = found
		}
	}
	switch {
	case gvk.Kind == "":
		return reflect.Indirect(reflect.ValueOf(example)).Type().Name()
	case gvk.Group == "":
		return gvk.Kind
	}
	return gvk.Kind + "." + gvk.Group
}

// ownRequest marks the context of the wrapper's requests.
type ownRequest struct{}

func own(ctx context.Context) context.Context { return context.WithValue(ctx, ownRequest{}, true) }

// Config returns a copy of cfg whose transport hands the wrapper's lists
// and watches a 429 or 503 at once, without the server's Retry-After:
// client-go would sleep that long (up to 30 s, as the server's watch cache
// has been down longer) inside the request, where the wrapper asks again
// within a second. Other requests are left as they are.
func Config(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper { return askAgainSooner{rt} })
	return out
}

type askAgainSooner struct{ rt http.RoundTripper }

// WrappedRoundTripper lets client-go reach the transport under it (to
// cancel a request).
func (a askAgainSooner) WrappedRoundTripper() http.RoundTripper { return a.rt }

func (a askAgainSooner) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.rt.RoundTrip(req)
	if err == nil && req.Context().Value(ownRequest{}) != nil &&
		(resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		resp.Header.Del("Retry-After")
	}
	return resp, err
}

// CacheOptions returns opts, the options of a controller-runtime cache of
// cfg's cluster, with every informer wrapped (Informers), unless opts has
// its own NewInformer. Give the cache (the manager) Config(cfg) too.
func CacheOptions(cfg *rest.Config, scheme *runtime.Scheme, opts cache.Options) cache.Options {
	if opts.NewInformer == nil {
		opts.NewInformer = Informers(cfg.Host, scheme)
	}
	return opts
}
