package localcloud_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The other workloads kstatus takes a shortcut for, on the real
// controllers: what wavekit concludes about them as their status moves.
var _ = Describe("workloads whose rollout waits for a person", func() {
	ctx := context.Background()

	It("calls a DaemonSet with OnDelete ready with its pods, and after an upgrade says they wait for a delete", func() {
		ns := newNamespace(ctx, "daemonset-ondelete")
		ds := &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agent"},
			Spec: appsv1.DaemonSetSpec{
				Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
				UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
				Template:       podTemplate("agent", "example.invalid/agent:1"),
			},
		}
		Expect(env.Client.Create(ctx, ds)).To(Succeed())
		eventually(func() string { return readinessOf(ctx, "DaemonSet", ns, "agent") }).Should(
			Equal("Current: All replicas scheduled as expected. Replicas: 3"))

		patch := client.MergeFrom(ds.DeepCopy())
		ds.Spec.Template.Spec.Containers[0].Image = "example.invalid/agent:2"
		Expect(env.Client.Patch(ctx, ds, patch)).To(Succeed())
		eventually(func() string { return readinessOf(ctx, "DaemonSet", ns, "agent") }).Should(
			Equal("Current: 3 of 3 pods wait for a delete to be updated (updateStrategy OnDelete)"))
	})

	It("calls a paused Deployment ready with the pods it has, and waits for the rollout once it is resumed", func() {
		ns := newNamespace(ctx, "deployment-paused")
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To(int32(2)),
				Paused:   true,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: podTemplate("web", "example.invalid/web:1"),
			},
		}
		Expect(env.Client.Create(ctx, d)).To(Succeed())
		eventually(func() string { return readinessOf(ctx, "Deployment", ns, "web") }).Should(
			Equal("Current: paused: its rollout waits for spec.paused to be false; updated: 0/2, ready: 0/0"))

		patch := client.MergeFrom(d.DeepCopy())
		d.Spec.Paused = false
		Expect(env.Client.Patch(ctx, d, patch)).To(Succeed())
		eventually(func() string { return readinessOf(ctx, "Deployment", ns, "web") }).Should(
			Equal("Current: Deployment is available. Replicas: 2"))
	})
})

// podTemplate is a pod template of one container of image, labelled app.
func podTemplate(app, image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: app, Image: image}}},
	}
}

// readinessOf is what wavekit concludes about the live apps/v1 object.
func readinessOf(ctx context.Context, kind, ns, name string) string {
	GinkgoHelper()
	live := &unstructured.Unstructured{}
	live.SetAPIVersion("apps/v1")
	live.SetKind(kind)
	Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, live)).To(Succeed())
	status, message := engine.Readiness(live, manifests.StatusHint{})
	return string(status) + ": " + message
}
