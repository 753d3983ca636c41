package connections

import (
	"slices"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("the event handlers Reconcilers share on a connection's informer", func() {
	It("register one handler on the informer, tell a late one what it holds, and leave it with the last", func(ctx SpecContext) {
		const operator = "fanout.wavekit.dev"
		target, err := engine.NewCachedTarget(ctx, env.Config, env.Scheme, engine.DefaultCachedTargetOptions(operator))
		Expect(err).NotTo(HaveOccurred())
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "fanout-"}}
		Expect(env.Client.Create(ctx, ns)).To(Succeed())
		owned := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "owned",
			Labels: map[string]string{manifests.Key(operator, manifests.LabelOwnerID): "a"}}}
		Expect(env.Client.Create(ctx, owned)).To(Succeed())
		kind := corev1.SchemeGroupVersion.WithKind("ConfigMap")
		hs := NewHandlers()

		first, second := &heard{}, &heard{}
		removeFirst, err := hs.Add(ctx, target, kind, first)
		Expect(err).NotTo(HaveOccurred())
		Eventually(first.seen).Should(ConsistOf("listed owned"))
		removeSecond, err := hs.Add(ctx, target, kind, second)
		Expect(err).NotTo(HaveOccurred())
		Expect(second.seen()).To(ConsistOf("listed owned"), "a late handler hears what the informer holds, at once")
		Expect(hs.byKey).To(HaveLen(1))
		Expect(hs.byKey[handlersKey{target: target, kind: kind}].size()).To(Equal(2), "one handler on the informer for both")

		update := func(value string) {
			GinkgoHelper()
			Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(owned), owned)).To(Succeed())
			owned.Data = map[string]string{"v": value}
			Expect(env.Client.Update(ctx, owned)).To(Succeed())
		}
		update("1")
		Eventually(first.seen).Should(ContainElement("update owned"))
		Eventually(second.seen).Should(ContainElement("update owned"))

		Expect(removeFirst()).To(Succeed())
		before := len(first.seen())
		Expect(env.Client.Delete(ctx, owned)).To(Succeed())
		Eventually(second.seen).Should(ContainElement("delete owned"))
		Expect(first.seen()).To(HaveLen(before), "a handler removed hears nothing more")

		Expect(removeSecond()).To(Succeed())
		Expect(hs.byKey).To(BeEmpty(), "the last one out took the handler off the informer")
	})
})

// heard records the events a handler was told, as "<what> <name>".
type heard struct {
	mu     sync.Mutex
	events []string
}

func (h *heard) record(what string, obj any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, what+" "+obj.(client.Object).GetName())
}

func (h *heard) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

func (h *heard) OnAdd(obj any, listed bool) {
	if listed {
		h.record("listed", obj)
		return
	}
	h.record("add", obj)
}

func (h *heard) OnUpdate(_, obj any) { h.record("update", obj) }

func (h *heard) OnDelete(obj any) { h.record("delete", obj) }
