package component_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/testing/apicount"
	"github.com/wavekit-dev/wavekit/internal/testing/componenttest"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

const operator = "test.wavekit.dev"

var namespaceCounter atomic.Int64

func newNamespace(ctx context.Context) string {
	name := fmt.Sprintf("c%d", namespaceCounter.Add(1))
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	return name
}

// operatorHarness runs a manager with one component reconciler whose
// requests are counted.
type operatorHarness struct {
	reconciler *component.Reconciler[*v1alpha1.Component]
	counter    *apicount.Counter
	generator  *valuesGenerator
	stop       func() // stops the manager and waits until it has stopped
}

// startOperator starts a manager with a reconciler built by configure.
// Every test's operator handles only the components of its own namespace,
// as several reference operators share a cluster by source.
func startOperator(ctx context.Context, ns string, opts component.ReconcilerOptions, configure ...func(*component.Reconciler[*v1alpha1.Component])) *operatorHarness {
	return startOperatorWith(ctx, ns, opts, func(g *valuesGenerator) manifests.Generator { return g }, configure...)
}

// startOperatorWith is startOperator with the values generator wrapped by
// wrap.
func startOperatorWith(ctx context.Context, ns string, opts component.ReconcilerOptions, wrap func(*valuesGenerator) manifests.Generator,
	configure ...func(*component.Reconciler[*v1alpha1.Component])) *operatorHarness {
	opts.Filter = func(c component.Component) bool { return c.GetNamespace() == ns }
	counter := apicount.New()
	mgr, err := ctrl.NewManager(counter.Wrap(env.Config), componenttest.ManagerOptions(scheme))
	Expect(err).NotTo(HaveOccurred())
	gen := &valuesGenerator{}
	r := component.NewReconciler[*v1alpha1.Component](operator, wrap(gen), opts)
	for _, c := range configure {
		c(r)
	}
	Expect(r.SetupWithManager(mgr)).To(Succeed())
	stop := componenttest.RunManager(ctx, mgr)
	return &operatorHarness{reconciler: r, counter: counter, generator: gen, stop: stop}
}

// valuesGenerator renders what spec.values asks for:
//
//	configMaps: {name: {data..., annotations...}} and widgets: [names]
//	nestedIn: a namespace for a nested Component that nobody reconciles
//	unnamed: a number of ConfigMaps with a generateName, each invalid
//	random: the name of a ConfigMap whose data.value is new on each render,
//	        as a chart's randAlphaNum
//
// and fails with values.fail when set.
type valuesGenerator struct {
	mu    sync.Mutex
	calls int
}

// randomRenders numbers the renders of values.random across every
// generator of the suite, so that no two renders give one value.
var randomRenders atomic.Int64

// renders returns how many times the generator rendered.
func (g *valuesGenerator) renders() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

func (g *valuesGenerator) Generate(ctx context.Context, namespace, _ string, p manifests.Parameters) ([]client.Object, error) {
	g.mu.Lock()
	g.calls++
	g.mu.Unlock()
	values := p.ToUnstructured()
	if msg, ok := values["fail"].(string); ok {
		return nil, fmt.Errorf("template values.yaml:3: %s", msg)
	}
	if msg, ok := values["unreachable"].(string); ok {
		return nil, component.Retriable(fmt.Errorf("fetching chart: %s", msg), time.Minute)
	}
	var objects []client.Object
	cms, _ := values["configMaps"].(map[string]any)
	for name, spec := range cms {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
		cm.SetNamespace(namespace)
		cm.SetName(name)
		s, _ := spec.(map[string]any)
		if data, ok := s["data"].(map[string]any); ok {
			cm.Object["data"] = data
		}
		if ann, ok := s["annotations"].(map[string]any); ok {
			a := map[string]string{}
			for k, v := range ann {
				a[operator+"/"+k] = fmt.Sprint(v)
			}
			cm.SetAnnotations(a)
		}
		objects = append(objects, cm)
	}
	if name, ok := values["random"].(string); ok {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"data": map[string]any{"value": fmt.Sprintf("render %d", randomRenders.Add(1))}}}
		cm.SetNamespace(namespace)
		cm.SetName(name)
		objects = append(objects, cm)
	}
	unnamed, _ := values["unnamed"].(float64)
	for range int(unnamed) {
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
		cm.SetNamespace(namespace)
		cm.SetGenerateName("unnamed-")
		objects = append(objects, cm)
	}
	widgets, _ := values["widgets"].([]any)
	for _, w := range widgets {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("test.wavekit.dev/v1")
		u.SetKind("Widget")
		u.SetNamespace(namespace)
		u.SetName(fmt.Sprint(w))
		u.SetAnnotations(map[string]string{operator + "/status-hint": "has-ready-condition"})
		objects = append(objects, u)
	}
	if source, ok := values["copyFrom"].(string); ok {
		copied, err := copyConfigMap(ctx, namespace, source)
		if err != nil {
			return nil, err
		}
		objects = append(objects, copied)
	}
	if nested, ok := values["nestedIn"].(string); ok {
		// A Component of this kind in a namespace no test operator serves.
		inner := &unstructured.Unstructured{}
		inner.SetAPIVersion("wavekit.dev/v1alpha1")
		inner.SetKind("Component")
		inner.SetNamespace(nested)
		inner.SetName("inner")
		inner.Object["spec"] = map[string]any{"source": "nobody-serves-this"}
		objects = append(objects, inner)
	}
	if crd, ok := values["crdGroup"].(string); ok {
		objects = append(objects, gadgetCRD(crd))
	}
	return objects, nil
}

func gadgetCRD(group string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Gadget", ListKind: "GadgetList", Plural: "gadgets", Singular: "gadget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true),
				}},
			}},
		},
	}
}

func newComponent(ns, name string, values map[string]any) *v1alpha1.Component {
	c := &v1alpha1.Component{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ComponentSpec{Source: "test"}}
	setValues(c, values)
	return c
}

func setValues(c *v1alpha1.Component, values map[string]any) {
	raw, err := json.Marshal(values)
	Expect(err).NotTo(HaveOccurred())
	c.Spec.Values = &apiextensionsv1.JSON{Raw: raw}
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

func eventually(f any) AsyncAssertion {
	return Eventually(f).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond)
}

func getConfigMap(ctx context.Context, ns, name string) *corev1.ConfigMap {
	var cm corev1.ConfigMap
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cm)
	if apierrors.IsNotFound(err) {
		return nil
	}
	Expect(err).NotTo(HaveOccurred())
	return &cm
}

// setWidgetReady plays the Widget's controller once the Widget exists.
func setWidgetReady(ctx context.Context, ns, name string) {
	eventually(func() error {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("test.wavekit.dev/v1")
		u.SetKind("Widget")
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
			return err
		}
		if err := unstructured.SetNestedSlice(u.Object, []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "Test", "message": "set by the test", "lastTransitionTime": "2026-01-01T00:00:00Z",
		}}, "status", "conditions"); err != nil {
			return err
		}
		return env.Client.Status().Update(ctx, u)
	}).Should(Succeed())
}

func objectMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name}
}

// copyConfigMap reads a ConfigMap through the render context's reader and
// renders a copy of its data named "copy".
func copyConfigMap(ctx context.Context, namespace, name string) (client.Object, error) {
	reader, ok := manifests.ClientFrom(ctx)
	if !ok {
		return nil, fmt.Errorf("no reader in the render context")
	}
	var source corev1.ConfigMap
	if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &source); err != nil {
		return nil, fmt.Errorf("looking up ConfigMap %s/%s: %w", namespace, name, err)
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "copy"},
		Data:       source.Data,
	}, nil
}
