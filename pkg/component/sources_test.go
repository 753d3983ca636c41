package component_test

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// seenEvents records the events a component handler is given, as
// "verb namespace/name".
type seenEvents struct {
	mu     sync.Mutex
	events []string
}

func (s *seenEvents) add(verb string, obj client.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, verb+" "+obj.GetNamespace()+"/"+obj.GetName())
}

func (s *seenEvents) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.events...)
}

func (s *seenEvents) handler() handler.EventHandler {
	type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, _ queue) { s.add("create", e.Object) },
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, _ queue) { s.add("update", e.ObjectNew) },
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, _ queue) { s.add("delete", e.Object) },
	}
}

var _ = Describe("WithComponentHandler", func() {
	It("is given every event of the components, those that start no reconcile too", func() {
		ctx := context.Background()
		ns := newNamespace(ctx)
		seen := &seenEvents{}
		startOperator(ctx, ns, component.ReconcilerOptions{}, func(r *component.Reconciler[*v1alpha1.Component]) {
			r.WithComponentHandler(seen.handler())
		})
		c := newComponent(ns, "handled", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		// The status writes are updates that start no reconcile.
		eventually(seen.all).Should(ContainElements("create "+ns+"/handled", "update "+ns+"/handled"))

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(seen.all).Should(ContainElement("delete " + ns + "/handled"))
	})
})

var _ = Describe("EnqueueWithin", func() {
	It("gives up on a reconciler that takes no events, once its context ends, where Enqueue would wait for ever", func() {
		// Never set up: nothing takes its events.
		r := component.NewReconciler[*v1alpha1.Component](operator, &valuesGenerator{}, component.ReconcilerOptions{})
		id := types.NamespacedName{Namespace: "any", Name: "c"}
		sent := 0
		for ; sent < 10_000; sent++ {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			taken := r.EnqueueWithin(ctx, id)
			cancel()
			if !taken {
				break
			}
		}
		Expect(sent).To(BeNumerically(">", 0), "the events' buffer takes some")
		Expect(sent).To(BeNumerically("<", 10_000), "then it gave up")
	})
})
