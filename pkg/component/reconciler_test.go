package component_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("the component reconciler", func() {
	var (
		ctx context.Context
		ns  string
	)
	BeforeEach(func() {
		ctx = context.Background()
		ns = newNamespace(ctx)
	})

	It("applies the objects, adds its finalizer and reports Ready", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "basic", map[string]any{"configMaps": map[string]any{"a": map[string]any{"data": map[string]any{"k": "v"}}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())

		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("True/Ready: every object is applied and ready"))
		got := getComponent(ctx, c)
		Expect(got.Finalizers).To(ConsistOf(operator + "/finalizer"))
		Expect(got.Status.State).To(Equal(component.StateReady))
		Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		Expect(got.Status.Inventory).To(HaveLen(1))
		Expect(getConfigMap(ctx, ns, "a").Data).To(HaveKeyWithValue("k", "v"))
	})

	It("keeps the target of its last deleted component for the next one: no new connection, list or probe", func() {
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		values := map[string]any{"configMaps": map[string]any{"a": map[string]any{"data": map[string]any{"k": "v"}}}}
		first := newComponent(ns, "first", values)
		Expect(env.Client.Create(ctx, first)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, first) }).Should(HavePrefix("True/Ready"))
		Expect(env.Client.Delete(ctx, first)).To(Succeed())
		eventually(func() error { return env.Client.Get(ctx, client.ObjectKeyFromObject(first), first) }).Should(Satisfy(apierrors.IsNotFound))

		h.counter.Reset()
		second := newComponent(ns, "second", values)
		Expect(env.Client.Create(ctx, second)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, second) }).Should(HavePrefix("True/Ready"))
		Expect(h.counter.Count("get", "discovery")).To(BeZero(), h.counter.String())
		Expect(h.counter.Count("list", "customresourcedefinitions")).To(BeZero(), h.counter.String())
		Expect(h.counter.Count("list", "configmaps")).To(BeZero(), h.counter.String())
	})

	It("keeps no copy of a status it wrote once its cache shows it", func() {
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "copied", map[string]any{"configMaps": map[string]any{"a": map[string]any{"data": map[string]any{"k": "v"}}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		// The next reconcile is ten minutes away: only the component's own
		// watch event can let the copy go.
		eventually(func() int { return component.WrittenCopies(h.reconciler) }).Should(BeZero())
	})

	It("says Deleting, with an empty inventory, in its last status when one pass deletes everything", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "quick", map[string]any{"configMaps": map[string]any{"a": map[string]any{"data": map[string]any{"k": "v"}}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		w, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
		Expect(err).NotTo(HaveOccurred())
		watcher, err := w.Watch(ctx, &v1alpha1.ComponentList{}, client.InNamespace(ns))
		Expect(err).NotTo(HaveOccurred())
		defer watcher.Stop()
		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		var last *v1alpha1.Component
		Eventually(watcher.ResultChan()).WithTimeout(30 * time.Second).Should(Receive(Satisfy(func(e watch.Event) bool {
			last, _ = e.Object.(*v1alpha1.Component)
			return e.Type == watch.Deleted
		})))
		Expect(last.Status.State).To(Equal(component.StateDeleting))
		Expect(last.Status.Inventory).To(BeEmpty())
		Expect(meta.FindStatusCondition(last.Status.Conditions, "Ready").Message).To(Equal("every object is deleted; removing the finalizer"))
	})

	It("goes on after purging, in its first pass, an object of a kind it did not watch yet", func() {
		// No requeue is due for an hour, and the deletion happened before the
		// pass added its handler for ConfigMaps, so no event reports it.
		startOperator(ctx, ns, component.ReconcilerOptions{RequeueInterval: time.Hour, Timeout: time.Hour})
		c := newComponent(ns, "purged", map[string]any{"configMaps": map[string]any{
			"once":  map[string]any{"annotations": map[string]any{"purge-order": "0"}},
			"after": map[string]any{"annotations": map[string]any{"apply-order": "1"}},
		}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		Expect(getConfigMap(ctx, ns, "once")).To(BeNil())
		Expect(getConfigMap(ctx, ns, "after")).NotTo(BeNil())
	})

	It("reapplies at the reconciler's interval when the component sets none", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{ReapplyInterval: time.Hour})
		byDefault := newComponent(ns, "by-default", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		Expect(env.Client.Create(ctx, byDefault)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, byDefault) }).Should(HavePrefix("True/Ready"))
		// lastAppliedAt is recorded only for objects that are reapplied periodically.
		Expect(getComponent(ctx, byDefault).Status.Inventory[0].LastAppliedAt).NotTo(BeZero())
	})

	It("says in its Ready condition that delete hooks did not run when rendering fails during deletion", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "unrenderable", map[string]any{"configMaps": map[string]any{"held": map[string]any{}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		// Another controller's finalizer keeps the object, so deletion waits and shows its message.
		held := getConfigMap(ctx, ns, "held")
		held.Finalizers = append(held.Finalizers, "example.com/hold")
		Expect(env.Client.Update(ctx, held)).To(Succeed())
		got := getComponent(ctx, c)
		setValues(got, map[string]any{"fail": "values.broken is not a map"})
		Expect(env.Client.Update(ctx, got)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(ContainSubstring("values.broken is not a map"))

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("False/Deleting: delete hooks not run: rendering failed: " +
			"template values.yaml:3: values.broken is not a map; waiting for objects to be deleted: ConfigMap " + ns + "/held: being deleted"))

		held = getConfigMap(ctx, ns, "held")
		held.Finalizers = nil
		Expect(env.Client.Update(ctx, held)).To(Succeed())
		eventually(func() *v1alpha1.Component { return getComponent(ctx, c) }).Should(BeNil())
	})

	It("deletes without rendering again, with the delete hooks of the render it applied, as helm uninstall does", func() {
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		c := createReady(ctx, newComponent(ns, "uninstalled", heldWithHook()))
		Expect(getConfigMap(ctx, ns, "farewell")).To(BeNil(), "a delete hook is not applied")
		holdConfigMap(ctx, ns, "held")
		before, created := h.generator.renders(), h.counter.Count("apply", "configmaps")

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		wakeDeletionThrice(ctx, c, ns, "held")
		eventually(func() *v1alpha1.Component { return getComponent(ctx, c) }).Should(BeNil())
		Expect(h.generator.renders()-before).To(BeZero(), "the deletion rendered")
		Expect(h.counter.Count("apply", "configmaps")-created).To(Equal(1), "the delete hook did not run once")
	})

	It("renders once for a deletion that takes several passes when it has no render of the spec (a restarted operator)", func() {
		first := startOperator(ctx, ns, component.ReconcilerOptions{})
		c := createReady(ctx, newComponent(ns, "restarted", heldWithHook()))
		holdConfigMap(ctx, ns, "held")
		first.stop()
		// Deleted while no operator runs: the next one's first pass deletes.
		Expect(env.Client.Delete(ctx, c)).To(Succeed())

		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		wakeDeletionThrice(ctx, c, ns, "held")
		eventually(func() *v1alpha1.Component { return getComponent(ctx, c) }).Should(BeNil())
		Expect(h.generator.renders()).To(Equal(1), "one render for the delete hooks of the whole deletion")
		Expect(h.counter.Count("apply", "configmaps")).To(Equal(1), "the delete hook did not run once")
	})

	It("leaves the spec alone: a new component stays at generation 1 and the operator owns no spec field", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "untouched", nil)
		// As kubectl or a GitOps tool creates it: only the fields the user wrote.
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "wavekit.dev/v1alpha1", "kind": "Component",
			"metadata": map[string]any{"namespace": ns, "name": "untouched"},
			"spec":     map[string]any{"source": "test", "values": map[string]any{"configMaps": map[string]any{"a": map[string]any{}}}},
		}}
		Expect(env.Client.Create(ctx, u)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		got := getComponent(ctx, c)
		Expect(got.Generation).To(BeEquivalentTo(1))
		for _, entry := range got.ManagedFields {
			if entry.Manager == operator && entry.Subresource == "" {
				Expect(entry.FieldsV1.GetRawString()).NotTo(ContainSubstring(`"f:spec"`), "the operator owns spec fields")
			}
		}

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() *v1alpha1.Component { return getComponent(ctx, c) }).Should(BeNil())
	})

	It("replaces the finalizer of earlier versions (the bare operator name) and still deletes with it", func() {
		c := newComponent(ns, "legacy", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		c.Finalizers = []string{operator}
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		startOperator(ctx, ns, component.ReconcilerOptions{})
		eventually(func() []string { return getComponent(ctx, c).Finalizers }).Should(ConsistOf(operator + "/finalizer"))

		old := newComponent(ns, "legacy-deleted", map[string]any{"configMaps": map[string]any{"b": map[string]any{}}})
		old.Finalizers = []string{operator}
		Expect(env.Client.Create(ctx, old)).To(Succeed())
		eventually(func() *corev1.ConfigMap { return getConfigMap(ctx, ns, "b") }).ShouldNot(BeNil())
		Expect(env.Client.Delete(ctx, old)).To(Succeed())
		eventually(func() *v1alpha1.Component { return getComponent(ctx, old) }).Should(BeNil())
		Expect(getConfigMap(ctx, ns, "b")).To(BeNil())
	})

	It("creates a missing namespace under the Component's namespace policy, or refuses it", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		target := ns + "-target"
		c := newComponent(ns, "placed", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		c.Spec.Namespace = target
		c.Spec.Policies.Namespace = manifests.NamespaceDoNotCreate
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(ContainSubstring(
			"ConfigMap " + target + "/a needs namespace " + target + ", which does not exist (namespace policy do-not-create)"))
		Expect(getComponent(ctx, c).Status.Inventory).To(BeEmpty())

		got := getComponent(ctx, c)
		got.Spec.Policies.Namespace = manifests.NamespaceCreate
		Expect(env.Client.Update(ctx, got)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("True/Ready: every object is applied and ready"))
		inventory := getComponent(ctx, c).Status.Inventory
		Expect(inventory).To(HaveLen(2))
		Expect(inventory[0].Kind).To(Equal("Namespace"))
		Expect(inventory[0].Name).To(Equal(target))
		Expect(inventory[0].DeletePolicy).To(Equal(manifests.DeleteOrphan))
		Expect(getConfigMap(ctx, target, "a")).NotTo(BeNil())
	})

	It("says which wave and objects it waits for, and goes on when they are ready", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "waves", map[string]any{
			"widgets":    []any{"w1"},
			"configMaps": map[string]any{"later": map[string]any{"annotations": map[string]any{"apply-order": 1}}},
		})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(
			HavePrefix("False/Processing: waiting for wave 0: test.wavekit.dev/Widget " + ns + "/w1: Creating, InProgress"))
		Expect(getComponent(ctx, c).Status.State).To(Equal(component.StateProcessing))
		Expect(getConfigMap(ctx, ns, "later")).To(BeNil())

		setWidgetReady(ctx, ns, "w1") // plays the Widget's controller
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("True/Ready: every object is applied and ready"))
		Expect(getConfigMap(ctx, ns, "later")).NotTo(BeNil())
	})

	It("reports generator errors and invalid annotations without touching existing objects", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "errors", map[string]any{"configMaps": map[string]any{"a": map[string]any{"data": map[string]any{"k": "v"}}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))

		update(ctx, c, func(c *v1alpha1.Component) { setValues(c, map[string]any{"fail": "missing value .image"}) })
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("False/Error: rendering: template values.yaml:3: missing value .image"))
		Expect(getComponent(ctx, c).Status.State).To(Equal(component.StateError))
		Expect(getConfigMap(ctx, ns, "a")).NotTo(BeNil())

		update(ctx, c, func(c *v1alpha1.Component) {
			setValues(c, map[string]any{"configMaps": map[string]any{"b": map[string]any{"annotations": map[string]any{"apply-order": "first"}}}})
		})
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal(
			`False/Error: invalid manifests: ConfigMap ` + ns + `/b: annotation test.wavekit.dev/apply-order has invalid value "first" (allowed: an integer from -32768 to 32767)`))
		Expect(getConfigMap(ctx, ns, "a")).NotTo(BeNil())
		Expect(getConfigMap(ctx, ns, "b")).To(BeNil())
	})

	It("refuses an inventory too large for the component's status before creating anything", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{MaxObjectBytes: 64 << 10})
		c := newComponent(ns, "big", configMapValues(600))
		Expect(env.Client.Create(ctx, c)).To(Succeed())

		eventually(func() string { return readyCondition(ctx, c) }).Should(MatchRegexp(
			`^False/Error: recording the inventory before creating objects: component ` + ns + `/big would take \d+ KiB with an inventory of 600 objects, more than the 64 KiB an object may take \(etcd's default request limit is 1.5 MiB\): split it into smaller components$`))
		Expect(getComponent(ctx, c).Status.Inventory).To(BeEmpty())
		var cms corev1.ConfigMapList
		Expect(env.Client.List(ctx, &cms, client.InNamespace(ns))).To(Succeed())
		Expect(cms.Items).To(BeEmpty())

		update(ctx, c, func(c *v1alpha1.Component) { setValues(c, configMapValues(100)) })
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("True/Ready: every object is applied and ready"))
		Expect(getComponent(ctx, c).Status.Inventory).To(HaveLen(100))
	})

	It("keeps the stored inventory and says why when a status grows too large after the objects exist", func() {
		// The post-reconcile hook runs once the objects are applied and
		// makes the status too large, as long error messages in many items
		// could: the objects exist, so the inventory as last stored (every
		// item, before the objects were created) must stay.
		bloat := func(_ context.Context, _ client.Client, c *v1alpha1.Component) error {
			for i := range 3 { // a condition message holds at most 32 KiB
				meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{
					Type: fmt.Sprintf("Bloated%d", i), Status: metav1.ConditionTrue, Reason: "Test", Message: strings.Repeat("x", 25<<10),
				})
			}
			return nil
		}
		startOperator(ctx, ns, component.ReconcilerOptions{MaxObjectBytes: 64 << 10}, func(r *component.Reconciler[*v1alpha1.Component]) {
			r.WithPostReconcileHook(bloat)
		})
		c := newComponent(ns, "grows", configMapValues(10))
		Expect(env.Client.Create(ctx, c)).To(Succeed())

		eventually(func() string { return readyCondition(ctx, c) }).Should(MatchRegexp(
			`^False/Error: component ` + ns + `/grows would take \d+ KiB with an inventory of 10 objects, more than the 64 KiB an object may take`))
		got := getComponent(ctx, c)
		Expect(got.Status.Inventory).To(HaveLen(10))
		for _, item := range got.Status.Inventory {
			Expect(item.Phase).To(Equal(manifests.PhaseScheduled), "the inventory as stored before the objects were created")
			Expect(getConfigMap(ctx, ns, item.Name)).NotTo(BeNil())
		}
	})

	It("writes nothing and reads no dependent when nothing changed", func() {
		h := startOperator(ctx, ns, component.ReconcilerOptions{})
		values := map[string]any{"configMaps": map[string]any{}, "widgets": []any{"w"}}
		for i := range 10 {
			values["configMaps"].(map[string]any)[fmt.Sprintf("cm%d", i)] = map[string]any{"data": map[string]any{"i": fmt.Sprint(i)}}
		}
		c := newComponent(ns, "noop", values)
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("False/Processing"))
		setWidgetReady(ctx, ns, "w")
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))

		// Once the caches hold what was written, a reconcile changes nothing.
		// The manager may be reconciling the same component at the same time;
		// the status write's optimistic lock turns that into a conflict.
		eventually(func() (map[string]int, error) {
			h.counter.Reset()
			_, err := h.reconciler.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c)})
			return h.counter.Snapshot(), err
		}).Should(BeEmpty())
	})

	It("does not reconcile on status-only or metadata-only changes", func() {
		var mu sync.Mutex
		reads := 0
		startOperator(ctx, ns, component.ReconcilerOptions{}, func(r *component.Reconciler[*v1alpha1.Component]) {
			r.WithPostReadHook(func(context.Context, client.Client, *v1alpha1.Component) error {
				mu.Lock()
				defer mu.Unlock()
				reads++
				return nil
			})
		})
		count := func() int { mu.Lock(); defer mu.Unlock(); return reads }
		c := newComponent(ns, "quiet", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		Eventually(count).Should(BeNumerically(">", 0))
		before := count()
		// A reconcile can still be in flight for the last dependent event; let it settle.
		Consistently(count).WithTimeout(time.Second).Should(Equal(before))

		update(ctx, c, func(c *v1alpha1.Component) { c.Labels = map[string]string{"touched": "yes"} })
		got := getComponent(ctx, c)
		got.Status.Conditions[0].Message = "edited by someone"
		Expect(env.Client.Status().Update(ctx, got)).To(Succeed())
		Consistently(count).WithTimeout(2 * time.Second).Should(Equal(before))

		update(ctx, c, func(c *v1alpha1.Component) {
			setValues(c, map[string]any{"configMaps": map[string]any{"b": map[string]any{}}})
		})
		Eventually(count).Should(BeNumerically(">", before))
	})

	It("lets the generator look up objects it did not create", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		Expect(env.Client.Create(ctx, &corev1.ConfigMap{ObjectMeta: objectMeta(ns, "users-settings"), Data: map[string]string{"colour": "green"}})).To(Succeed())
		c := newComponent(ns, "lookup", map[string]any{"copyFrom": "users-settings"})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		Expect(getConfigMap(ctx, ns, "copy").Data).To(HaveKeyWithValue("colour", "green"))
	})

	It("puts back an applied object that was edited or deleted out of band", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "drift", map[string]any{"configMaps": map[string]any{"a": map[string]any{"data": map[string]any{"k": "v"}}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))

		cm := getConfigMap(ctx, ns, "a")
		cm.Data["k"] = "edited"
		Expect(env.Client.Update(ctx, cm)).To(Succeed())
		eventually(func() string { return getConfigMap(ctx, ns, "a").Data["k"] }).Should(Equal("v"))

		Expect(env.Client.Delete(ctx, getConfigMap(ctx, ns, "a"))).To(Succeed())
		eventually(func() *corev1.ConfigMap { return getConfigMap(ctx, ns, "a") }).ShouldNot(BeNil())
	})

	It("blocks deletion while foreign instances exist and says why", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		group := ns + ".comp.wavekit.dev"
		c := newComponent(ns, "blocked", map[string]any{"crdGroup": group, "configMaps": map[string]any{"a": map[string]any{}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))

		foreign := &unstructured.Unstructured{}
		foreign.SetAPIVersion(group + "/v1")
		foreign.SetKind("Gadget")
		foreign.SetNamespace(ns)
		foreign.SetName("foreign")
		eventually(func() error { return env.Client.Create(ctx, foreign) }).Should(Succeed())

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(
			Equal("False/DeletionBlocked: deletion blocked: 1 foreign instance of Gadget." + group + " exist"))
		Expect(getComponent(ctx, c).Status.State).To(Equal(component.StateDeletionPending))
		Expect(getConfigMap(ctx, ns, "a")).NotTo(BeNil())

		Expect(env.Client.Delete(ctx, foreign)).To(Succeed())
		eventually(func() *v1alpha1.Component { return getComponent(ctx, c) }).Should(BeNil())
		Expect(getConfigMap(ctx, ns, "a")).To(BeNil())
	})

	It("stops applying when suspended and still deletes", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		c := newComponent(ns, "suspended", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))

		update(ctx, c, func(c *v1alpha1.Component) {
			c.Spec.Suspend = true
			setValues(c, map[string]any{"configMaps": map[string]any{"b": map[string]any{}}})
		})
		eventually(func() string { return readyCondition(ctx, c) }).Should(Equal("False/Suspended: reconciliation is suspended; objects are left as they are"))
		Expect(getComponent(ctx, c).Status.State).To(Equal(component.StatePending))
		Expect(getConfigMap(ctx, ns, "b")).To(BeNil())
		Expect(getConfigMap(ctx, ns, "a")).NotTo(BeNil())

		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() *v1alpha1.Component { return getComponent(ctx, c) }).Should(BeNil())
		Expect(getConfigMap(ctx, ns, "a")).To(BeNil())
	})

	It("calls hooks in order and retries retriable hook errors", func() {
		var mu sync.Mutex
		var calls []string
		failOnce := true
		record := func(name string) component.HookFunc[*v1alpha1.Component] {
			return func(context.Context, client.Client, *v1alpha1.Component) error {
				mu.Lock()
				defer mu.Unlock()
				if len(calls) == 0 || calls[len(calls)-1] != name {
					calls = append(calls, name)
				}
				if name == "pre-reconcile" && failOnce {
					failOnce = false
					return component.Retriable(fmt.Errorf("database not reachable"), 100*time.Millisecond)
				}
				return nil
			}
		}
		startOperator(ctx, ns, component.ReconcilerOptions{}, func(r *component.Reconciler[*v1alpha1.Component]) {
			r.WithPostReadHook(record("post-read")).WithPreReconcileHook(record("pre-reconcile")).
				WithPostReconcileHook(record("post-reconcile")).WithPreDeleteHook(record("pre-delete")).
				WithPostDeleteHook(record("post-delete"))
		})
		c := newComponent(ns, "hooks", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
		Expect(env.Client.Delete(ctx, c)).To(Succeed())
		eventually(func() *v1alpha1.Component { return getComponent(ctx, c) }).Should(BeNil())

		mu.Lock()
		defer mu.Unlock()
		Expect(calls[0]).To(Equal("post-read"))
		var withoutReads []string
		for _, c := range calls {
			if c != "post-read" {
				withoutReads = append(withoutReads, c)
			}
		}
		Expect(withoutReads).To(Equal([]string{
			"pre-reconcile", // fails once: Retrying
			"pre-reconcile", // records the new object in the status, ahead of it
			"pre-reconcile", "post-reconcile",
			"pre-delete", "post-delete",
		}))
	})

	It("times out a component that does not become ready, and keeps trying", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{Timeout: time.Second})
		c := newComponent(ns, "slow", map[string]any{"widgets": []any{"never"}})
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(
			HavePrefix("False/Timeout: not ready after 1s: waiting for wave 0: test.wavekit.dev/Widget " + ns + "/never"))
		Expect(getComponent(ctx, c).Status.State).To(Equal(component.StateError))
		setWidgetReady(ctx, ns, "never")
		eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
	})

	It("reports a clear Forbidden error when the impersonated service account lacks rights", func() {
		startOperator(ctx, ns, component.ReconcilerOptions{})
		Expect(env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: objectMeta(ns, "weak")})).To(Succeed())
		c := newComponent(ns, "impersonated", map[string]any{"configMaps": map[string]any{"a": map[string]any{}}})
		c.Spec.ServiceAccountName = "weak"
		Expect(env.Client.Create(ctx, c)).To(Succeed())
		eventually(func() string { return readyCondition(ctx, c) }).Should(And(
			HavePrefix("False/Error:"),
			ContainSubstring(`ConfigMap must be listed and watched in namespace `+ns+` to track applied objects: configmaps is forbidden: User "system:serviceaccount:`+ns+`:weak" cannot list resource "configmaps"`),
		))
		Expect(getConfigMap(ctx, ns, "a")).To(BeNil())
	})
})

// update changes a component with retries on conflict.
func update(ctx context.Context, c *v1alpha1.Component, change func(*v1alpha1.Component)) {
	eventually(func() error {
		got := getComponent(ctx, c)
		change(got)
		return env.Client.Update(ctx, got)
	}).Should(Succeed())
}

// configMapValues asks the values generator for n empty ConfigMaps.
func configMapValues(n int) map[string]any {
	cms := map[string]any{}
	for i := range n {
		cms[fmt.Sprintf("cm-%04d", i)] = map[string]any{}
	}
	return map[string]any{"configMaps": cms}
}

// heldWithHook renders ConfigMaps held and free, and farewell, a pre-delete
// hook.
func heldWithHook() map[string]any {
	return map[string]any{"configMaps": map[string]any{
		"held": map[string]any{}, "free": map[string]any{},
		"farewell": map[string]any{"annotations": map[string]any{"delete-hook": "pre-delete"}},
	}}
}

// createReady creates component c and waits until it is Ready.
func createReady(ctx context.Context, c *v1alpha1.Component) *v1alpha1.Component {
	Expect(env.Client.Create(ctx, c)).To(Succeed())
	eventually(func() string { return readyCondition(ctx, c) }).Should(HavePrefix("True/Ready"))
	return c
}

// holdConfigMap gives ConfigMap ns/name a finalizer of another writer, so
// that its deletion waits until that finalizer goes.
func holdConfigMap(ctx context.Context, ns, name string) {
	held := getConfigMap(ctx, ns, name)
	held.Finalizers = append(held.Finalizers, "example.com/hold")
	Expect(env.Client.Update(ctx, held)).To(Succeed())
}

// wakeDeletionThrice waits until component c's deletion waits for the held
// ConfigMap ns/name, changes that ConfigMap three times (each change is a
// pass of the deletion), then lets it go.
func wakeDeletionThrice(ctx context.Context, c *v1alpha1.Component, ns, name string) {
	eventually(func() string { return readyCondition(ctx, c) }).Should(ContainSubstring("waiting for objects to be deleted: ConfigMap " + ns + "/" + name + ": being deleted"))
	for i := range 3 {
		held := getConfigMap(ctx, ns, name)
		held.Annotations = map[string]string{"touched": fmt.Sprint(i)}
		Expect(env.Client.Update(ctx, held)).To(Succeed())
	}
	held := getConfigMap(ctx, ns, name)
	held.Finalizers = nil
	Expect(env.Client.Update(ctx, held)).To(Succeed())
}
