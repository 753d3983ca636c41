package filter_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/filter"
)

func withMeta(generation int64, annotations, labelSet map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Name: "c", Namespace: "ns", Generation: generation, Annotations: annotations, Labels: labelSet}}
}

// TestEvents: which updates of a component start a Reconcile.
func TestEvents(t *testing.T) {
	const op = "test.wavekit.dev"
	selector := labels.SelectorFromSet(labels.Set{op + "/shard": "a"})
	inShard := map[string]string{op + "/shard": "a"}
	otherShard := map[string]string{op + "/shard": "b"}
	request := func(v string) map[string]string { return map[string]string{op + "/reconcile-requested-at": v} }
	for _, tc := range []struct {
		name     string
		old, new *metav1.PartialObjectMetadata
		want     bool
	}{
		{"a spec change", withMeta(1, nil, inShard), withMeta(2, nil, inShard), true},
		{"a status or label edit alone", withMeta(1, nil, inShard), withMeta(1, nil, map[string]string{op + "/shard": "a", "x": "y"}), false},
		{"a new request", withMeta(1, request("1"), inShard), withMeta(1, request("2"), inShard), true},
		{"a request removed", withMeta(1, request("1"), inShard), withMeta(1, nil, inShard), false},
		{"another annotation", withMeta(1, nil, inShard), withMeta(1, map[string]string{"x": "y"}, inShard), false},
		{"into this shard", withMeta(1, nil, otherShard), withMeta(1, nil, inShard), true},
		{"out of this shard", withMeta(1, nil, inShard), withMeta(1, nil, otherShard), true},
		{"a spec change in another shard", withMeta(1, nil, otherShard), withMeta(2, nil, otherShard), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := filter.Events(op, selector).Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new})
			if got != tc.want {
				t.Errorf("Events lets the update through: %v, want %v", got, tc.want)
			}
		})
	}
}
