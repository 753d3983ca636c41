package localcloud

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// StorageClassName is the name of the default StorageClass, as in kind.
const StorageClassName = "standard"

// Provisioner is the StorageClass's provisioner: the PersistentVolumes it
// creates carry it in annotation ProvisionedByAnnotation.
const Provisioner = "wavekit.dev/local-volume"

// defaultClassAnnotation makes a StorageClass the default one.
const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// StorageClass returns the default StorageClass whose claims the provisioner
// binds: volumes bind at once (Immediate), and are deleted with their claim.
func StorageClass() *storagev1.StorageClass {
	reclaim := corev1.PersistentVolumeReclaimDelete
	binding := storagev1.VolumeBindingImmediate
	expand := true
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        StorageClassName,
			Annotations: map[string]string{defaultClassAnnotation: "true"},
		},
		Provisioner:          Provisioner,
		ReclaimPolicy:        &reclaim,
		VolumeBindingMode:    &binding,
		AllowVolumeExpansion: &expand,
	}
}

// EnsureStorageClass creates the default StorageClass unless a StorageClass
// of its name exists (which it then leaves as it is).
func EnsureStorageClass(ctx context.Context, c client.Client) error {
	if err := c.Create(ctx, StorageClass()); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("creating StorageClass %s of the local cluster: %w", StorageClassName, err)
	}
	return nil
}
