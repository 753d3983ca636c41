package engine

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/expiry"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
)

// Names that files of work in progress elsewhere (runonce.go) still use;
// they go once that work has landed and those files use the packages
// directly.

type condition struct{ status, reason, message string }

func conditionsOf(u *unstructured.Unstructured) map[string]condition {
	out := map[string]condition{}
	for t, c := range readiness.Conditions(u) {
		out[t] = condition{status: c.Status, reason: c.Reason, message: c.Message}
	}
	return out
}

func withReason(reason, message string) string { return readiness.WithReason(reason, message) }

// expiring is expiry.Map under the names endstates.go and runonce.go use.
type expiring[K comparable, V any] struct{ *expiry.Map[K, V] }

func newExpiring[K comparable, V any](ttl time.Duration, now func() time.Time) *expiring[K, V] {
	return &expiring[K, V]{expiry.New[K, V](ttl, now)}
}

func (e *expiring[K, V]) put(key K, value V) { e.Put(key, value) }

func (e *expiring[K, V]) get(key K) (V, bool) { return e.Get(key) }
