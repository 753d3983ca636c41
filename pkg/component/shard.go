package component

import (
	"maps"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/shard"
)

// LabelShard is the suffix of the label "<operator name>/shard" that assigns
// a component to one shard of an operator: the replicas of that shard
// reconcile it, and no other.
const LabelShard = shard.Label

// ShardSelector selects the components of the shard key of the operator
// named operatorName: those whose shard label equals key, or, for the empty
// key, those without the label (so an unsharded operator keeps every
// component that no shard claims).
func ShardSelector(operatorName, key string) (labels.Selector, error) {
	return shard.Selector(operatorName, key)
}

// ShardLabels are the DependentLabels of the shard key of the operator
// named operatorName: its shard label, none for the unsharded key "" (which
// caches the objects of every shard, as an operator without shards does).
func ShardLabels(operatorName, key string) map[string]string {
	return shard.Labels(operatorName, key)
}

// CacheFor returns cache options that hold only the components of obj's
// type that selector matches: give them to the manager (ctrl.Options.Cache,
// merged with any of your own) together with ReconcilerOptions.Selector, so
// that a shard neither caches nor watches the others' components.
func CacheFor(obj client.Object, selector labels.Selector, base cache.Options) cache.Options {
	return shard.CacheFor(obj, selector, base)
}

// componentEvents lets through the component events worth a reconcile:
// spec changes, deletion and requests for a pass (requestChanged) of the
// components the selector matches, and any change of labels that makes a
// component match or stop matching (the one shard forgets it, the other
// takes it over).
func (r *core) componentEvents() predicate.Predicate {
	selected := predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return r.selects(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return r.selects(e.ObjectNew) },
		DeleteFunc:  func(event.DeleteEvent) bool { return true }, // to forget it
		GenericFunc: func(e event.GenericEvent) bool { return r.selects(e.Object) },
	}
	selectionChanged := predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		UpdateFunc:  func(e event.UpdateEvent) bool { return r.selects(e.ObjectOld) != r.selects(e.ObjectNew) },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
	return predicate.Or(selectionChanged, predicate.And(selected, predicate.Or(specOrDeletionChanged(), r.requestChanged())))
}

func (r *core) selects(obj client.Object) bool {
	return shard.Selects(r.opts.Selector, obj)
}

// specOrDeletionChanged lets through creations, deletions, spec changes
// (generation), the start of deletion and annotation edits during it; not
// other status or metadata edits.
func specOrDeletionChanged() predicate.Predicate {
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
