package engine

import (
	"context"
	"slices"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// driftedFields returns the fields of live that drifted from d's stored
// form (decide says, by the drift mode, whether they are corrected). A
// drift found with a stored form that is not exact yet is checked once more
// against the API server's answer to a dry run of the write, so that what
// the API server stores differently is never mistaken for a drift.
func (s *ownerScope) driftedFields(ctx context.Context, d *desired, live *unstructured.Unstructured) []string {
	want, exact := s.a.stored.of(d)
	paths := s.track.drifted(d.key, want, live.Object, live.GetResourceVersion(), d.ignore)
	if len(paths) > 0 && !exact && s.learnStoredForm(ctx, d, live) {
		want, _ = s.a.stored.of(d)
		paths = s.track.drifted(d.key, want, live.Object, live.GetResourceVersion(), d.ignore)
	}
	return paths
}

// leaveIgnored takes out of obj, about to be written over live, the ignored
// fields that other field managers own (see leaveToOthers). It reads the
// object from the API server, since the cache holds no managedFields. A
// recreate writes the object as rendered, as on its first creation.
func (s *ownerScope) leaveIgnored(ctx context.Context, d *desired, obj, live *unstructured.Unstructured) error {
	if live == nil || len(d.ignore) == 0 || d.policies.Update == manifests.UpdateRecreate {
		return nil
	}
	fresh, err := s.a.getDirect(ctx, d)
	if err != nil || fresh == nil {
		return err
	}
	leaveToOthers(obj, fresh, d.ignore, s.a.opts.FieldOwner, isServerSideApply(d.policies.Update))
	return nil
}

// withoutIgnored is set without the fields at or under the ignored paths:
// what ssa-override takes over from other managers leaves them alone. A
// list element in set matches any index of a path.
func withoutIgnored(set *fieldpath.Set, ignore []manifests.Pointer) *fieldpath.Set {
	if len(ignore) == 0 {
		return set
	}
	out := &fieldpath.Set{}
	set.Iterate(func(p fieldpath.Path) {
		for _, ignored := range ignore {
			if underPointer(p, ignored) {
				return
			}
		}
		out.Insert(p)
	})
	return out
}

// underPointer tells whether the field path p is at or under the pointer.
func underPointer(p fieldpath.Path, pointer manifests.Pointer) bool {
	if len(p) < len(pointer) {
		return false
	}
	for i, token := range pointer {
		if name := p[i].FieldName; name != nil {
			if *name != token {
				return false
			}
			continue
		}
		if _, err := strconv.Atoi(token); err != nil {
			return false
		}
	}
	return true
}

// driftLog collects the drift a pass found and left; steps run concurrently.
type driftLog struct {
	mu     sync.Mutex
	drifts []Drift
}

func (l *driftLog) add(d Drift) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.drifts = append(l.drifts, d)
}

// list returns the drifts in key order.
func (l *driftLog) list() []Drift {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.drifts)
	slices.SortFunc(out, func(a, b Drift) int { return compareKeys(a.Object, b.Object) })
	return out
}
