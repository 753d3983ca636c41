package localcloud_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/localcloud"
)

var _ = Describe("storage", func() {
	ctx := context.Background()

	It("binds a claim of no class to a volume of the default class, and deletes the volume with the claim", func() {
		ns := newNamespace(ctx, "storage-default")
		claim := newClaim(ns, "data", nil)
		Expect(env.Client.Create(ctx, claim)).To(Succeed())

		volume := expectBound(ctx, claim)
		Expect(volume.Spec.StorageClassName).To(Equal(localcloud.StorageClassName))
		Expect(volume.Spec.PersistentVolumeReclaimPolicy).To(Equal(corev1.PersistentVolumeReclaimDelete))
		Expect(volume.Spec.Capacity.Storage().String()).To(Equal("3Gi"))
		Expect(volume.Annotations).To(HaveKeyWithValue(localcloud.ProvisionedByAnnotation, localcloud.Provisioner))

		Expect(env.Client.Delete(ctx, claim)).To(Succeed())
		eventually(func() bool {
			return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(volume), volume))
		}).Should(BeTrue(), "the volume of a deleted claim with reclaim policy Delete stays")
	})

	It("keeps the volume of a deleted claim of a class with reclaim policy Retain, Released", func() {
		retain := corev1.PersistentVolumeReclaimRetain
		createClass(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "retained"}, Provisioner: localcloud.Provisioner, ReclaimPolicy: &retain})
		ns := newNamespace(ctx, "storage-retain")
		claim := newClaim(ns, "data", ptr.To("retained"))
		Expect(env.Client.Create(ctx, claim)).To(Succeed())

		volume := expectBound(ctx, claim)
		Expect(volume.Spec.PersistentVolumeReclaimPolicy).To(Equal(corev1.PersistentVolumeReclaimRetain))
		Expect(env.Client.Delete(ctx, claim)).To(Succeed())
		eventually(func() (corev1.PersistentVolumePhase, error) {
			err := env.Client.Get(ctx, client.ObjectKeyFromObject(volume), volume)
			return volume.Status.Phase, err
		}).Should(Equal(corev1.VolumeReleased))
		Expect(env.Client.Delete(ctx, volume)).To(Succeed())
	})

	It("binds a claim of a class that waits for its first consumer once a pod of it is scheduled, and runs the pod", func() {
		late := storagev1.VolumeBindingWaitForFirstConsumer
		createClass(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "late"}, Provisioner: localcloud.Provisioner, VolumeBindingMode: &late})
		ns := newNamespace(ctx, "storage-late")
		claim := newClaim(ns, "data", ptr.To("late"))
		Expect(env.Client.Create(ctx, claim)).To(Succeed())
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Image: "example.invalid/app:1",
					VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
				Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}},
			},
		}
		Expect(env.Client.Create(ctx, pod)).To(Succeed())

		expectBound(ctx, claim)
		Expect(claim.Annotations).To(HaveKey("volume.kubernetes.io/selected-node"))
		eventually(func() (string, error) {
			err := env.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod)
			return podState(pod, ""), err
		}).Should(Equal("Running/Ready"))
	})

	It("leaves a claim of another provisioner's class alone", func() {
		createClass(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere"}, Provisioner: "example.com/elsewhere"})
		ns := newNamespace(ctx, "storage-other")
		claim := newClaim(ns, "data", ptr.To("elsewhere"))
		Expect(env.Client.Create(ctx, claim)).To(Succeed())
		// kube-controller-manager names the provisioner it waits for; by
		// then the provisioner has seen the claim too.
		eventually(func() (map[string]string, error) {
			err := env.Client.Get(ctx, client.ObjectKeyFromObject(claim), claim)
			return claim.Annotations, err
		}).Should(HaveKeyWithValue("volume.kubernetes.io/storage-provisioner", "example.com/elsewhere"))
		Consistently(func() (corev1.PersistentVolumeClaimPhase, error) {
			err := env.Client.Get(ctx, client.ObjectKeyFromObject(claim), claim)
			return claim.Status.Phase, err
		}).WithTimeout(2 * time.Second).Should(Equal(corev1.ClaimPending))
	})
})

// createClass creates class for the current spec.
func createClass(ctx context.Context, class *storagev1.StorageClass) {
	GinkgoHelper()
	Expect(env.Client.Create(ctx, class)).To(Succeed())
	DeferCleanup(func() { Expect(env.Client.Delete(ctx, class)).To(Succeed()) })
}

// newClaim is a claim of 3Gi of class in ns.
func newClaim(ns, name string, class *string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("3Gi")},
			},
		},
	}
}

// expectBound waits until claim is Bound and returns its volume, which must
// be bound to it.
func expectBound(ctx context.Context, claim *corev1.PersistentVolumeClaim) *corev1.PersistentVolume {
	GinkgoHelper()
	eventually(func() (corev1.PersistentVolumeClaimPhase, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(claim), claim)
		return claim.Status.Phase, err
	}).Should(Equal(corev1.ClaimBound))
	var volume corev1.PersistentVolume
	eventually(func() (corev1.PersistentVolumePhase, error) {
		err := env.Client.Get(ctx, client.ObjectKey{Name: claim.Spec.VolumeName}, &volume)
		return volume.Status.Phase, err
	}).Should(Equal(corev1.VolumeBound))
	Expect(volume.Spec.ClaimRef).NotTo(BeNil())
	Expect(volume.Spec.ClaimRef.UID).To(Equal(claim.UID))
	return &volume
}
