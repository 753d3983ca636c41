package localcloud

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProvisionedByAnnotation names, on a PersistentVolume, the provisioner that
// created it; kube-controller-manager leaves the deletion of a released
// volume to that provisioner.
const ProvisionedByAnnotation = "pv.kubernetes.io/provisioned-by"

// VolumeRoot is the directory that the hostPath of every provisioned volume
// is in. Nothing is created there: the Nodes are simulated.
const VolumeRoot = "/tmp/wavekit-volumes"

// defaultCapacity is the size of a volume whose claim requests none.
var defaultCapacity = resource.MustParse("1Gi")

// volumeName is the name of the PersistentVolume provisioned for claim, as
// the external provisioners name theirs.
func volumeName(claim *corev1.PersistentVolumeClaim) string {
	return "pvc-" + string(claim.UID)
}

// volumeFor returns the PersistentVolume that binds claim: its size, access
// modes and volume mode, the class's reclaim policy and mount options, and a
// claimRef that kube-controller-manager completes the binding from.
func volumeFor(claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass) *corev1.PersistentVolume {
	capacity, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		capacity = defaultCapacity
	}
	reclaim := corev1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	name := volumeName(claim)
	hostPathType := corev1.HostPathDirectoryOrCreate
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{ProvisionedByAnnotation: Provisioner},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: capacity},
			AccessModes:                   claim.Spec.AccessModes,
			VolumeMode:                    claim.Spec.VolumeMode,
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              class.Name,
			MountOptions:                  class.MountOptions,
			ClaimRef: &corev1.ObjectReference{
				APIVersion: "v1", Kind: "PersistentVolumeClaim",
				Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: path.Join(VolumeRoot, name), Type: &hostPathType},
			},
		},
	}
}
