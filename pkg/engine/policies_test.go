package engine_test

import (
	"context"
	"errors"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("policies", func() {
	var (
		ctx context.Context
		h   *harness
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("policies")
	})

	Describe("reconcile policy", func() {
		It("on-object-change re-applies only when the manifest changed", func() {
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "1"}))
			h.owner.Generation = 2
			h.counter.Reset()
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "1"}))
			Expect(h.counter.Writes()).To(BeZero(), h.counter.String())

			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "2"}))
			Expect(getConfigMap(ctx, ns, "cm").Data).To(HaveKeyWithValue("v", "2"))
			Expect(h.counter.Count("apply", "configmaps")).To(Equal(1))
		})

		It("on-object-or-component-change also re-applies when the component generation changed", func() {
			cm := configMap(ns, "cm", nil, "reconcile-policy", "on-object-or-component-change")
			h.applyUntilDone(ctx, cm)
			h.counter.Reset()
			h.applyUntilDone(ctx, cm)
			Expect(h.counter.Writes()).To(BeZero())
			h.owner.Generation = 2
			h.applyUntilDone(ctx, cm)
			Expect(h.counter.Count("apply", "configmaps")).To(Equal(1))
		})

		It("once creates and never touches again", func() {
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "1"}, "reconcile-policy", "once"))
			h.counter.Reset()
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "2"}, "reconcile-policy", "once"))
			Expect(getConfigMap(ctx, ns, "cm").Data).To(HaveKeyWithValue("v", "1"))
			Expect(h.counter.Writes()).To(BeZero())
		})

		It("a forced pass writes every unchanged object once, but not one created once", func() {
			objects := []any{
				configMap(ns, "a", map[string]string{"v": "1"}), configMap(ns, "b", map[string]string{"v": "1"}),
				configMap(ns, "seed", map[string]string{"v": "1"}, "reconcile-policy", "once"),
			}
			h.applyUntilDone(ctx, objects...)
			h.owner.Force = true
			h.counter.Reset()
			res := h.applyUntilDone(ctx, objects...)
			Expect(res.Changed).To(BeTrue())
			Expect(h.counter.Count("apply", "configmaps")).To(Equal(2), h.counter.String())
			Expect(h.counter.Writes()).To(Equal(2), h.counter.String())
		})
	})

	Describe("update policy", func() {
		It("replace keeps finalizers that others set", func() {
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "1"}, "update-policy", "replace"))
			live := getConfigMap(ctx, ns, "cm")
			live.Finalizers = []string{"example.com/keep"}
			Expect(env.Client.Update(ctx, live)).To(Succeed())

			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "2"}, "update-policy", "replace"))
			live = getConfigMap(ctx, ns, "cm")
			Expect(live.Data).To(HaveKeyWithValue("v", "2"))
			Expect(live.Finalizers).To(ConsistOf("example.com/keep"))
			live.Finalizers = nil
			Expect(env.Client.Update(ctx, live)).To(Succeed())
		})

		It("ssa-merge applies server-side with the operator as field manager", func() {
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"a": "1"}, "update-policy", "ssa-merge"))
			Expect(h.counter.Count("apply", "configmaps")).To(Equal(1))
			live := getConfigMap(ctx, ns, "cm")
			Expect(managers(live.ManagedFields)).To(ContainElement("test.wavekit.dev/Apply"))

			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"b": "2"}, "update-policy", "ssa-merge"))
			Expect(getConfigMap(ctx, ns, "cm").Data).To(Equal(map[string]string{"b": "2"}))
		})

		It("ssa-override takes back fields a kubectl-style manager owns", func() {
			objectWith := func(data map[string]string) *corev1.ConfigMap {
				return configMap(ns, "cm", data, "update-policy", "ssa-override")
			}
			h.applyUntilDone(ctx, objectWith(map[string]string{"a": "1"}))
			live := getConfigMap(ctx, ns, "cm")
			live.Data["edited"] = "by hand"
			Expect(env.Client.Update(ctx, live, client.FieldOwner("kubectl-edit"))).To(Succeed())

			h.applyUntilDone(ctx, objectWith(map[string]string{"a": "2"}))
			live = getConfigMap(ctx, ns, "cm")
			Expect(live.Data).To(Equal(map[string]string{"a": "2"}))
			Expect(managers(live.ManagedFields)).NotTo(ContainElement("kubectl-edit/Update"))
		})

		It("recreate deletes the object, waits until it is gone and creates it again", func() {
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "1"}, "update-policy", "recreate"))
			uid := getConfigMap(ctx, ns, "cm").UID
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "2"}, "update-policy", "recreate"))
			live := getConfigMap(ctx, ns, "cm")
			Expect(live.UID).NotTo(Equal(uid))
			Expect(live.Data).To(HaveKeyWithValue("v", "2"))
		})

		// upgradeRecreated recreates cm at generation 2 (as Helm hooks are on
		// every upgrade) and returns the object, its digest and the inventory
		// before the upgrade.
		upgradeRecreated := func(cm *corev1.ConfigMap) (*corev1.ConfigMap, string, []manifests.InventoryItem) {
			h.applyUntilDone(ctx, cm)
			h.owner.Generation = 2
			beforeUpgrade := slices.Clone(h.inventory)
			h.applyUntilDone(ctx, cm)
			return getConfigMap(ctx, ns, "cm"), h.inventory[0].Digest, beforeUpgrade
		}

		It("recreate creates an object once per render, even when the record of that create was lost", func() {
			cm := configMap(ns, "cm", nil, "update-policy", "recreate", "reconcile-policy", "on-object-or-component-change")
			recreated, digest, beforeUpgrade := upgradeRecreated(cm)

			By("a pass that reads the inventory as it was before that upgrade, as after a status write that failed")
			h.inventory = beforeUpgrade
			h.counter.Reset()
			h.applyUntilDone(ctx, cm)
			Expect(h.counter.Writes()).To(BeZero(), "the object carries the digest it was created from: "+h.counter.String())
			Expect(getConfigMap(ctx, ns, "cm").UID).To(Equal(recreated.UID))
			Expect(h.inventory[0].Digest).To(Equal(digest), "the inventory records the create it had lost")
		})

		It("recreate does not delete an object it created from this render when its cache misses it", func() {
			cm := configMap(ns, "cm", nil, "update-policy", "recreate", "reconcile-policy", "on-object-or-component-change")
			recreated, digest, beforeUpgrade := upgradeRecreated(cm)

			By("a second applier whose cache does not hold the object, from the inventory before the upgrade")
			blind, err := engine.NewApplier(engine.Target{Client: h.target.Client, Live: missingReader{}, Discovery: h.target.Discovery},
				engine.Options{Name: "test.wavekit.dev"})
			Expect(err).NotTo(HaveOccurred())
			h.counter.Reset()
			res, err := blind.Apply(ctx, h.owner, []client.Object{cm}, beforeUpgrade, h.save)
			Expect(err).NotTo(HaveOccurred())
			Expect(h.counter.Count("delete", "configmaps")).To(BeZero(), h.counter.String())
			Expect(getConfigMap(ctx, ns, "cm").UID).To(Equal(recreated.UID))
			Expect(res.Inventory[0].Digest).To(Equal(digest))
		})

		It("recreate in a diff deletes nothing: the delete is a dry run too", func() {
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "1"}, "update-policy", "recreate"))
			uid := getConfigMap(ctx, ns, "cm").UID
			changes, err := h.applier.Diff(ctx, h.owner, []client.Object{configMap(ns, "cm", map[string]string{"v": "2"}, "update-policy", "recreate")}, h.inventory)
			Expect(err).NotTo(HaveOccurred())
			Expect(changes).To(HaveLen(1))
			Expect(changes[0].Note).To(ContainSubstring("recreated"))
			live := getConfigMap(ctx, ns, "cm")
			Expect(live).NotTo(BeNil())
			Expect(live.UID).To(Equal(uid))
			Expect(live.Data).To(HaveKeyWithValue("v", "1"))
		})

		It("explains an immutable field and suggests replace-on-immutable", func() {
			deployment := func(app string) *appsv1.Deployment {
				labels := map[string]string{"app": app}
				return &appsv1.Deployment{
					TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "d"},
					Spec: appsv1.DeploymentSpec{
						Replicas: ptr.To[int32](0),
						Selector: &metav1.LabelSelector{MatchLabels: labels},
						Template: corev1.PodTemplateSpec{
							ObjectMeta: metav1.ObjectMeta{Labels: labels},
							Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
						},
					},
				}
			}
			_, err := h.apply(ctx, deployment("one"))
			Expect(err).NotTo(HaveOccurred())
			_, err = h.apply(ctx, deployment("two"))
			Expect(err).To(MatchError(ContainSubstring("applying apps/Deployment " + ns + "/d: field spec.selector is immutable; set test.wavekit.dev/update-policy: replace-on-immutable to re-create the object when this happens")))
			var immutable *engine.ImmutableFieldError
			Expect(errors.As(err, &immutable)).To(BeTrue(), "a typed error the reconciler does not retry with backoff")
			Expect(immutable.Fields).To(Equal([]string{"spec.selector"}))
			Expect(engine.NeedsChange(err)).To(BeTrue())
		})
	})

	Describe("adoption policy", func() {
		var other *harness
		BeforeEach(func() {
			other = newHarness(ctx, "other-"+ns, optionsDefault())
			other.owner.Namespace = ns
		})

		It("if-unowned adopts an object without owner and refuses one with another owner", func() {
			Expect(env.Client.Create(ctx, configMap(ns, "plain", map[string]string{"v": "0"}))).To(Succeed())
			h.applyUntilDone(ctx, configMap(ns, "plain", map[string]string{"v": "1"}))
			Expect(getConfigMap(ctx, ns, "plain").Labels).To(HaveKeyWithValue("test.wavekit.dev/owner-id", h.owner.ID))

			_, err := other.apply(ctx, configMap(ns, "plain", map[string]string{"v": "2"}))
			Expect(err).To(MatchError(ContainSubstring("ConfigMap " + ns + "/plain already exists and is managed by Component default/" + "policies-" + ns + " (test.wavekit.dev/adoption-policy is if-unowned)")))
			Expect(err.Error()).NotTo(ContainSubstring(string(manifests.AdoptAlways)), "no coaching to take over")
			Expect(getConfigMap(ctx, ns, "plain").Data).To(HaveKeyWithValue("v", "1"))
		})

		It("never refuses any object that exists", func() {
			Expect(env.Client.Create(ctx, configMap(ns, "plain", nil))).To(Succeed())
			_, err := h.apply(ctx, configMap(ns, "plain", map[string]string{"v": "1"}, "adoption-policy", "never"))
			Expect(err).To(MatchError(ContainSubstring("ConfigMap " + ns + "/plain already exists and is not managed by Component default/policies-" + ns)))
			Expect(getConfigMap(ctx, ns, "plain").Data).To(BeEmpty())
		})

		It("always takes over an object of another owner", func() {
			h.applyUntilDone(ctx, configMap(ns, "shared", map[string]string{"v": "1"}))
			other.applyUntilDone(ctx, configMap(ns, "shared", map[string]string{"v": "2"}, "adoption-policy", "always"))
			live := getConfigMap(ctx, ns, "shared")
			Expect(live.Data).To(HaveKeyWithValue("v", "2"))
			Expect(live.Labels).To(HaveKeyWithValue("test.wavekit.dev/owner-id", other.owner.ID))
		})
	})

	Describe("purge order", func() {
		It("deletes the object at the end of its wave and keeps its item as Completed", func() {
			objects := []any{
				configMap(ns, "migration", nil, "purge-order", "0"),
				configMap(ns, "app", nil, "apply-order", "1"),
			}
			h.applyUntilDone(ctx, objects...)
			Expect(getConfigMap(ctx, ns, "migration")).To(BeNil())
			Expect(getConfigMap(ctx, ns, "app")).NotTo(BeNil())
			Expect(h.inventory[0].Name).To(Equal("migration"))
			Expect(h.inventory[0].Phase).To(Equal(manifests.PhaseCompleted))

			h.counter.Reset()
			h.applyUntilDone(ctx, objects...)
			Expect(getConfigMap(ctx, ns, "migration")).To(BeNil())
			Expect(h.counter.Writes()).To(BeZero(), h.counter.String())
		})

		It("does not create a purged object again at the same render when the inventory lacks the purge", func() {
			objects := []any{
				configMap(ns, "migration", nil, "purge-order", "0"),
				configMap(ns, "app", nil, "apply-order", "1"),
			}
			h.applyUntilDone(ctx, objects...)
			Expect(getConfigMap(ctx, ns, "migration")).To(BeNil())

			By("a pass that reads the item as it was before its purge, as after a status write whose answer was lost")
			h.inventory[0].Phase, h.inventory[0].Status = manifests.PhaseReady, ""
			h.counter.Reset()
			h.applyUntilDone(ctx, objects...)
			Expect(h.counter.Count("create", "configmaps")).To(BeZero(), h.counter.String())
			Expect(getConfigMap(ctx, ns, "migration")).To(BeNil())
			Expect(h.inventory[0].Phase).To(Equal(manifests.PhaseCompleted))
		})
	})

	Describe("a run that finds nothing to change", func() {
		It("makes no write and reads no dependent from the API server", func() {
			var objects []any
			for i := range 20 {
				objects = append(objects, configMap(ns, "cm-"+string(rune('a'+i)), map[string]string{"i": "x"}))
			}
			objects = append(objects, widget(ns, "w"))
			h.applyUntilDone(ctx, objects...)
			h.waitForCache(ctx)
			h.counter.Reset()
			savesBefore := h.saves
			res := h.applyUntilDone(ctx, objects...)
			Expect(res.Changed).To(BeFalse())
			Expect(h.counter.Snapshot()).To(BeEmpty(), h.counter.String())
			Expect(h.saves).To(Equal(savesBefore))
		})
	})

	Describe("drift", func() {
		It("puts back a field changed out of band and re-creates a deleted object", func() {
			cm := configMap(ns, "cm", map[string]string{"v": "1"})
			h.applyUntilDone(ctx, cm)
			live := getConfigMap(ctx, ns, "cm")
			live.Data["v"] = "changed"
			Expect(env.Client.Update(ctx, live)).To(Succeed())
			Eventually(func() string {
				h.applyUntilDone(ctx, cm)
				return getConfigMap(ctx, ns, "cm").Data["v"]
			}).Should(Equal("1"))

			Expect(env.Client.Delete(ctx, getConfigMap(ctx, ns, "cm"))).To(Succeed())
			Eventually(func() *corev1.ConfigMap {
				h.applyUntilDone(ctx, cm)
				return getConfigMap(ctx, ns, "cm")
			}).ShouldNot(BeNil())
		})

		It("puts back a field changed out of band with one write and no read", func() {
			cm := configMap(ns, "cm", map[string]string{"v": "1"})
			h.applyUntilDone(ctx, cm)
			live := getConfigMap(ctx, ns, "cm")
			live.Data["v"] = "changed"
			Expect(env.Client.Update(ctx, live)).To(Succeed())
			waitForCachedVersion(ctx, h, live)
			h.counter.Reset()
			h.applyUntilDone(ctx, cm)
			Expect(h.counter.Snapshot()).To(Equal(map[string]int{"apply configmaps": 1}), h.counter.String())
			Expect(getConfigMap(ctx, ns, "cm").Data).To(HaveKeyWithValue("v", "1"))
		})

		It("ignores fields that the server or others add", func() {
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "1"}))
			live := getConfigMap(ctx, ns, "cm")
			live.Labels["added-by"] = "someone"
			Expect(env.Client.Update(ctx, live)).To(Succeed())
			waitForCachedVersion(ctx, h, live)
			h.counter.Reset()
			h.applyUntilDone(ctx, configMap(ns, "cm", map[string]string{"v": "1"}))
			Expect(h.counter.Writes()).To(BeZero(), h.counter.String())
			Expect(getConfigMap(ctx, ns, "cm").Labels).To(HaveKeyWithValue("added-by", "someone"))
		})
	})
})

func managers(entries []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Manager+"/"+string(e.Operation))
	}
	return out
}

// waitForCachedVersion waits until h's cache holds cm at its resourceVersion.
func waitForCachedVersion(ctx context.Context, h *harness, cm *corev1.ConfigMap) {
	GinkgoHelper()
	Eventually(func() string {
		var cached corev1.ConfigMap
		Expect(h.target.Cache.Get(ctx, client.ObjectKeyFromObject(cm), &cached)).To(Succeed())
		return cached.ResourceVersion
	}).Should(Equal(cm.ResourceVersion))
}

// missingReader is a cache that holds nothing: every object reads as missing.
type missingReader struct{}

func (missingReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: obj.GetObjectKind().GroupVersionKind().Kind}, key.Name)
}
