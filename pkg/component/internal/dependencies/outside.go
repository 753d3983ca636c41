package dependencies

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/settings"
	"github.com/wavekit-dev/wavekit/pkg/rewatch"
)

// outsideDependencies keeps, for a shard, what the components outside its
// selector (other shards') depend on, which its own cache does not hold:
// informers of their own, one a selector of outside, that keep of each
// component its name and its dependencies only. The deletion of a
// component then finds its dependents in other shards without a list of
// every other shard's components from the API server, which made deleting
// R components read R lists of them (R² objects with shards; a list of no
// items, but a scan of every component by the API server, without).
type outsideDependencies struct {
	index     *dependentIndex
	informers []cache.Informer
}

// WatchOutside starts the informers of t.outside with mgr, in the
// namespaces the tracker watches (cluster-wide without them) as the lists
// they replace are. Until each has synced, dependentsOf lists.
func (t *Tracker) WatchOutside(mgr ctrl.Manager) error {
	if !t.enabled || !t.sharded || t.outside == nil {
		return nil
	}
	t.others = &outsideDependencies{index: newDependentIndex()}
	for _, selector := range t.outside {
		c, err := cache.New(mgr.GetConfig(), rewatch.CacheOptions(mgr.GetConfig(), mgr.GetScheme(), cache.Options{
			Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(), DefaultNamespaces: namespaceConfigs(t.namespaces),
			DefaultLabelSelector: selector, DefaultTransform: keepDependencies}))
		if err != nil {
			return fmt.Errorf("caching the dependencies of other shards: %w", err)
		}
		informer, err := c.GetInformer(context.Background(), t.newObject(), cache.BlockUntilSynced(false))
		if err != nil {
			return fmt.Errorf("caching the dependencies of other shards: %w", err)
		}
		if _, err := informer.AddEventHandler(t.others.handler()); err != nil {
			return fmt.Errorf("caching the dependencies of other shards: %w", err)
		}
		// Not a cache of the manager's: the manager does not wait for it.
		if err := mgr.Add(manager.RunnableFunc(c.Start)); err != nil {
			return fmt.Errorf("caching the dependencies of other shards: %w", err)
		}
		t.others.informers = append(t.others.informers, informer)
	}
	return nil
}

// synced tells whether every informer has listed what it watches.
func (o *outsideDependencies) synced() bool {
	for _, informer := range o.informers {
		if !informer.HasSynced() {
			return false
		}
	}
	return true
}

// handler keeps the index from the informers' events.
func (o *outsideDependencies) handler() toolscache.ResourceEventHandler {
	set := func(obj any) {
		if r, ok := obj.(*dependencyRecord); ok {
			o.index.set(types.NamespacedName{Namespace: r.Namespace, Name: r.Name}, r.dependsOn)
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    set,
		UpdateFunc: func(_, obj any) { set(obj) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if r, ok := obj.(*dependencyRecord); ok {
				o.index.set(types.NamespacedName{Namespace: r.Namespace, Name: r.Name}, nil)
			}
		},
	}
}

// dependencyRecord is what the informers keep of a component.
type dependencyRecord struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	dependsOn []types.NamespacedName
}

func (r *dependencyRecord) DeepCopyObject() runtime.Object {
	out := *r
	out.ObjectMeta = *r.ObjectMeta.DeepCopy()
	out.dependsOn = append([]types.NamespacedName(nil), r.dependsOn...)
	return &out
}

// keepDependencies is the informers' transform: a component becomes its
// record, its status and the rest of its spec dropped before it is stored.
func keepDependencies(obj any) (any, error) {
	c, ok := obj.(api.Component)
	if !ok {
		return obj, nil
	}
	return &dependencyRecord{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.GetNamespace(), Name: c.GetName(), ResourceVersion: c.GetResourceVersion()},
		dependsOn:  settings.Dependencies(c),
	}, nil
}

// namespaceConfigs is a cache's DefaultNamespaces of namespaces; nil (every
// namespace) when there are none.
func namespaceConfigs(namespaces []string) map[string]cache.Config {
	if len(namespaces) == 0 {
		return nil
	}
	out := make(map[string]cache.Config, len(namespaces))
	for _, ns := range namespaces {
		out[ns] = cache.Config{}
	}
	return out
}
