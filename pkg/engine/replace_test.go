package engine_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var _ = Describe("update policy replace-on-immutable", func() {
	var (
		ctx context.Context
		h   *harness
		ns  string
	)
	BeforeEach(func() {
		ctx, ns, h = newSpec("replace")
	})

	// job renders a Job with replace-on-immutable, the given container
	// image and an extra label on the Job itself.
	job := func(image, label string) *batchv1.Job {
		return &batchv1.Job{
			TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "migrate", Labels: map[string]string{"tier": label},
				Annotations: annotations("update-policy", "replace-on-immutable")},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "migrate", Image: image}},
			}}},
		}
	}
	// applyUntilCreated applies until the Job exists with another UID than
	// old (the bare API server runs no Job controller, so the Job never
	// completes and a pass never reports Done).
	applyUntilCreated := func(obj *batchv1.Job, old types.UID) *batchv1.Job {
		GinkgoHelper()
		var live batchv1.Job
		Eventually(func(g Gomega) {
			_, err := h.apply(ctx, obj)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(obj), &live)).To(Succeed())
			g.Expect(live.UID).NotTo(Equal(old))
		}).WithTimeout(60 * time.Second).Should(Succeed())
		return &live
	}

	It("re-creates a Job whose template changed, with one delete and one create, and names spec.template", func() {
		first := applyUntilCreated(job("busybox:1", "a"), "")
		h.waitForCache(ctx)
		h.counter.Reset()

		res, err := h.apply(ctx, job("busybox:2", "a"))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Actions).To(Equal([]engine.ObjectAction{{
			Action: engine.ActionReplace, Object: manifests.ObjectKey{Group: "batch", Kind: "Job", Namespace: ns, Name: "migrate"},
			Detail: "field spec.template is immutable",
		}}))
		Expect(h.inventory[0].Status).To(Equal("re-creating, since field spec.template is immutable; waiting for the old object to be deleted"))

		second := applyUntilCreated(job("busybox:2", "a"), first.UID)
		Expect(second.Spec.Template.Spec.Containers[0].Image).To(Equal("busybox:2"))
		h.waitForCache(ctx)
		_, err = h.apply(ctx, job("busybox:2", "a"))
		Expect(err).NotTo(HaveOccurred())
		Expect(h.counter.Count("delete", "jobs")).To(Equal(1), h.counter.String())
		Expect(h.counter.Count("apply", "jobs")).To(Equal(2), "the apply the API server refused and the one that created the Job: "+h.counter.String())
		Expect(h.counter.Writes()).To(Equal(3), h.counter.String())
	})

	It("updates a Job in place when only its labels changed", func() {
		first := applyUntilCreated(job("busybox:1", "a"), "")
		h.waitForCache(ctx)
		h.counter.Reset()

		res, err := h.apply(ctx, job("busybox:1", "b"))
		Expect(err).NotTo(HaveOccurred())
		Expect(actionsOf(res)).To(Equal([]string{"Updated batch/Job " + ns + "/migrate"}))
		var live batchv1.Job
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(first), &live)).To(Succeed())
		Expect(live.UID).To(Equal(first.UID))
		Expect(live.Labels).To(HaveKeyWithValue("tier", "b"))
		Expect(h.counter.Count("delete", "jobs")).To(BeZero(), h.counter.String())
	})
})
