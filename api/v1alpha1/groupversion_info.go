// Package v1alpha1 holds the API of wavekit's reference operator: kind
// Component in group wavekit.dev.
//
// +kubebuilder:object:generate=true
// +groupName=wavekit.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// GroupVersion is the group and version of the reference operator's API.
var GroupVersion = schema.GroupVersion{Group: "wavekit.dev", Version: "v1alpha1"}

var (
	// SchemeBuilder registers the types of this package.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds the types of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
