package targets

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/connections"
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

	// Handlers are the event handlers on the informers of its connection,
	// shared with the process's other Reconcilers.
	Handlers *connections.Handlers

	watchMu sync.Mutex
	// watched are the kinds with this target's event handler, and what
	// removes it when the target stops: the informers are shared, and
	// outlive this Reconciler.
	watched map[string]func() error
	losers  map[types.UID]string // owner label value an object was taken over from
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

// MarkWatched records that kind has the target's event handler, which
// remove removes.
func (t *Target) MarkWatched(kind string, remove func() error) {
	t.watchMu.Lock()
	defer t.watchMu.Unlock()
	t.watched[kind] = remove
}

// stop stops the target: its handlers leave the shared informers, whose
// connection it gives back.
func (t *Target) stop() {
	t.watchMu.Lock()
	defer t.watchMu.Unlock()
	for _, remove := range t.watched {
		_ = remove()
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
