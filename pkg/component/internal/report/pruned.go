package report

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
)

// A CRD generated before an upgrade of the framework may lack status fields
// the framework now writes (attempt, history, lastGoodRender): the API
// server prunes them from every status write, the reconciler reads the
// status back without them, finds it differs from what it computes, and
// writes again, once per reconcile, for ever. Pruned notices what a
// write dropped (what was written is not what was read back), says so once,
// and lets Recorder.WriteStatus leave out a write whose only difference is what the
// CRD drops.
type Pruned struct {
	mu    sync.Mutex
	paths []string // dot-separated paths under status, sorted
}

// learn records the paths a status write dropped and reports the ones new.
func (p *Pruned) learn(paths []string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var fresh []string
	for _, path := range paths {
		if !slices.Contains(p.paths, path) {
			p.paths = append(p.paths, path)
			fresh = append(fresh, path)
		}
	}
	sort.Strings(p.paths)
	return fresh
}

// known returns the paths the CRD is known to drop.
func (p *Pruned) known() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.paths)
}

// Drops tells whether the CRD is known to drop the status field at path
// (dot-separated, under status), or an object that holds it.
func (p *Pruned) Drops(path string) bool {
	for _, known := range p.known() {
		if path == known || strings.HasPrefix(path, known+".") {
			return true
		}
	}
	return false
}

// sameButPruned tells whether status differs from stored only in fields the
// CRD drops: writing it would store nothing new.
func (p *Pruned) sameButPruned(status, stored *api.Status) bool {
	paths := p.known()
	if len(paths) == 0 {
		return false
	}
	return reflect.DeepEqual(withoutPaths(jsonMap(status), paths), withoutPaths(jsonMap(stored), paths))
}

// jsonMap is v as JSON decoded into a map: what the API server sees.
func jsonMap(v any) map[string]any {
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil
	}
	return out
}

// droppedPaths lists the paths of fields that sent has and stored lacks,
// looking into the objects both have (not into lists).
func droppedPaths(sent, stored map[string]any, prefix string) []string {
	var out []string
	for key, value := range sent {
		have, ok := stored[key]
		switch {
		case !ok:
			out = append(out, prefix+key)
		case isMap(value) && isMap(have):
			out = append(out, droppedPaths(value.(map[string]any), have.(map[string]any), prefix+key+".")...)
		}
	}
	sort.Strings(out)
	return out
}

func isMap(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// withoutPaths is m without the fields at paths.
func withoutPaths(m map[string]any, paths []string) map[string]any {
	for _, path := range paths {
		parts := strings.Split(path, ".")
		parent := m
		for _, part := range parts[:len(parts)-1] {
			child, ok := parent[part].(map[string]any)
			if !ok {
				parent = nil
				break
			}
			parent = child
		}
		if parent != nil {
			delete(parent, parts[len(parts)-1])
		}
	}
	return m
}
