package engine_test

import (
	"context"
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("deletion", func() {
	var (
		ctx context.Context
		h   *harness
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("deletion")
	})

	It("prunes objects that left the manifests, honouring orphan policies", func() {
		h.applyUntilDone(ctx,
			configMap(ns, "stays", nil),
			configMap(ns, "goes", nil),
			configMap(ns, "orphaned", nil, "delete-policy", "orphan-on-apply"),
		)
		h.applyUntilDone(ctx, configMap(ns, "stays", nil))
		Expect(getConfigMap(ctx, ns, "goes")).To(BeNil())
		orphan := getConfigMap(ctx, ns, "orphaned")
		Expect(orphan).NotTo(BeNil())
		Expect(orphan.Labels).NotTo(HaveKey("test.wavekit.dev/owner-id"))
		Expect(itemKeys(h.inventory)).To(Equal([]string{"ConfigMap " + ns + "/stays"}))
	})

	It("refuses an invalid delete hook as a user error, deleting nothing", func() {
		h.applyUntilDone(ctx, configMap(ns, "stays", nil))
		bad := configMap(ns, "bad-hook", nil, "delete-hook", "pre-delete", "delete-order", "soon")
		res, err := h.applier.Delete(ctx, h.owner, h.inventory, engine.DeleteOptions{Hooks: toObjects([]any{bad}), Save: h.save})
		var userErr *manifests.UserError
		Expect(errors.As(err, &userErr)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("invalid delete hooks")))
		Expect(res.Done).To(BeFalse())
		Expect(getConfigMap(ctx, ns, "stays")).NotTo(BeNil())
	})

	It("says a pass stopped in pruning by name, not as wave 0", func() {
		held := widget(ns, "held", "apply-order", "1")
		held.SetFinalizers([]string{"example.com/hold"})
		h.applyUntilDone(ctx, configMap(ns, "stays", nil, "apply-order", "1"), held)

		res, err := h.apply(ctx, configMap(ns, "stays", nil, "apply-order", "1"))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(res.Wave).To(BeZero(), "Wave keeps its meaning: the apply wave, 0 while pruning")
		Expect(res.Stopped.Step).To(Equal(engine.GroupPrune))
		Expect(res.Stopped.String()).To(HavePrefix("prune in delete wave 0"))

		live := get(ctx, "test.wavekit.dev/v1", "Widget", ns, "held")
		live.SetFinalizers(nil)
		Expect(env.Client.Update(ctx, live)).To(Succeed())
		res = h.applyUntilDone(ctx, configMap(ns, "stays", nil, "apply-order", "1"))
		Expect(res.Stopped).To(Equal(engine.Stop{}))
	})

	It("deletes in delete-order waves and waits for each wave to be gone", func() {
		first := widget(ns, "first", "delete-order", "0")
		first.SetFinalizers([]string{"example.com/hold"})
		h.applyUntilDone(ctx, first, configMap(ns, "later", nil, "delete-order", "1"))

		res, err := h.delete(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(res.Waiting).To(ConsistOf(ContainSubstring("Widget " + ns + "/first: being deleted")))
		Expect(res.Stopped.Step).To(Equal(engine.GroupDelete))
		Expect(res.Stopped.Wave).To(Equal(int16(0)))
		Expect(getConfigMap(ctx, ns, "later")).NotTo(BeNil())

		live := get(ctx, "test.wavekit.dev/v1", "Widget", ns, "first")
		live.SetFinalizers(nil)
		Expect(env.Client.Update(ctx, live)).To(Succeed())
		h.deleteUntilDone(ctx)
		Expect(getConfigMap(ctx, ns, "later")).To(BeNil())
	})

	It("finishes in one pass, with one request per object, what the API server removes at once", func() {
		h.applyUntilDone(ctx, configMap(ns, "a", nil), configMap(ns, "b", nil), configMap(ns, "c", nil, "delete-order", "1"))
		h.waitForCache(ctx) // else an object the cache lags on is confirmed with a read
		h.counter.Reset()
		res, err := h.delete(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeTrue(), "every ConfigMap is gone with its delete request: no pass waits for the cache")
		Expect(res.Inventory).To(BeEmpty())
		Expect(actionsOf(res)).To(Equal([]string{"Deleted ConfigMap " + ns + "/a", "Deleted ConfigMap " + ns + "/b", "Deleted ConfigMap " + ns + "/c"}))
		Expect(h.counter.Snapshot()).To(Equal(map[string]int{"delete configmaps": 3}))
		Expect(getConfigMap(ctx, ns, "c")).To(BeNil())
	})

	It("waits for an object that a finalizer keeps after its delete request", func() {
		held := configMap(ns, "held", nil)
		held.SetFinalizers([]string{"example.com/hold"})
		h.applyUntilDone(ctx, held, configMap(ns, "free", nil))
		res, err := h.delete(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(itemKeys(res.Inventory)).To(Equal([]string{"ConfigMap " + ns + "/held"}))
		Expect(res.Waiting).To(ConsistOf(ContainSubstring("ConfigMap " + ns + "/held: being deleted")))

		live := getConfigMap(ctx, ns, "held")
		live.SetFinalizers(nil)
		Expect(env.Client.Update(ctx, live)).To(Succeed())
		h.deleteUntilDone(ctx)
	})

	It("keeps objects with orphan-on-delete and releases them", func() {
		h.applyUntilDone(ctx, configMap(ns, "kept", nil, "delete-policy", "orphan-on-delete"), configMap(ns, "removed", nil))
		h.deleteUntilDone(ctx)
		Expect(getConfigMap(ctx, ns, "removed")).To(BeNil())
		Expect(getConfigMap(ctx, ns, "kept").Labels).NotTo(HaveKey("test.wavekit.dev/owner-id"))
	})

	It("deletes managed instances first and the CRD last", func() {
		group := ns + ".del.wavekit.dev"
		own := gadget(group, ns, "own")
		own.SetFinalizers([]string{"example.com/hold"}) // holds the first wave until the spec lets it go
		h.applyUntilDone(ctx, gadgetCRD(group), own, configMap(ns, "cm", nil))
		res, err := h.delete(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(res.Waiting).To(ConsistOf(ContainSubstring("Gadget " + ns + "/own: being deleted")))
		crd := get(ctx, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "gadgets."+group)
		Expect(crd).NotTo(BeNil())
		Expect(crd.GetDeletionTimestamp()).To(BeNil(), "the CRD is deleted while an instance is")

		held := get(ctx, group+"/v1", "Gadget", ns, "own")
		held.SetFinalizers(nil)
		Expect(env.Client.Update(ctx, held)).To(Succeed())
		h.deleteUntilDone(ctx)
		Eventually(func() any {
			return get(ctx, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "gadgets."+group)
		}).WithTimeout(20 * time.Second).Should(BeNil())
	})

	It("does not start while foreign instances exist, and completes once they are gone", func() {
		group := ns + ".foreign.wavekit.dev"
		h.applyUntilDone(ctx, gadgetCRD(group), gadget(group, ns, "own"))
		foreign := gadget(group, ns, "foreign")
		Expect(env.Client.Create(ctx, foreign)).To(Succeed())

		res, err := h.delete(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(res.BlockedMessage()).To(Equal("1 foreign instance of Gadget." + group + " exist"))
		Expect(get(ctx, group+"/v1", "Gadget", ns, "own")).NotTo(BeNil())
		Expect(h.inventory).To(HaveLen(2))

		Expect(env.Client.Delete(ctx, foreign)).To(Succeed())
		h.deleteUntilDone(ctx)
		Expect(get(ctx, group+"/v1", "Gadget", ns, "own")).To(BeNil())
	})

	It("counts foreign instances of declared extra types with wildcards", func() {
		suffix := ns + ".extra.wavekit.dev"
		crd := gadgetCRD("x." + suffix)
		Expect(env.Client.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func() { Expect(env.Client.Delete(ctx, crd)).To(Succeed()) })
		h = newHarness(ctx, "extra-"+ns, engine.Options{AdditionalManagedTypes: []manifests.TypeInfo{{Group: "*." + suffix, Kind: "*"}}})
		h.owner.Namespace = ns
		h.applyUntilDone(ctx, configMap(ns, "cm", nil))
		foreign := gadget("x."+suffix, ns, "foreign")
		Eventually(func() error { return env.Client.Create(ctx, foreign) }).WithTimeout(10 * time.Second).Should(Succeed())

		res, err := h.delete(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.BlockedMessage()).To(Equal("1 foreign instance of Gadget.x." + suffix + " exist"))
		Expect(getConfigMap(ctx, ns, "cm")).NotTo(BeNil())
		Expect(env.Client.Delete(ctx, foreign)).To(Succeed())
		h.deleteUntilDone(ctx)
		Expect(getConfigMap(ctx, ns, "cm")).To(BeNil())
	})

	It("never applies delete hooks, and runs them in their delete waves on deletion", func() {
		pre := widget(ns, "pre-delete", "delete-hook", "pre-delete", "delete-order", "-10000", "status-hint", "has-ready-condition")
		post := configMap(ns, "post-delete", nil, "delete-hook", "post-delete", "delete-order", "10000", "delete-policy", "orphan")
		objects := []any{configMap(ns, "cm", nil), pre, post}
		h.applyUntilDone(ctx, objects...)
		Expect(get(ctx, "test.wavekit.dev/v1", "Widget", ns, "pre-delete")).To(BeNil())
		Expect(getConfigMap(ctx, ns, "post-delete")).To(BeNil())
		Expect(itemKeys(h.inventory)).To(Equal([]string{"ConfigMap " + ns + "/cm"}))

		deletePass := func() engine.Result {
			res, err := h.applier.Delete(ctx, h.owner, h.inventory, engine.DeleteOptions{Hooks: toObjects(objects), Save: h.save})
			Expect(err).NotTo(HaveOccurred())
			h.inventory = res.Inventory
			return res
		}
		res := deletePass()
		Expect(res.Done).To(BeFalse())
		Expect(res.Waiting).To(ConsistOf(ContainSubstring("Widget " + ns + "/pre-delete: delete hook")))
		Expect(getConfigMap(ctx, ns, "cm")).NotTo(BeNil(), "objects wait for the pre-delete hook")

		setReady(ctx, pre, true) // plays the hook's controller
		Eventually(func() bool { return deletePass().Done }).WithTimeout(30 * time.Second).Should(BeTrue())
		Expect(h.inventory).To(BeEmpty())
		Expect(getConfigMap(ctx, ns, "cm")).To(BeNil())
		Expect(get(ctx, "test.wavekit.dev/v1", "Widget", ns, "pre-delete")).To(BeNil(), "the pre-delete hook is deleted once done")
		kept := getConfigMap(ctx, ns, "post-delete")
		Expect(kept).NotTo(BeNil(), "the post-delete hook ran and, with delete-policy orphan, stays")
		Expect(kept.Labels).NotTo(HaveKey("test.wavekit.dev/owner-id"))
	})

	It("never deletes or releases an object of another owner that it failed to adopt", func() {
		other := newHarness(ctx, "first-"+ns, optionsDefault())
		other.owner.Namespace = ns
		other.applyUntilDone(ctx, configMap(ns, "shared", map[string]string{"v": "first"}))
		before := getConfigMap(ctx, ns, "shared")

		_, err := h.apply(ctx, configMap(ns, "shared", map[string]string{"v": "second"}))
		Expect(err).To(MatchError(ContainSubstring("already exists and is managed by Component default/first-" + ns)))
		Expect(itemKeys(h.inventory)).To(ContainElement("ConfigMap "+ns+"/shared"), "recorded before the refused create")

		h.deleteUntilDone(ctx)
		after := getConfigMap(ctx, ns, "shared")
		Expect(after).NotTo(BeNil())
		Expect(after.ResourceVersion).To(Equal(before.ResourceVersion))
		Expect(after.Labels).To(HaveKeyWithValue("test.wavekit.dev/owner-id", other.owner.ID))
	})

	It("keeps a CRD dropped from the manifests while foreign instances exist", func() {
		group := ns + ".dropped.wavekit.dev"
		h.applyUntilDone(ctx, gadgetCRD(group), configMap(ns, "cm", nil))
		foreign := gadget(group, ns, "foreign")
		Expect(env.Client.Create(ctx, foreign)).To(Succeed())

		res, err := h.apply(ctx, configMap(ns, "cm", nil))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.BlockedMessage()).To(ContainSubstring("apiextensions.k8s.io/CustomResourceDefinition gadgets." + group + " is kept: 1 foreign instance of Gadget." + group + " exist"))
		Expect(get(ctx, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "gadgets."+group)).NotTo(BeNil())
		Expect(itemKeys(h.inventory)).To(ContainElement("apiextensions.k8s.io/CustomResourceDefinition gadgets." + group))

		Expect(env.Client.Delete(ctx, foreign)).To(Succeed())
		Eventually(func() []string {
			_, err := h.apply(ctx, configMap(ns, "cm", nil))
			Expect(err).NotTo(HaveOccurred())
			return itemKeys(h.inventory)
		}).WithTimeout(20 * time.Second).Should(Equal([]string{"ConfigMap " + ns + "/cm"}))
	})
})
