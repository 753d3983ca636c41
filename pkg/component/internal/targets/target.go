package targets

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// Target is one cluster and identity that components write to: its
// connection (client and label-filtered cache, shared with the process's
// other Reconcilers: package connections) and the applier of this
// Reconciler, which remembers what it wrote. Until ready is closed it is
// connecting; then either err is set or the embedded CachedTarget and
// Applier are.
type Target struct {
	*engine.CachedTarget
	Applier *engine.Applier
	cancel  context.CancelFunc
	users   map[types.NamespacedName]bool
	Host    string
	since   time.Time // when it started connecting
	ready   chan struct{}
	err     error
	Objects *ObjectWatches // of the objects its components wait for

	watchMu sync.Mutex
	watched map[string]toolscache.ResourceEventHandlerRegistration // kinds with an event handler
	// informers hold the handlers of watched, to be removed when the target
	// stops: the informers are shared, and outlive this Reconciler.
	informers map[string]cache.Informer
	losers    map[types.UID]string // owner label value an object was taken over from
	// Registering is held while a kind's event handler is added, so that
	// concurrent reconciles add one handler a kind, not one each.
	Registering sync.Mutex
}

// IsWatched tells whether kind has this target's event handler.
func (t *Target) IsWatched(kind string) bool {
	t.watchMu.Lock()
	defer t.watchMu.Unlock()
	_, ok := t.watched[kind]
	return ok
}

// MarkWatched records the event handler of kind, registered on informer.
func (t *Target) MarkWatched(kind string, informer cache.Informer, registration toolscache.ResourceEventHandlerRegistration) {
	t.watchMu.Lock()
	defer t.watchMu.Unlock()
	t.watched[kind], t.informers[kind] = registration, informer
}

// stop stops the target: its handlers leave the shared informers, whose
// connection it gives back.
func (t *Target) stop() {
	t.watchMu.Lock()
	defer t.watchMu.Unlock()
	for kind, registration := range t.watched {
		_ = t.informers[kind].RemoveEventHandler(registration)
	}
	clear(t.watched)
	t.cancel()
}

// RememberLoser records the owner an object was taken from.
func (t *Target) RememberLoser(uid types.UID, ownerID string) {
	t.watchMu.Lock()
	defer t.watchMu.Unlock()
	if t.losers == nil {
		t.losers = map[types.UID]string{}
	}
	t.losers[uid] = ownerID
}

// ForgetLoser returns and forgets the owner an object was taken from.
func (t *Target) ForgetLoser(uid types.UID) string {
	t.watchMu.Lock()
	defer t.watchMu.Unlock()
	ownerID := t.losers[uid]
	delete(t.losers, uid)
	return ownerID
}
