package catchup

import (
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// pending is the number of objects listed at a controller's start that it
// has not looked at yet.
var pending = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "wavekit_catchup_pending",
	Help: "Objects a controller listed when it started (or became its shard's leader) and has not looked at since; 0 once every status is as fresh as the controller's first look.",
}, []string{"controller"})

func init() {
	metrics.Registry.MustRegister(pending)
}

// Tracker follows one controller's catch-up after its start.
type Tracker struct {
	controller string
	log        logr.Logger
	now        func() time.Time

	mu      sync.Mutex
	started time.Time
	// seen are the keys looked at since the start, until Expect.
	seen map[types.NamespacedName]bool
	// waiting are the expected keys not seen yet; nil before Expect.
	waiting map[types.NamespacedName]bool
	listed  int
	done    chan struct{}
}

// New returns the Tracker of the controller named controller, which logs
// its catch-up to log.
func New(controller string, log logr.Logger) *Tracker {
	return &Tracker{controller: controller, log: log, now: time.Now, started: time.Now(),
		seen: map[types.NamespacedName]bool{}, done: make(chan struct{})}
}

// Start marks the start of the catch-up, for the duration logged: the
// moment the controller starts working (its leader election won). Looks
// before it count: a controller looks at nothing while it does not lead.
func (t *Tracker) Start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.started = t.now()
}

// Expect gives the keys the controller found at its start; those seen
// since Start need no other look. Only the first call counts.
func (t *Tracker) Expect(keys []types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waiting != nil || t.finished() {
		return
	}
	t.waiting = make(map[types.NamespacedName]bool, len(keys))
	for _, key := range keys {
		if !t.seen[key] {
			t.waiting[key] = true
		}
	}
	t.seen, t.listed = nil, len(keys)
	t.settle()
}

// Seen records that the controller looked at key (a reconcile ended,
// whatever its result).
func (t *Tracker) Seen(key types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.finished():
	case t.waiting == nil:
		t.seen[key] = true
	case t.waiting[key]:
		delete(t.waiting, key)
		t.settle()
	}
}

// Done is closed once every expected key was seen.
func (t *Tracker) Done() <-chan struct{} { return t.done }

// Pending is the number of expected keys not seen yet (0 before Expect).
func (t *Tracker) Pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.waiting)
}

// settle publishes the number waiting and, once none is, closes done and
// says so.
func (t *Tracker) settle() {
	pending.WithLabelValues(t.controller).Set(float64(len(t.waiting)))
	if len(t.waiting) > 0 {
		return
	}
	took := t.now().Sub(t.started)
	t.log.Info("caught up: looked at every object found at the start", "controller", t.controller, "after", took.Round(time.Millisecond).String(), "listed", t.listed)
	t.waiting = map[types.NamespacedName]bool{}
	close(t.done)
}

func (t *Tracker) finished() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}
