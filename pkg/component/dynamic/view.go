package dynamic

import (
	"sync"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// view is the manager as a reconciler of T sees it while it sets itself
// up: T is the served kind to its scheme, client, API reader and cache,
// controllers need no unique names, and what it adds to the manager is
// kept to be run, and stopped, with the kind.
type view[T component.Component] struct {
	manager.Manager
	scheme *runtime.Scheme // the kind's: T, and what Options.AddToScheme adds
	client viewClient[T]
	cache  viewCache[T]
	api    reader[T]
	owned  *owned

	mu        sync.Mutex
	runnables []manager.Runnable
}

func newView[T component.Component](mgr ctrl.Manager, k kind[T], scheme *runtime.Scheme) *view[T] {
	owned := &owned{}
	return &view[T]{
		Manager: mgr,
		scheme:  scheme,
		client:  viewClient[T]{reader: reader[T]{kind: k, Reader: mgr.GetCache()}, writes: mgr.GetClient(), scheme: scheme},
		cache:   viewCache[T]{reader: reader[T]{kind: k, Reader: mgr.GetCache()}, cache: mgr.GetCache(), owned: owned},
		api:     reader[T]{kind: k, Reader: mgr.GetAPIReader()},
		owned:   owned,
	}
}

func (v *view[T]) GetScheme() *runtime.Scheme           { return v.scheme }
func (v *view[T]) GetClient() client.Client             { return v.client }
func (v *view[T]) GetCache() cache.Cache                { return v.cache }
func (v *view[T]) GetFieldIndexer() client.FieldIndexer { return v.cache }
func (v *view[T]) GetAPIReader() client.Reader          { return v.api }

// ObjectScheme is the manager's scheme, with which the reconciler renders
// and applies objects (its own scheme holds T alone).
func (v *view[T]) ObjectScheme() *runtime.Scheme { return v.Manager.GetScheme() }

// GetControllerOptions lets a controller of the same name as another one
// be made: every served kind's reconciler is named after the operator.
func (v *view[T]) GetControllerOptions() config.Controller {
	opts := v.Manager.GetControllerOptions()
	opts.SkipNameValidation = ptr.To(true)
	return opts
}

// Add keeps r, to run it with the kind.
func (v *view[T]) Add(r manager.Runnable) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.runnables = append(v.runnables, r)
	return nil
}

func (v *view[T]) taken() []manager.Runnable {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := v.runnables
	v.runnables = nil
	return out
}
