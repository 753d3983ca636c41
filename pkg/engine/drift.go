package engine

import (
	"encoding/json"
	"reflect"
	"sync"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// driftDetector decides whether a live object still holds what the applier
// applied. It compares the rendered fields with the live ones (fields the
// server or other controllers add are ignored) and remembers the last
// resourceVersion that matched, so an unchanged object costs one map lookup.
type driftDetector struct {
	mu      sync.Mutex
	matched map[manifests.ObjectKey]string // key → resourceVersion known to hold the desired fields
}

func newDriftDetector() *driftDetector {
	return &driftDetector{matched: map[manifests.ObjectKey]string{}}
}

// drifted reports whether live lacks or changed any field of want.
func (d *driftDetector) drifted(key manifests.ObjectKey, want, live map[string]any, liveVersion string) bool {
	d.mu.Lock()
	known := d.matched[key]
	d.mu.Unlock()
	if known != "" && known == liveVersion {
		return false
	}
	if !contains(normaliseJSON(live), normaliseJSON(want)) {
		return true
	}
	d.accept(key, liveVersion)
	return false
}

// accept records that the object at resourceVersion holds the desired fields.
func (d *driftDetector) accept(key manifests.ObjectKey, resourceVersion string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.matched[key] = resourceVersion
}

func (d *driftDetector) forget(key manifests.ObjectKey) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.matched, key)
}

// contains reports whether every field of want is in have with the same
// value. Lists must have the same length and match element by element.
func contains(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return len(w) == 0 && have == nil
		}
		for k, wv := range w {
			hv, found := h[k]
			if !found {
				if isEmpty(wv) {
					continue
				}
				return false
			}
			if !contains(hv, wv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok {
			return len(w) == 0 && have == nil
		}
		if len(h) != len(w) {
			return false
		}
		for i := range w {
			if !contains(h[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(have, want)
	}
}

// isEmpty is true for values the API server drops on write: null, "{}", "[]".
func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// normaliseJSON makes numbers comparable: after a JSON round trip int64 and
// float64 values are all float64.
func normaliseJSON(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return v
	}
	return out
}
