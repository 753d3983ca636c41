package filter

import (
	"maps"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/shard"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Events lets through the events of components worth a Reconcile, for the
// operator named operator whose shard selector is selector: spec changes,
// deletion and requests for a pass (Requests) of the components the
// selector matches, and any change of labels that makes a component match
// or stop matching (the one shard forgets it, the other takes it over).
func Events(operator string, selector labels.Selector) predicate.Predicate {
	selected := predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return shard.Selects(selector, e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return shard.Selects(selector, e.ObjectNew) },
		DeleteFunc:  func(event.DeleteEvent) bool { return true }, // to forget it
		GenericFunc: func(e event.GenericEvent) bool { return shard.Selects(selector, e.Object) },
	}
	selectionChanged := predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return shard.Selects(selector, e.ObjectOld) != shard.Selects(selector, e.ObjectNew)
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
	return predicate.Or(selectionChanged, predicate.And(selected, predicate.Or(SpecOrDeletion(), Requests(operator))))
}

// SpecOrDeletion lets through creations, deletions, spec changes
// (generation), the start of deletion and annotation edits during it; not
// other status or metadata edits.
func SpecOrDeletion() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
				return true
			}
			if e.ObjectNew.GetDeletionTimestamp() != nil && !maps.Equal(e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations()) {
				return true // e.g. delete-policy: orphan, to end a deletion that waits for a lost target
			}
			return (e.ObjectOld.GetDeletionTimestamp() == nil) != (e.ObjectNew.GetDeletionTimestamp() == nil)
		},
	}
}

// Requests lets through a component update that sets a new value of the
// annotation <operator>/reconcile-requested-at or <operator>/force; not
// other annotation edits.
func Requests(operator string) predicate.Predicate {
	reconcileKey := manifests.Key(operator, api.AnnotationReconcileRequestedAt)
	forceKey := manifests.Key(operator, api.AnnotationForce)
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

// newValue tells whether an annotation got a new value, not merely removed.
func newValue(before, after string) bool { return after != "" && after != before }
