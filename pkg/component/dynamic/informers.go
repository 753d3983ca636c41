package dynamic

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// owned are the manager's informers a served kind asked for through its
// view, and the event handlers it added to them. The informers are shared
// with the rest of the program, so the kind waits for these only (one
// informer of the manager that cannot sync, such as one of a kind whose CRD
// is gone, must not keep a kind from being served), and takes its handlers
// away when it is no longer served: controller-runtime leaves a stopped
// controller's handlers on the informers, where they would go on being
// called, with what they close over, for the life of the program.
type owned struct {
	mu        sync.Mutex
	informers []cache.Informer
	handlers  []registration
}

type registration struct {
	informer cache.Informer
	handle   toolscache.ResourceEventHandlerRegistration
}

// informer is i, as the view hands it out: its handlers are kept.
func (o *owned) informer(i cache.Informer) cache.Informer {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !slices.Contains(o.informers, i) {
		o.informers = append(o.informers, i)
	}
	return ownedInformer{Informer: i, owned: o}
}

func (o *owned) added(i cache.Informer, handle toolscache.ResourceEventHandlerRegistration, err error) (toolscache.ResourceEventHandlerRegistration, error) {
	if err != nil {
		return handle, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.handlers = append(o.handlers, registration{informer: i, handle: handle})
	return handle, nil
}

// synced waits until every informer the kind asked for has synced, or ctx
// ends (false).
func (o *owned) synced(ctx context.Context) bool {
	o.mu.Lock()
	checks := make([]toolscache.InformerSynced, 0, len(o.informers))
	for _, i := range o.informers {
		checks = append(checks, i.HasSynced)
	}
	o.mu.Unlock()
	return toolscache.WaitForCacheSync(ctx.Done(), checks...)
}

// removeHandlers takes the kind's handlers off the manager's informers.
func (o *owned) removeHandlers() error {
	o.mu.Lock()
	handlers := o.handlers
	o.handlers = nil
	o.mu.Unlock()
	var errs []error
	for _, r := range handlers {
		if err := r.informer.RemoveEventHandler(r.handle); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ownedInformer is an informer of the manager whose handlers the served
// kind keeps.
type ownedInformer struct {
	cache.Informer
	owned *owned
}

func (i ownedInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	handle, err := i.Informer.AddEventHandler(h)
	return i.owned.added(i.Informer, handle, err)
}

func (i ownedInformer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, resync time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	handle, err := i.Informer.AddEventHandlerWithResyncPeriod(h, resync)
	return i.owned.added(i.Informer, handle, err)
}

func (i ownedInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, opts toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	handle, err := i.Informer.AddEventHandlerWithOptions(h, opts)
	return i.owned.added(i.Informer, handle, err)
}
