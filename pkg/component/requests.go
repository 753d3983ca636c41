package component

import (
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// requested returns the value of the component annotation
// <operator name>/suffix.
func (p *pass) requested(suffix string) string {
	return requested(p.component, p.r.name, suffix)
}

// requested returns the value of c's annotation <operator>/suffix.
func requested(c Component, operator, suffix string) string {
	return c.GetAnnotations()[manifests.Key(operator, suffix)]
}

// forceRequested tells whether the component asks for a forced pass that
// no pass has handled yet.
func (p *pass) forceRequested() bool {
	value := p.requested(AnnotationForce)
	return value != "" && value != p.component.GetStatus().LastHandledForceAt
}

// newValue tells whether an annotation got a new value, not merely removed.
func newValue(before, after string) bool { return after != "" && after != before }

// requestChanged lets through a component update that sets a new value of
// AnnotationReconcileRequestedAt or AnnotationForce; not other annotation
// edits.
func (r *core) requestChanged() predicate.Predicate {
	reconcileKey := manifests.Key(r.name, AnnotationReconcileRequestedAt)
	forceKey := manifests.Key(r.name, AnnotationForce)
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, after := e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations()
			return newValue(before[reconcileKey], after[reconcileKey]) || newValue(before[forceKey], after[forceKey])
		},
	}
}
