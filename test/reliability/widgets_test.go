package reliability_test

import (
	"context"
	"fmt"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The test plays the Widgets' controller: there is none on the test API server.

func widgetName(wave int) string { return fmt.Sprintf("w%d-widget", wave) }

func getWidget(ctx context.Context, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("test.wavekit.dev/v1")
	u.SetKind("Widget")
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u)).To(Succeed())
	return u
}

// setWidgetReady gives the Widget a Ready condition once it exists.
func setWidgetReady(ctx context.Context, ns, name string) {
	eventually(func(g Gomega) {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("test.wavekit.dev/v1")
		u.SetKind("Widget")
		g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u)).To(Succeed())
		g.Expect(unstructured.SetNestedSlice(u.Object, []any{map[string]any{
			"type": "Ready", "status": "True", "reason": "Test", "message": "set by the test", "lastTransitionTime": "2026-01-01T00:00:00Z",
		}}, "status", "conditions")).To(Succeed())
		g.Expect(env.Client.Status().Update(ctx, u)).To(Succeed())
	}).Should(Succeed())
}

// releaseWidget removes the Widget's finalizer once it is being deleted.
func releaseWidget(ctx context.Context, ns, name string) {
	eventually(func(g Gomega) {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("test.wavekit.dev/v1")
		u.SetKind("Widget")
		g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u)).To(Succeed())
		g.Expect(u.GetDeletionTimestamp()).NotTo(BeNil(), "%s is not being deleted yet", name)
		u.SetFinalizers(nil)
		g.Expect(env.Client.Update(ctx, u)).To(Succeed())
	}).Should(Succeed())
}
