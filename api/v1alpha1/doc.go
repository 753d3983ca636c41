// Package v1alpha1 holds the API of wavekit's reference operator: kind
// Component in group wavekit.dev.
//
// +kubebuilder:object:generate=true
// +groupName=wavekit.dev
package v1alpha1
