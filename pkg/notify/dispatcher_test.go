package notify_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// recorder is a receiver that keeps what it gets.
type recorder struct {
	mu     sync.Mutex
	events []notify.Event
}

func (r *recorder) Notify(_ context.Context, e notify.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	return nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// failing is a receiver that is down: every try fails with err.
type failing struct {
	calls atomic.Int64
	err   error
}

func (f *failing) Notify(context.Context, notify.Event) error {
	f.calls.Add(1)
	return f.err
}

// hanging is a receiver that never answers: a try ends only with its context.
type hanging struct{ calls atomic.Int64 }

func (h *hanging) Notify(ctx context.Context, _ notify.Event) error {
	h.calls.Add(1)
	<-ctx.Done()
	return ctx.Err()
}

var dispatchers atomic.Int64

// newName is an operator name of its own for each dispatcher: the metrics
// of one test are apart from the others'.
func newName() string { return fmt.Sprintf("test-%d", dispatchers.Add(1)) }

// run starts d until the spec ends.
func run(d *notify.Dispatcher) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(d.Start(ctx)).To(Succeed())
	}()
	DeferCleanup(func() {
		cancel()
		Eventually(done).WithTimeout(10 * time.Second).Should(BeClosed())
	})
}

func event(i int) notify.Event {
	return notify.Event{Kind: notify.KindFailed, Reason: "Error", Message: fmt.Sprintf("failure %d", i),
		Object: notify.Object{APIVersion: "wavekit.dev/v1alpha1", Kind: "Component", Namespace: "shop", Name: "web"}}
}

func routes(targets ...notify.Target) notify.Router {
	return notify.RouterFunc(func(context.Context, notify.Event) ([]notify.Target, error) { return targets, nil })
}

var _ = Describe("the dispatcher", func() {
	It("takes an event without blocking, and drops and counts it when its queue is full", func() {
		name := newName()
		live := &recorder{}
		d := notify.NewDispatcher(notify.To("live", live), notify.Options{Name: name, QueueSize: 2, Burst: -1})
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			for i := range 5 {
				d.Send(event(i)) // nothing routes yet: the queue fills
			}
		}()
		Eventually(sent).Should(BeClosed(), "Send returned each time")
		Expect(counter("wavekit_alerts_dropped_total", map[string]string{"operator": name, "reason": "queue_full"})).To(Equal(3.0))

		run(d)
		Eventually(live.count).Should(Equal(2))
		Expect(live.events[0].Operator).To(Equal(name), "an event is stamped with the operator's name")
		Expect(live.events[0].Severity).To(Equal(notify.SeverityError))
		Expect(live.events[0].Time).NotTo(BeZero())
	})

	It("retries a receiver that is down with backoff, then drops and counts the alert, while another receiver gets it", func() {
		name := newName()
		dead, live := &failing{err: errors.New("connection refused")}, &recorder{}
		d := notify.NewDispatcher(routes(notify.Target{Key: "dead", Notifier: dead}, notify.Target{Key: "live", Notifier: live}),
			notify.Options{Name: name, Attempts: 3, Backoff: time.Millisecond})
		run(d)
		d.Send(event(1))
		Eventually(live.count).Should(Equal(1))
		Eventually(func() float64 {
			return counter("wavekit_alerts_dropped_total", map[string]string{"operator": name, "reason": "retries_exhausted"})
		}).Should(Equal(1.0))
		Expect(dead.calls.Load()).To(Equal(int64(3)), "three tries")
		Expect(counter("wavekit_alert_retries_total", map[string]string{"operator": name})).To(Equal(2.0))
		Expect(counter("wavekit_alerts_sent_total", map[string]string{"operator": name})).To(Equal(1.0))
	})

	It("does not retry what the receiver refuses", func() {
		name := newName()
		refusing := &failing{err: notify.Permanent(errors.New("404 Not Found"))}
		d := notify.NewDispatcher(notify.To("refusing", refusing), notify.Options{Name: name, Attempts: 5, Backoff: time.Millisecond})
		run(d)
		d.Send(event(1))
		Eventually(func() float64 {
			return counter("wavekit_alerts_dropped_total", map[string]string{"operator": name, "reason": "rejected"})
		}).Should(Equal(1.0))
		Expect(refusing.calls.Load()).To(Equal(int64(1)))
		Expect(counter("wavekit_alert_retries_total", map[string]string{"operator": name})).To(BeZero())
	})

	It("sends an event to a receiver once, however many routes lead there, and a repeated event once per window", func() {
		name := newName()
		live := &recorder{}
		d := notify.NewDispatcher(routes(notify.Target{Key: "team/slack", Notifier: live}, notify.Target{Key: "team/slack", Notifier: live}),
			notify.Options{Name: name})
		run(d)
		for range 10 {
			d.Send(event(1)) // a retrying reconcile that says the same each time
		}
		Eventually(func() float64 {
			return counter("wavekit_alerts_suppressed_total", map[string]string{"operator": name, "reason": "duplicate"})
		}).Should(Equal(9.0))
		Expect(live.count()).To(Equal(1))
	})

	It("sends a flood of distinct failures as a bounded number of messages", func() {
		name := newName()
		live := &recorder{}
		d := notify.NewDispatcher(notify.To("live", live), notify.Options{Name: name, Burst: 5, Refill: time.Hour})
		run(d)
		for i := range 100 {
			d.Send(event(i))
		}
		Eventually(func() float64 {
			return counter("wavekit_alerts_suppressed_total", map[string]string{"operator": name, "reason": "rate_limited"})
		}).Should(Equal(95.0))
		Eventually(live.count).Should(Equal(5))
	})

	It("holds up only the queue of a receiver that hangs, which fills and drops", func() {
		name := newName()
		stuck, live := &hanging{}, &recorder{}
		d := notify.NewDispatcher(routes(notify.Target{Key: "stuck", Notifier: stuck}, notify.Target{Key: "live", Notifier: live}),
			notify.Options{Name: name, ReceiverQueueSize: 2, Timeout: time.Hour, Burst: -1})
		run(d)
		for i := range 6 {
			d.Send(event(i))
			Eventually(live.count).Should(Equal(i+1), "the live receiver gets every event")
		}
		Eventually(func() float64 {
			return counter("wavekit_alerts_dropped_total", map[string]string{"operator": name, "reason": "queue_full"})
		}).Should(Equal(3.0), "one in flight, two queued, three dropped")
		Expect(stuck.calls.Load()).To(Equal(int64(1)))
	})

	It("counts what a receiver skips as suppressed, neither sent nor dropped", func() {
		name := newName()
		skipping := notify.NotifierFunc(func(context.Context, notify.Event) error { return notify.Skipping("not_applicable") })
		d := notify.NewDispatcher(notify.To("github", skipping), notify.Options{Name: name})
		run(d)
		d.Send(event(1))
		Eventually(func() float64 {
			return counter("wavekit_alerts_suppressed_total", map[string]string{"operator": name, "reason": "not_applicable"})
		}).Should(Equal(1.0))
		Expect(counter("wavekit_alerts_sent_total", map[string]string{"operator": name})).To(BeZero())
		Expect(counter("wavekit_alerts_dropped_total", map[string]string{"operator": name})).To(BeZero())
	})

	It("counts an event the router cannot place", func() {
		name := newName()
		d := notify.NewDispatcher(notify.RouterFunc(func(context.Context, notify.Event) ([]notify.Target, error) {
			return nil, errors.New("listing Alerts: forbidden")
		}), notify.Options{Name: name})
		run(d)
		d.Send(event(1))
		Eventually(func() float64 {
			return counter("wavekit_alerts_dropped_total", map[string]string{"operator": name, "reason": "route_failed"})
		}).Should(Equal(1.0))
	})
})
