package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// ComponentSpec says which source to install and with which values.
type ComponentSpec struct {
	// Source names one of the sources the operator serves (its --source flag).
	// +kubebuilder:validation:MinLength=1
	Source string `json:"source"`
	// Values are passed to the source as parameters (Helm values, template data).
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Values *apiextensionsv1.JSON `json:"values,omitempty"`
	// Namespace is where the objects go; defaults to the Component's namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Name is the release name; defaults to the Component's name.
	// +optional
	Name string `json:"name,omitempty"`
	// KubeConfig points to a Secret with a kubeconfig of a remote target cluster.
	// +optional
	KubeConfig *SecretKeyReference `json:"kubeConfig,omitempty"`
	// ServiceAccountName names a service account of the Component's namespace
	// that every read and write of the target is made as.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// Suspend stops applying; deletion still works.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
	// Policies are defaults for objects that carry no policy annotation.
	// +optional
	Policies Policies `json:"policies,omitempty"`
	// Intervals tune requeue, retry, timeout and reapply.
	// +optional
	Intervals Intervals `json:"intervals,omitempty"`
	// AdditionalManagedTypes are types whose foreign instances block deletion,
	// besides the component's own CRDs and APIServices.
	// +optional
	AdditionalManagedTypes []manifests.TypeInfo `json:"additionalManagedTypes,omitempty"`
}

// SecretKeyReference names a key of a Secret in the Component's namespace.
type SecretKeyReference struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Key defaults to "value".
	// +optional
	Key string `json:"key,omitempty"`
}

// Policies are defaults for the objects of a component.
type Policies struct {
	// +kubebuilder:validation:Enum=default;replace;ssa-merge;ssa-override;recreate
	// +optional
	Update manifests.UpdatePolicy `json:"update,omitempty"`
	// +kubebuilder:validation:Enum=default;delete;orphan;orphan-on-apply;orphan-on-delete
	// +optional
	Delete manifests.DeletePolicy `json:"delete,omitempty"`
	// +kubebuilder:validation:Enum=never;if-unowned;always
	// +optional
	Adoption manifests.AdoptionPolicy `json:"adoption,omitempty"`
	// Namespace says whether a namespace the objects need, and that neither
	// the source nor the cluster has, is created (create, the default: it is
	// recorded in the inventory and never deleted with the Component) or
	// refused (do-not-create: Ready=False names the object and the namespace).
	// +kubebuilder:validation:Enum=create;do-not-create
	// +optional
	Namespace manifests.NamespacePolicy `json:"namespace,omitempty"`
}

// Intervals tune how often the operator looks again.
type Intervals struct {
	// +optional
	Requeue *metav1.Duration `json:"requeue,omitempty"`
	// +optional
	Retry *metav1.Duration `json:"retry,omitempty"`
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// +optional
	Reapply *metav1.Duration `json:"reapply,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Component is one installation of a source served by the reference operator.
type Component struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ComponentSpec    `json:"spec,omitempty"`
	Status component.Status `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ComponentList is a list of Components.
type ComponentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Component `json:"items"`
}
