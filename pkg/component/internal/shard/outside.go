package shard

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// Outside returns label selectors whose union is every object selector
// leaves out: one a requirement, each the requirement's negation. The
// default shard's "!<operator>/shard" gives "<operator>/shard", which in an
// operator without shards matches nothing, so what lies outside costs a
// list of no items instead of a list of every component. It returns false
// for a selector whose negation no label selector can say (Gt, Lt).
func Outside(selector labels.Selector) ([]labels.Selector, bool) {
	requirements, selectable := selector.Requirements()
	if !selectable {
		return nil, false
	}
	out := make([]labels.Selector, 0, len(requirements))
	for _, r := range requirements {
		op, ok := negations[r.Operator()]
		if !ok {
			return nil, false
		}
		negated, err := labels.NewRequirement(r.Key(), op, r.Values().List())
		if err != nil {
			return nil, false
		}
		out = append(out, labels.NewSelector().Add(*negated))
	}
	return out, true
}

// negations maps a requirement's operator to the one that matches exactly
// the objects it does not: "a!=x" matches objects without label a, as the
// negation of "a=x" must.
var negations = map[selection.Operator]selection.Operator{
	selection.Exists:       selection.DoesNotExist,
	selection.DoesNotExist: selection.Exists,
	selection.Equals:       selection.NotEquals,
	selection.DoubleEquals: selection.NotEquals,
	selection.NotEquals:    selection.Equals,
	selection.In:           selection.NotIn,
	selection.NotIn:        selection.In,
}
