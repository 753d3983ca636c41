package engine_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("applying in waves", func() {
	var (
		ctx context.Context
		h   *harness
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("waves")
	})

	It("starts a wave only when every object of the previous one is ready", func() {
		first := widget(ns, "first", "status-hint", "has-ready-condition")
		second := configMap(ns, "second", map[string]string{"k": "v"}, "apply-order", "1")

		res, err := h.apply(ctx, first, second)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeFalse())
		Expect(res.Wave).To(Equal(int16(0)))
		Expect(res.Waiting).To(ConsistOf(ContainSubstring("test.wavekit.dev/Widget " + ns + "/first")))
		Expect(get(ctx, "test.wavekit.dev/v1", "Widget", ns, "first")).NotTo(BeNil())
		Expect(getConfigMap(ctx, ns, "second")).To(BeNil())

		setReady(ctx, first, true)
		h.applyUntilDone(ctx, first, second)
		Expect(getConfigMap(ctx, ns, "second")).NotTo(BeNil())
		Expect(h.inventory).To(HaveLen(2))
		for _, item := range h.inventory {
			Expect(item.Phase).To(Equal(manifests.PhaseReady), item.String())
		}
	})

	It("applies a CRD before its instances and waits until it is established", func() {
		group := ns + ".stages.wavekit.dev"
		h.applyUntilDone(ctx, gadget(group, ns, "g1"), gadgetCRD(group))
		Expect(get(ctx, group+"/v1", "Gadget", ns, "g1")).NotTo(BeNil())
		kinds := []string{}
		for _, item := range h.inventory {
			kinds = append(kinds, item.Kind)
		}
		Expect(kinds).To(Equal([]string{"CustomResourceDefinition", "Gadget"}))
		Expect(h.inventory[0].ManagedTypes).To(Equal([]manifests.TypeInfo{{Group: group, Kind: "Gadget"}}))
	})

	It("orders kinds within a wave: namespaces, definitions, configuration, workloads", func() {
		target := ns + "-made"
		objects := []any{
			configMap(target, "cm", nil),
			&rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}, ObjectMeta: metav1.ObjectMeta{Name: target + "-role"}},
			&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: target}},
			&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Namespace: target, Name: "svc"},
				Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		}
		h.applyUntilDone(ctx, objects...)
		Expect(itemKeys(h.inventory)).To(Equal([]string{
			"Namespace " + target,
			"rbac.authorization.k8s.io/ClusterRole " + target + "-role",
			"ConfigMap " + target + "/cm",
			"Service " + target + "/svc",
		}))
	})

	It("gives namespaced objects the component's namespace and takes it from cluster-scoped ones", func() {
		cm := configMap("", "defaulted", nil)
		role := &rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-scoped", Namespace: "ignored"}}
		h.applyUntilDone(ctx, cm, role)
		Expect(getConfigMap(ctx, ns, "defaulted")).NotTo(BeNil())
		Expect(get(ctx, "rbac.authorization.k8s.io/v1", "ClusterRole", "", ns+"-scoped")).NotTo(BeNil())
	})

	It("creates a missing namespace first, tracks it and never deletes it", func() {
		missing := ns + "-missing"
		var savedBeforeCreate []string
		res, err := h.applier.Apply(ctx, h.owner, toObjects([]any{configMap(missing, "cm", nil)}), nil,
			func(ctx context.Context, items []manifests.InventoryItem) error {
				if get(ctx, "v1", "Namespace", "", missing) == nil {
					savedBeforeCreate = itemKeys(items)
				}
				return h.save(ctx, items)
			})
		Expect(err).NotTo(HaveOccurred())
		h.inventory = res.Inventory
		Expect(savedBeforeCreate).To(Equal([]string{"Namespace " + missing, "ConfigMap " + missing + "/cm"}))
		h.applyUntilDone(ctx, configMap(missing, "cm", nil))
		Expect(getConfigMap(ctx, missing, "cm")).NotTo(BeNil())
		Expect(itemKeys(h.inventory)).To(Equal([]string{"Namespace " + missing, "ConfigMap " + missing + "/cm"}))
		Expect(h.inventory[0].DeletePolicy).To(Equal(manifests.DeleteOrphan))

		By("a pass that changes nothing reads nothing, the namespace included")
		h.waitForCache(ctx)
		h.counter.Reset()
		h.applyUntilDone(ctx, configMap(missing, "cm", nil))
		Expect(h.counter.Snapshot()).To(BeEmpty())
		Expect(itemKeys(h.inventory)).To(ContainElement("Namespace " + missing))

		h.deleteUntilDone(ctx)
		Expect(get(ctx, "v1", "Namespace", "", missing)).NotTo(BeNil())
	})

	It("reads a namespace once for the new objects of many owners in it", func() {
		h.counter.Reset()
		for i := range 5 {
			h.owner.ID = manifests.OwnerID("test.wavekit.dev", "Component", ns, fmt.Sprintf("many-%d", i))
			h.inventory = nil
			h.applyUntilDone(ctx, configMap(ns, fmt.Sprintf("many-%d", i), nil))
		}
		Expect(h.counter.Count("get", "namespaces")).To(Equal(1), "reads of namespace %s: %s", ns, h.counter)
	})

	It("does not create missing namespaces under the do-not-create policy", func() {
		h = newHarness(ctx, "nomissing-"+ns, engine.Options{Defaults: manifests.Defaults{Namespace: manifests.NamespaceDoNotCreate}})
		_, err := h.apply(ctx, configMap(ns+"-absent", "cm", nil))
		var missing *engine.MissingNamespaceError
		Expect(errors.As(err, &missing)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("ConfigMap " + ns + "-absent/cm needs namespace " + ns + "-absent, which does not exist (namespace policy do-not-create)")))
		Expect(h.inventory).To(BeEmpty())
		Expect(get(ctx, "v1", "Namespace", "", ns+"-absent")).To(BeNil())
	})

	It("takes the component's namespace policy over the applier's", func() {
		h.owner.Defaults.Namespace = manifests.NamespaceDoNotCreate
		_, err := h.apply(ctx, configMap(ns+"-refused", "cm", nil))
		Expect(err).To(MatchError(ContainSubstring("namespace policy do-not-create")))
		Expect(get(ctx, "v1", "Namespace", "", ns+"-refused")).To(BeNil())
	})

	It("folds a Secret's stringData into data", func() {
		secret := &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "s"},
			StringData: map[string]string{"password": "hunter2"}}
		h.applyUntilDone(ctx, secret)
		digest := h.inventory[0].Digest
		live := get(ctx, "v1", "Secret", ns, "s")
		Expect(live.Object["data"]).To(HaveKeyWithValue("password", base64.StdEncoding.EncodeToString([]byte("hunter2"))))

		h.counter.Reset()
		h.applyUntilDone(ctx, secret)
		Expect(h.inventory[0].Digest).To(Equal(digest))
		Expect(h.counter.Writes()).To(BeZero(), h.counter.String())
	})

	It("creates N new objects with N creates and a constant number of other requests", func() {
		requests := func(name string, n int) map[string]int {
			h := newHarness(ctx, name, engine.Options{})
			var objects []any
			for i := range n {
				objects = append(objects, configMap(ns, fmt.Sprintf("%s-%d", name, i), nil))
			}
			h.applyUntilDone(ctx, objects...)
			return h.counter.Snapshot()
		}
		// Besides the creates: connecting (discovery, the CRD informer), one
		// probe and one watch of ConfigMaps, the same for 10 objects as for 40.
		var others []map[string]int
		for _, n := range []int{10, 40} {
			got := requests(fmt.Sprintf("n%d", n), n)
			Expect(got).To(HaveKeyWithValue("apply configmaps", n), "server-side apply, the default, creates")
			delete(got, "apply configmaps")
			Expect(got).To(HaveKeyWithValue("list configmaps", 1))
			others = append(others, got)
		}
		Expect(others[1]).To(Equal(others[0]))
	})

	It("probes a kind once, however many of its objects are written at once", func() {
		h := newHarness(ctx, "probes", engine.Options{Concurrency: 8})
		var objects []any
		for i := range 16 {
			objects = append(objects, configMap(ns, fmt.Sprintf("cm-%d", i), nil))
		}
		h.applyUntilDone(ctx, objects...)
		// One list to check that ConfigMaps may be listed (the informer gets
		// its first objects over its watch).
		Expect(h.counter.Count("list", "configmaps")).To(Equal(1), h.counter.String())
		Expect(h.counter.Count("watch", "configmaps")).To(Equal(1), h.counter.String())
	})

	It("reports the actions of a wave in plan order, however its writes interleave", func() {
		h := newHarness(ctx, "order", engine.Options{Concurrency: 8})
		const n = 50
		var want []string
		for i := range n {
			want = append(want, fmt.Sprintf("ConfigMap %s/cm-%02d", ns, i))
		}
		for round := range 20 {
			var objects []any
			for i := range n { // rendered in reverse: the plan sorts them
				name := fmt.Sprintf("cm-%02d", n-1-i)
				objects = append(objects, configMap(ns, name, map[string]string{"round": fmt.Sprint(round)}))
			}
			verb := "Updated "
			if round == 0 {
				verb = "Created "
			}
			res, err := h.apply(ctx, objects...)
			Expect(err).NotTo(HaveOccurred())
			got := actionsOf(res)
			Expect(got).To(HaveLen(n), "round %d", round)
			for i := range got {
				Expect(got[i]).To(Equal(verb+want[i]), "round %d, action %d", round, i)
			}
		}
	})

	It("records the inventory before it creates an object", func() {
		cm := configMap(ns, "tracked", nil)
		var seenAtSave *corev1.ConfigMap
		h.inventory = nil
		res, err := h.applier.Apply(ctx, h.owner, toObjects([]any{cm}), nil, func(ctx context.Context, items []manifests.InventoryItem) error {
			seenAtSave = getConfigMap(ctx, ns, "tracked")
			Expect(itemKeys(items)).To(Equal([]string{"ConfigMap " + ns + "/tracked"}))
			Expect(items[0].Phase).To(Equal(manifests.PhaseScheduled))
			return nil
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Done).To(BeTrue())
		Expect(seenAtSave).To(BeNil())
		Expect(getConfigMap(ctx, ns, "tracked")).NotTo(BeNil())
	})

	It("writes nothing when the inventory cannot be recorded", func() {
		_, err := h.applier.Apply(ctx, h.owner, toObjects([]any{configMap(ns, "unsaved", nil)}), nil,
			func(context.Context, []manifests.InventoryItem) error { return errSaveFailed })
		Expect(err).To(MatchError(ContainSubstring("recording the inventory before creating objects")))
		Expect(getConfigMap(ctx, ns, "unsaved")).To(BeNil())
	})
})
