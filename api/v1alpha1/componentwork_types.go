package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// WorkRemoval says what the agent of a pulled cluster does with the
// Component a ComponentWork describes once the cluster left its set. A
// ComponentWork that is deleted without one (removal policy Orphan, or by
// hand) releases the Component: it stays on the cluster, with its objects,
// as a Component of its own that the agent no longer writes.
// +kubebuilder:validation:Enum=Delete
type WorkRemoval string

// WorkRemovalDelete deletes the Component on the cluster, and with it (its
// finalizer) the objects it applied there.
const WorkRemovalDelete WorkRemoval = "Delete"

// Conditions of a ComponentWork besides the Component's own (Ready,
// Reconciling, Stalled), which the agent copies.
const (
	// WorkConditionRemoved is True once the agent carried out
	// spec.removal: the Component on the cluster is gone.
	WorkConditionRemoved = "Removed"
)

// ComponentWorkSpec is what the agent of one pulled cluster runs: one
// Component, written by a ComponentSet on the hub into the cluster's own
// namespace there.
type ComponentWorkSpec struct {
	// Namespace and Name of the Component on the cluster.
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// Labels of the Component on the cluster.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Component is the Component's spec. The agent renders it on the
	// cluster, from a source the cluster reaches: no rendered object is
	// stored on the hub.
	Component ComponentSpec `json:"component"`
	// Removal, set by the hub when the cluster left the set (or the set is
	// deleted), asks the agent to delete the Component and its objects; the
	// agent says it is done with the condition Removed, and the hub then
	// deletes the ComponentWork.
	// +optional
	Removal WorkRemoval `json:"removal,omitempty"`
}

// WorkInventory summarizes the Component's inventory on the cluster.
type WorkInventory struct {
	// Objects counts the objects the Component applied.
	// +optional
	Objects int32 `json:"objects,omitempty"`
	// Ready counts those found ready at the last pass.
	// +optional
	Ready int32 `json:"ready,omitempty"`
}

// ComponentWorkStatus is what the agent reports of the Component on its
// cluster, with generations translated to the ComponentWork's own: what a
// ComponentSet's cluster waves gate on.
type ComponentWorkStatus struct {
	// ObservedGeneration is the ComponentWork generation whose spec the
	// Component on the cluster was last reconciled at.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions are the Component's (Ready, Reconciling, Stalled), with
	// observedGeneration the ComponentWork's generation they describe, and
	// Removed once spec.removal is done.
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// State is the Component's state.
	// +optional
	State component.State `json:"state,omitempty"`
	// Attempt is the Component's attempt at its current render, its
	// generation the ComponentWork's.
	// +optional
	Attempt *component.Attempt `json:"attempt,omitempty"`
	// Inventory summarizes what the Component applied on the cluster.
	// +optional
	Inventory WorkInventory `json:"inventory,omitempty"`
	// RenderDigest is the digest of the render the Component applied.
	// +optional
	RenderDigest string `json:"renderDigest,omitempty"`
	// AgentVersion is the version of the agent that wrote this status.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	AgentVersion string `json:"agentVersion,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Component",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Objects",type=integer,JSONPath=`.status.inventory.objects`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ComponentWork is the Component a ComponentSet places on a pulled cluster:
// it lives on the hub, in the cluster's own namespace, which only that
// cluster's agent reads; the agent runs the Component on its cluster and
// writes back, to the status only, what the set's cluster waves gate on.
type ComponentWork struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ComponentWorkSpec   `json:"spec,omitempty"`
	Status ComponentWorkStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ComponentWorkList is a list of ComponentWorks.
type ComponentWorkList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ComponentWork `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(GroupVersion, &ComponentWork{}, &ComponentWorkList{})
		return nil
	})
}
