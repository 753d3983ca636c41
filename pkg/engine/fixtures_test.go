package engine_test

import (
	"context"
	"fmt"
	"sync/atomic"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

const prefix = "test.wavekit.dev"

var namespaceCounter atomic.Int64

// newNamespace creates a namespace of its own for one test.
func newNamespace(ctx context.Context) string {
	name := fmt.Sprintf("t%d", namespaceCounter.Add(1))
	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	return name
}

// annotations builds wavekit annotations from suffix/value pairs.
func annotations(pairs ...string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[manifests.Key(prefix, pairs[i])] = pairs[i+1]
	}
	return out
}

func configMap(namespace, name string, data map[string]string, pairs ...string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Annotations: annotations(pairs...)},
		Data:       data,
	}
}

// widget is an instance of the test CRD; with the status hint
// has-ready-condition it is ready only once a test sets its Ready condition.
func widget(namespace, name string, pairs ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("test.wavekit.dev/v1")
	u.SetKind("Widget")
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetAnnotations(annotations(pairs...))
	Expect(unstructured.SetNestedField(u.Object, "blue", "spec", "colour")).To(Succeed())
	return u
}

// gadgetCRD defines a namespaced type that only the component serves.
func gadgetCRD(group string, pairs ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "gadgets." + group},
		"spec": map[string]any{
			"group": group,
			"names": map[string]any{"kind": "Gadget", "listKind": "GadgetList", "plural": "gadgets", "singular": "gadget"},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
			}},
		},
	}}
	u.SetAnnotations(annotations(pairs...))
	return u
}

func gadget(group, namespace, name string, pairs ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(group + "/v1")
	u.SetKind("Gadget")
	u.SetNamespace(namespace)
	u.SetName(name)
	u.SetAnnotations(annotations(pairs...))
	return u
}

// toObjects accepts client.Objects and slices of them.
func toObjects(in []any) []client.Object {
	var out []client.Object
	for _, o := range in {
		switch t := o.(type) {
		case client.Object:
			out = append(out, t)
		case []client.Object:
			out = append(out, t...)
		default:
			panic(fmt.Sprintf("toObjects: unexpected %T", o))
		}
	}
	return out
}

// get reads an object directly from the API server; nil when it does not exist.
func get(ctx context.Context, apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, u)
	if apierrors.IsNotFound(err) {
		return nil
	}
	Expect(err).NotTo(HaveOccurred())
	return u
}

func getConfigMap(ctx context.Context, namespace, name string) *corev1.ConfigMap {
	var cm corev1.ConfigMap
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &cm)
	if apierrors.IsNotFound(err) {
		return nil
	}
	Expect(err).NotTo(HaveOccurred())
	return &cm
}

// setReady plays the controller of a Widget or Gadget: it sets a Ready condition.
func setReady(ctx context.Context, u *unstructured.Unstructured, ready bool) {
	live := get(ctx, u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName())
	Expect(live).NotTo(BeNil())
	status := "False"
	if ready {
		status = "True"
	}
	Expect(unstructured.SetNestedSlice(live.Object, []any{map[string]any{
		"type": "Ready", "status": status, "reason": "Test", "message": "set by the test",
		"lastTransitionTime": "2026-01-01T00:00:00Z",
	}}, "status", "conditions")).To(Succeed())
	Expect(env.Client.Status().Update(ctx, live)).To(Succeed())
}

func itemKeys(items []manifests.InventoryItem) []string {
	out := make([]string, 0, len(items))
	for _, i := range items {
		out = append(out, i.String())
	}
	return out
}

var errSaveFailed = fmt.Errorf("status write refused")

// actionsOf lists a pass's actions as "Created KEY", in the order taken.
func actionsOf(res engine.Result) []string {
	out := make([]string, 0, len(res.Actions))
	for _, a := range res.Actions {
		out = append(out, a.String())
	}
	return out
}
