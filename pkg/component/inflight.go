package component

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// stuckGrace is how long a reconcile may outlive its timeout (the context
// deadline ends its requests) before the operator counts as not ready.
const stuckGrace = 10 * time.Second

// inflight records when each running reconcile started.
type inflight struct {
	mu      sync.Mutex
	next    uint64
	started map[uint64]time.Time
}

func newInflight() *inflight { return &inflight{started: map[uint64]time.Time{}} }

func (f *inflight) begin() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	f.started[f.next] = time.Now()
	return f.next
}

func (f *inflight) end(id uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.started, id)
}

// longest returns how long the oldest running reconcile has been running.
func (f *inflight) longest() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var longest time.Duration
	for _, at := range f.started {
		longest = max(longest, time.Since(at))
	}
	return longest
}

// tracked records the reconciles of r in f.
type tracked struct {
	r reconcile.Reconciler
	f *inflight
}

func (t tracked) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	id := t.f.begin()
	defer t.f.end(id)
	return t.r.Reconcile(ctx, req)
}

// ReadyzCheck is a readiness check (manager.AddReadyzCheck) that fails while
// a reconcile has been running longer than ReconcilerOptions.ReconcileTimeout
// allows: a worker is stuck.
func (r *Reconciler[T]) ReadyzCheck(_ *http.Request) error {
	bound := r.opts.ReconcileTimeout + stuckGrace
	if longest := r.inflight.longest(); longest > bound {
		return fmt.Errorf("a reconcile of %s has been running for %s, longer than %s", r.name, longest.Round(time.Second), bound)
	}
	return nil
}
