package engine

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/expiry"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/live"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Names that files of work in progress elsewhere (runonce.go, deletehooks.go)
// still use;
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

// liveObjects is live.Objects with the name of Get that runonce.go uses.
type liveObjects struct{ *live.Objects }

func newLiveObjects(reader LiveReader, direct client.Reader, now func() time.Time) *liveObjects {
	return &liveObjects{live.New(reader, direct, now)}
}

func (l *liveObjects) get(ctx context.Context, gvk schema.GroupVersionKind, key manifests.ObjectKey) (*unstructured.Unstructured, error) {
	return l.Get(ctx, gvk, key)
}

func keyOf(obj client.Object) manifests.ObjectKey { return live.KeyOf(obj) }

// The failures' helpers under the names runonce.go and deletehooks.go use.

const (
	wordingHookFailed = api.WordingHookFailed
	wordingHookDelete = api.WordingHookDelete
)

func objectError(action Action, key manifests.ObjectKey, err error) error {
	return api.StepError(action, key, err)
}

func wordedError(action Action, wording string, key manifests.ObjectKey, err error) error {
	return api.WordedError(action, wording, key, err)
}

func asStep(action Action, key manifests.ObjectKey, err error) error {
	return api.AsStep(action, key, err)
}
