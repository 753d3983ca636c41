// Package operator is wavekit's reference operator: it serves kind Component
// (wavekit.dev/v1alpha1) with the sources (Helm charts, kustomizations or
// template folders) it is given at start-up, and reconciles only the
// Components whose spec.source it serves.
package operator
