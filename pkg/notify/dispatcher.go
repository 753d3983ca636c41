package notify

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Defaults of Options.
const (
	DefaultQueueSize         = 1024
	DefaultReceiverQueueSize = 64
	DefaultMaxReceivers      = 1000
	DefaultAttempts          = 5
	DefaultBackoff           = 2 * time.Second
	DefaultTimeout           = 15 * time.Second
	// DefaultDedupWindow is Flux's --rate-limit-interval.
	DefaultDedupWindow = 5 * time.Minute
	DefaultBurst       = 10
	DefaultRefill      = 6 * time.Second
	// maxBackoff bounds the wait between two tries.
	maxBackoff = time.Minute
)

// Options tune a Dispatcher. Zero values take the defaults.
type Options struct {
	// Name is the operator's name, the label of the metrics (default
	// "wavekit").
	Name string
	// QueueSize bounds the events waiting to be routed (default 1024);
	// Send drops an event past it and counts it.
	QueueSize int
	// ReceiverQueueSize bounds the deliveries waiting for one receiver
	// (default 64): a dead or slow receiver holds only its own queue.
	ReceiverQueueSize int
	// MaxReceivers bounds the receivers with a queue at once (default
	// 1000); a receiver's queue goes once it has been idle for a minute.
	MaxReceivers int
	// Attempts is how often a delivery is tried before it is dropped and
	// counted (default 5).
	Attempts int
	// Backoff is the wait before the second try, doubled for each next
	// one up to a minute (default 2s).
	Backoff time.Duration
	// Timeout bounds one try, and one routing (default 15s).
	Timeout time.Duration
	// DedupWindow: an event of the same key (Event.Key) goes to a
	// receiver once within it (default 5m, as Flux).
	DedupWindow time.Duration
	// Burst and Refill are each receiver's token bucket: Burst events at
	// once, then one per Refill (default 10 and 6s, ten a minute); a
	// negative Burst turns the bucket off.
	Burst  int
	Refill time.Duration
	// Clock is the dispatcher's time (default the real one); tests give a
	// fake one.
	Clock clock.Clock
	// Logger logs dropped alerts (default ctrl.Log's "notify").
	Logger *logr.Logger
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "wavekit"
	}
	o.QueueSize = positive(o.QueueSize, DefaultQueueSize)
	o.ReceiverQueueSize = positive(o.ReceiverQueueSize, DefaultReceiverQueueSize)
	o.MaxReceivers = positive(o.MaxReceivers, DefaultMaxReceivers)
	o.Attempts = positive(o.Attempts, DefaultAttempts)
	o.Backoff = positive(o.Backoff, DefaultBackoff)
	o.Timeout = positive(o.Timeout, DefaultTimeout)
	o.DedupWindow = positive(o.DedupWindow, DefaultDedupWindow)
	if o.Burst == 0 {
		o.Burst = DefaultBurst
	}
	o.Burst = max(o.Burst, 0)
	o.Refill = positive(o.Refill, DefaultRefill)
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Logger == nil {
		logger := ctrl.Log.WithName("notify")
		o.Logger = &logger
	}
	return o
}

func positive[N int | time.Duration](v, fallback N) N {
	if v <= 0 {
		return fallback
	}
	return v
}

// Dispatcher is the Sink of an operator: Send queues an event without
// blocking; Start routes each event to its receivers and delivers it, each
// receiver in its own queue, with retries and backoff, deduplication and a
// rate limit. Whatever is not delivered is dropped and counted, never
// waited for: a slow or dead receiver costs the reconciler nothing.
type Dispatcher struct {
	router  Router
	opts    Options
	in      chan Event
	limits  *limiter
	lanes   *lanes
	started atomic.Bool
}

var _ Sink = (*Dispatcher)(nil)

// NewDispatcher returns a dispatcher that routes with router; run it with
// Start (a manager.Runnable: mgr.Add).
func NewDispatcher(router Router, opts Options) *Dispatcher {
	opts = opts.withDefaults()
	d := &Dispatcher{router: router, opts: opts, in: make(chan Event, opts.QueueSize),
		limits: newLimiter(opts.Clock.Now, opts.DedupWindow, opts.Burst, opts.Refill)}
	d.lanes = &lanes{d: d, byKey: map[string]chan delivery{}}
	return d
}

// Send queues e and returns at once; when the queue is full, e is dropped
// and counted (wavekit_alerts_dropped_total, reason queue_full). An event
// without a time is stamped now, one without a severity gets its kind's,
// and a long message is cut to MaxMessageBytes.
func (d *Dispatcher) Send(e Event) {
	e = e.normalized(d.opts.Clock.Now())
	if e.Operator == "" {
		e.Operator = d.opts.Name
	}
	select {
	case d.in <- e:
	default:
		d.dropped(reasonQueueFull, e, "", nil)
	}
}

// Start routes and delivers until ctx ends, then waits for the deliveries
// under way to stop.
func (d *Dispatcher) Start(ctx context.Context) error {
	if d.started.Swap(true) {
		return errors.New("the notify dispatcher was started twice")
	}
	defer d.lanes.wait()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e := <-d.in:
			d.route(ctx, e)
		}
	}
}

// NeedLeaderElection is false: a dispatcher sends what the controllers of
// its process give it, and they run on the leader only.
func (d *Dispatcher) NeedLeaderElection() bool { return false }

// route hands e to each receiver the router names, once per receiver key,
// unless the receiver had it already or its bucket is empty.
func (d *Dispatcher) route(ctx context.Context, e Event) {
	routeCtx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	targets, err := d.router.Route(routeCtx, e)
	cancel()
	if err != nil {
		d.dropped(reasonRouteFailed, e, "", err)
	}
	key := e.Key()
	done := map[string]bool{}
	for _, t := range targets {
		if done[t.Key] {
			continue
		}
		done[t.Key] = true
		if why := d.limits.admit(t.Key, key); why != "" {
			alertsSuppressed.WithLabelValues(d.opts.Name, why).Inc()
			continue
		}
		if why := d.lanes.enqueue(ctx, t.Key, delivery{event: e, notifier: t.Notifier}); why != "" {
			d.dropped(why, e, t.Key, nil)
		}
	}
}

// delivery is one event for one receiver.
type delivery struct {
	event    Event
	notifier Notifier
}

// deliver tries dl until it arrives, it is refused, its tries are spent or
// ctx ends, waiting Backoff (doubling) between two tries.
func (d *Dispatcher) deliver(ctx context.Context, receiver string, dl delivery) {
	wait := d.opts.Backoff
	for try := 1; ; try++ {
		tryCtx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
		err := dl.notifier.Notify(tryCtx, dl.event)
		cancel()
		reason, skipped := SkipReason(err)
		switch {
		case skipped:
			alertsSuppressed.WithLabelValues(d.opts.Name, reason).Inc()
			return
		case err == nil:
			alertsSent.WithLabelValues(d.opts.Name).Inc()
			alertLatency.WithLabelValues(d.opts.Name).Observe(d.opts.Clock.Since(dl.event.Time).Seconds())
			return
		case ctx.Err() != nil:
			return
		case IsPermanent(err):
			d.dropped(reasonRejected, dl.event, receiver, err)
			return
		case try >= d.opts.Attempts:
			d.dropped(reasonRetriesExhausted, dl.event, receiver, err)
			return
		}
		alertRetries.WithLabelValues(d.opts.Name).Inc()
		select {
		case <-ctx.Done():
			return
		case <-d.opts.Clock.After(wait):
		}
		wait = min(2*wait, maxBackoff)
	}
}

// dropped counts an alert that is not sent and logs why: at debug level
// for a full queue, which a flood fills at every alert, else at info.
func (d *Dispatcher) dropped(reason string, e Event, receiver string, err error) {
	alertsDropped.WithLabelValues(d.opts.Name, reason).Inc()
	logger := *d.opts.Logger
	if reason == reasonQueueFull || reason == reasonTooManyReceivers {
		logger = logger.V(1)
	}
	if !logger.Enabled() {
		return
	}
	logger.Info("alert dropped", "reason", reason, "receiver", receiver, "object", e.Object.String(),
		"kind", string(e.Kind), "error", errorText(err))
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
