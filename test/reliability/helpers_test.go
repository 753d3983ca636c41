package reliability_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ownedKinds are the kinds the suite's components render; owned lists them.
var ownedKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "Secret"},
	{Version: "v1", Kind: "Service"},
	{Version: "v1", Kind: "Namespace"},
	{Group: "test.wavekit.dev", Version: "v1", Kind: "Widget"},
	{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
}

// objectVersion identifies one incarnation and one version of an object.
type objectVersion struct {
	UID             types.UID
	ResourceVersion string
}

// owned returns every object in the cluster that carries the owner label of
// the operator named prefix, by key, with its UID and resourceVersion.
func owned(ctx context.Context, prefix string) map[manifests.ObjectKey]objectVersion {
	GinkgoHelper()
	out := map[manifests.ObjectKey]objectVersion{}
	for _, gvk := range ownedKinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		Expect(env.Client.List(ctx, list, client.HasLabels{manifests.Key(prefix, manifests.LabelOwnerID)})).To(Succeed())
		for _, item := range list.Items {
			key := manifests.ObjectKey{Group: gvk.Group, Kind: gvk.Kind, Namespace: item.GetNamespace(), Name: item.GetName()}
			out[key] = objectVersion{UID: item.GetUID(), ResourceVersion: item.GetResourceVersion()}
		}
	}
	return out
}

// ownedIn returns the objects of owned(ctx, crashOperator) in namespace ns.
func ownedIn(ctx context.Context, ns string) map[manifests.ObjectKey]objectVersion {
	GinkgoHelper()
	out := map[manifests.ObjectKey]objectVersion{}
	for key, version := range owned(ctx, crashOperator) {
		if key.Namespace == ns {
			out[key] = version
		}
	}
	return out
}

func newNamespace(ctx context.Context, name string) {
	GinkgoHelper()
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
}

func newComponent(ns, name, source string, values map[string]any) *v1alpha1.Component {
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ComponentSpec{Source: source}}
	setValues(c, values)
	return c
}

func setValues(c *v1alpha1.Component, values map[string]any) {
	GinkgoHelper()
	raw, err := json.Marshal(values)
	Expect(err).NotTo(HaveOccurred())
	c.Spec.Values = &apiextensionsv1.JSON{Raw: raw}
}

// changeValues replaces the values of a component, retrying on conflicts.
func changeValues(ctx context.Context, c *v1alpha1.Component, values map[string]any) {
	GinkgoHelper()
	eventually(func() error {
		got := getComponent(ctx, c)
		if got == nil {
			return fmt.Errorf("%s is gone", c.Name)
		}
		setValues(got, values)
		return env.Client.Update(ctx, got)
	}).Should(Succeed())
}

// getComponent reads c again; nil when it is gone.
func getComponent(ctx context.Context, c *v1alpha1.Component) *v1alpha1.Component {
	GinkgoHelper()
	got, err := componenttest.GetComponent(ctx, env.Client, client.ObjectKeyFromObject(c))
	Expect(err).NotTo(HaveOccurred())
	return got
}

// readyCondition returns "Status/Reason: message" of the Ready condition,
// "gone" or "none".
func readyCondition(ctx context.Context, c *v1alpha1.Component) string {
	GinkgoHelper()
	cond, err := componenttest.ReadyCondition(ctx, env.Client, client.ObjectKeyFromObject(c))
	Expect(err).NotTo(HaveOccurred())
	return cond
}

// inventoryKeys returns the keys of the component's status.inventory.
func inventoryKeys(ctx context.Context, c *v1alpha1.Component) map[manifests.ObjectKey]bool {
	GinkgoHelper()
	out := map[manifests.ObjectKey]bool{}
	if got := getComponent(ctx, c); got != nil {
		for i := range got.Status.Inventory {
			out[got.Status.Inventory[i].Key()] = true
		}
	}
	return out
}

func getConfigMap(ctx context.Context, ns, name string) *corev1.ConfigMap {
	GinkgoHelper()
	var cm corev1.ConfigMap
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cm)).To(Succeed())
	return &cm
}

func eventually(f any) AsyncAssertion {
	return Eventually(f).WithTimeout(60 * time.Second).WithPolling(50 * time.Millisecond)
}

func componentOwnerID(ns, name string) string {
	return manifests.OwnerID(v1alpha1.GroupVersion.Group, "Component", ns, name)
}
