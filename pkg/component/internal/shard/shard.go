package shard

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Label is the suffix of the label "<operator name>/shard" that assigns
// a component to one shard of an operator: the replicas of that shard
// reconcile it, and no other.
const Label = "shard"

// Selector selects the components of the shard key of the operator
// named operatorName: those whose shard label equals key, or, for the empty
// key, those without the label (so an unsharded operator keeps every
// component that no shard claims).
func Selector(operatorName, key string) (labels.Selector, error) {
	label := manifests.Key(operatorName, Label)
	if key == "" {
		req, err := labels.NewRequirement(label, selection.DoesNotExist, nil)
		if err != nil {
			return nil, fmt.Errorf("shard label %s: %w", label, err)
		}
		return labels.NewSelector().Add(*req), nil
	}
	if errs := validation.IsValidLabelValue(key); len(errs) > 0 {
		return nil, fmt.Errorf("shard %q is not a label value: %s", key, errs[0])
	}
	req, err := labels.NewRequirement(label, selection.Equals, []string{key})
	if err != nil {
		return nil, fmt.Errorf("shard label %s: %w", label, err)
	}
	return labels.NewSelector().Add(*req), nil
}

// Labels are the DependentLabels of the shard key of the operator
// named operatorName: its shard label, none for the unsharded key "" (which
// caches the objects of every shard, as an operator without shards does).
func Labels(operatorName, key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{manifests.Key(operatorName, Label): key}
}

// CacheFor returns cache options that hold only the components of obj's
// type that selector matches: give them to the manager (ctrl.Options.Cache,
// merged with any of your own) together with the reconciler's selector, so
// that a shard neither caches nor watches the others' components.
func CacheFor(obj client.Object, selector labels.Selector, base cache.Options) cache.Options {
	byObject := map[client.Object]cache.ByObject{}
	for o, b := range base.ByObject {
		byObject[o] = b
	}
	byObject[obj] = cache.ByObject{Label: selector}
	base.ByObject = byObject
	return base
}

// Selects tells whether selector, nil for every component, selects obj.
func Selects(selector labels.Selector, obj client.Object) bool {
	return selector == nil || selector.Matches(labels.Set(obj.GetLabels()))
}
