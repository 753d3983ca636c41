// Package component turns a custom resource type into a component operator:
// the Component interface, the Status every component embeds, and the
// controller-runtime reconciler.
package component
