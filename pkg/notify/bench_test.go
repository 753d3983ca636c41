package notify_test

import (
	"context"
	"testing"

	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// BenchmarkSend is what a reconcile pays to hand an alert over: Send to a
// dispatcher whose router and receiver take everything (room), and to one
// whose queue is full because nothing routes (a drop, counted).
func BenchmarkSend(b *testing.B) {
	e := event(1)
	b.Run("queue=room", func(b *testing.B) {
		d := notify.NewDispatcher(notify.To("live", notify.NotifierFunc(func(context.Context, notify.Event) error { return nil })),
			notify.Options{Name: "bench-room", QueueSize: 1 << 20, Burst: -1})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = d.Start(ctx) }()
		b.ReportAllocs()
		for b.Loop() {
			d.Send(e)
		}
	})
	b.Run("queue=full", func(b *testing.B) {
		d := notify.NewDispatcher(notify.To("dead", &failing{}), notify.Options{Name: "bench-full", QueueSize: 1})
		d.Send(e) // fills the queue of a dispatcher that is not started
		b.ReportAllocs()
		for b.Loop() {
			d.Send(e)
		}
	})
}
