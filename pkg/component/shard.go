package component

import (
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/filter"
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

// componentEvents lets through the component events worth a reconcile
// (package filter).
func (r *core) componentEvents() predicate.Predicate {
	return filter.Events(r.name, r.opts.Selector)
}

func (r *core) selects(obj client.Object) bool {
	return shard.Selects(r.opts.Selector, obj)
}
