package dynamic_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/component/dynamic"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Widget is a component type whose kind is given when it is served.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              map[string]any   `json:"spec,omitempty"`
	Status            component.Status `json:"status,omitempty"`

	// hooked is what a post-read hook attached: no field of the object.
	hooked string
}

func (w *Widget) GetSpec() manifests.Parameters { return manifests.Values(w.Spec) }
func (w *Widget) GetStatus() *component.Status  { return &w.Status }

func (w *Widget) DeepCopyObject() runtime.Object {
	out := &Widget{TypeMeta: w.TypeMeta, Spec: runtime.DeepCopyJSON(w.Spec), hooked: w.hooked}
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	w.Status.DeepCopyInto(&out.Status)
	return out
}

// configMapOf renders one ConfigMap named after the component, with its
// spec's greeting.
var configMapOf = manifests.GeneratorFunc(func(ctx context.Context, namespace, name string, p manifests.Parameters) ([]client.Object, error) {
	greeting, _ := p.ToUnstructured()["greeting"].(string)
	info, _ := manifests.ComponentInfoFrom(ctx)
	w, _ := info.Object.(*Widget)
	return []client.Object{&corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name + "-widget"},
		Data:       map[string]string{"greeting": greeting, "hooked": w.hooked},
	}}, nil
})

// hook attaches something to each Widget as it is read.
func hook(_ context.Context, _ client.Client, w *Widget) error {
	w.hooked = "by the post-read hook"
	return nil
}

// widgetCRD writes a CRD for kind in group and waits until it is served.
func widgetCRD(ctx context.Context, group, kind string) schema.GroupVersionKind {
	GinkgoHelper()
	plural := strings.ToLower(kind) + "s"
	yes := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: strings.ToLower(kind)},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec":   {Type: "object", XPreserveUnknownFields: &yes},
						"status": {Type: "object", XPreserveUnknownFields: &yes},
					}}}}},
		},
	}
	Expect(env.Client.Create(ctx, crd)).To(Succeed())
	Eventually(func() bool {
		_ = env.Client.Get(ctx, client.ObjectKeyFromObject(crd), crd)
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	}).WithTimeout(10 * time.Second).Should(BeTrue())
	return schema.GroupVersionKind{Group: group, Version: "v1", Kind: kind}
}

func instance(gvk schema.GroupVersionKind, namespace, name, greeting string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"greeting": greeting}}}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

func readyStatus(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) func() string {
	return func() string {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, u); err != nil {
			if apierrors.IsNotFound(err) {
				return "gone"
			}
			return err.Error()
		}
		conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conditions {
			if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
				return fmt.Sprintf("%v/%v", m["status"], m["reason"])
			}
		}
		return "no Ready condition"
	}
}

var _ = Describe("a kind served at run time", func() {
	var (
		ctx = context.Background()
		mgr ctrl.Manager
	)

	BeforeEach(func() {
		var err error
		// No SkipNameValidation here: the served kinds' reconcilers all bear
		// the operator's name, and serving them must not need it.
		mgr, err = ctrl.NewManager(env.Config, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
		Expect(err).NotTo(HaveOccurred())
		componenttest.RunManager(ctx, mgr)
	})

	serve := func(gvk schema.GroupVersionKind) *dynamic.Served {
		GinkgoHelper()
		r := component.NewReconciler[*Widget]("dynamic.wavekit.dev", configMapOf, component.ReconcilerOptions{}).WithPostReadHook(hook)
		served, err := dynamic.Start(ctx, mgr, gvk, r, dynamic.Options{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = served.Stop() })
		return served
	}

	It("applies, reports and deletes its components on a manager that was already running", func() {
		gvk := widgetCRD(ctx, "one.dynamic.example.com", "Widget")
		serve(gvk)
		ns := newNamespace(ctx)
		Expect(env.Client.Create(ctx, instance(gvk, ns, "w", "hello"))).To(Succeed())
		Eventually(readyStatus(ctx, gvk, ns, "w")).WithTimeout(30 * time.Second).Should(Equal("True/Ready"))
		var cm corev1.ConfigMap
		Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "w-widget"}, &cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("greeting", "hello"))
		Expect(cm.Data).To(HaveKeyWithValue("hooked", "by the post-read hook"),
			"what the type keeps for itself outlives the writes of the pass (the finalizer's patch) before the render")

		u := instance(gvk, ns, "w", "")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(u), u)).To(Succeed())
		Expect(u.GetFinalizers()).To(ContainElement(HavePrefix("dynamic.wavekit.dev/")), "the finalizer is patched through the view")
		generation, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
		Expect(generation).To(Equal(int64(1)), "the status is written through the view")

		Expect(unstructured.SetNestedField(u.Object, "bonjour", "spec", "greeting")).To(Succeed())
		Expect(env.Client.Update(ctx, u)).To(Succeed())
		Eventually(func() string {
			_ = env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "w-widget"}, &cm)
			return cm.Data["greeting"]
		}).WithTimeout(30 * time.Second).Should(Equal("bonjour"))

		Expect(env.Client.Delete(ctx, u)).To(Succeed())
		Eventually(readyStatus(ctx, gvk, ns, "w")).WithTimeout(30 * time.Second).Should(Equal("gone"))
		Expect(apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "w-widget"}, &cm))).To(BeTrue())
	})

	It("serves two kinds under one operator name at once, and stops serving one without the other", func() {
		first, second := widgetCRD(ctx, "two.dynamic.example.com", "Gadget"), widgetCRD(ctx, "two.dynamic.example.com", "Gizmo")
		servedFirst := serve(first)
		serve(second)
		ns := newNamespace(ctx)
		Expect(env.Client.Create(ctx, instance(first, ns, "a", "a"))).To(Succeed())
		Expect(env.Client.Create(ctx, instance(second, ns, "b", "b"))).To(Succeed())
		Eventually(readyStatus(ctx, first, ns, "a")).WithTimeout(30 * time.Second).Should(Equal("True/Ready"))
		Eventually(readyStatus(ctx, second, ns, "b")).WithTimeout(30 * time.Second).Should(Equal("True/Ready"))

		Expect(servedFirst.Stop()).To(Succeed())
		Eventually(servedFirst.Done()).Should(BeClosed())
		Expect(servedFirst.Err()).NotTo(HaveOccurred())
		Expect(env.Client.Create(ctx, instance(first, ns, "late", "x"))).To(Succeed())
		Expect(env.Client.Create(ctx, instance(second, ns, "c", "c"))).To(Succeed())
		Eventually(readyStatus(ctx, second, ns, "c")).WithTimeout(30 * time.Second).Should(Equal("True/Ready"))
		Consistently(readyStatus(ctx, first, ns, "late")).WithTimeout(2*time.Second).Should(Equal("no Ready condition"),
			"a kind no longer served is left alone")

		serve(first)
		Eventually(readyStatus(ctx, first, ns, "late")).WithTimeout(30*time.Second).Should(Equal("True/Ready"),
			"a kind served again is served from scratch")
	})

	It("leaves no event handler behind on the manager's informers once it is no longer served", func() {
		gvk := widgetCRD(ctx, "handlers.dynamic.example.com", "Doohickey")
		ns := newNamespace(ctx)
		var calls atomic.Int32
		r := component.NewReconciler[*Widget]("dynamic.wavekit.dev", configMapOf, component.ReconcilerOptions{}).
			WithWatch(&corev1.Secret{}, func(_ context.Context, o client.Object) []reconcile.Request {
				if o.GetNamespace() == ns {
					calls.Add(1)
				}
				return nil
			})
		served, err := dynamic.Start(ctx, mgr, gvk, r, dynamic.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "before"}})).To(Succeed())
		Eventually(calls.Load).WithTimeout(30 * time.Second).Should(BeNumerically(">=", 1))

		Expect(served.Stop()).To(Succeed())
		seen := calls.Load()
		Expect(env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "after"}})).To(Succeed())
		// The manager's own informer of Secrets sees the new one: once it
		// did, a handler left behind would have been called too.
		Eventually(func() error {
			return mgr.GetCache().Get(ctx, client.ObjectKey{Namespace: ns, Name: "after"}, &corev1.Secret{})
		}).WithTimeout(10 * time.Second).Should(Succeed())
		Consistently(calls.Load).WithTimeout(time.Second).Should(Equal(seen),
			"the watch of a kind no longer served is gone from the manager's shared informer")
	})

	It("serves a kind while another informer of the manager cannot sync", func() {
		gone := widgetCRD(ctx, "stale.dynamic.example.com", "Thingamajig")
		stale := &unstructured.Unstructured{}
		stale.SetGroupVersionKind(gone)
		_, err := mgr.GetCache().GetInformer(ctx, stale)
		Expect(err).NotTo(HaveOccurred())
		Expect(mgr.GetCache().RemoveInformer(ctx, stale)).To(Succeed())
		crd := &apiextensionsv1.CustomResourceDefinition{}
		Expect(env.Client.Get(ctx, client.ObjectKey{Name: "thingamajigs.stale.dynamic.example.com"}, crd)).To(Succeed())
		Expect(env.Client.Delete(ctx, crd)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(crd), crd))
		}).WithTimeout(30 * time.Second).Should(BeTrue())
		// The manager's mapper still knows the kind: a new informer of it
		// starts, and never syncs, as one does that something made after a
		// served kind's CRD was deleted.
		informer, err := mgr.GetCache().GetInformer(ctx, stale, cache.BlockUntilSynced(false))
		Expect(err).NotTo(HaveOccurred())
		Consistently(informer.HasSynced).WithTimeout(2 * time.Second).Should(BeFalse())
		DeferCleanup(func() { _ = mgr.GetCache().RemoveInformer(ctx, stale) })

		gvk := widgetCRD(ctx, "stale.dynamic.example.com", "Whatsit")
		serve(gvk)
		ns := newNamespace(ctx)
		Expect(env.Client.Create(ctx, instance(gvk, ns, "w", "hello"))).To(Succeed())
		Eventually(readyStatus(ctx, gvk, ns, "w")).WithTimeout(30*time.Second).Should(Equal("True/Ready"),
			"a served kind waits for its own informers, not for every informer of the manager")
	})
})

func newNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "dynamic-"}}
	Expect(env.Client.Create(ctx, ns)).To(Succeed())
	return ns.Name
}
