package engine

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// driftedFields returns the fields of live that drifted from d's stored
// form (decide says, by the drift mode, whether they are corrected). A
// drift found with a stored form that is not exact yet is checked once more
// against the API server's answer to a dry run of the write, so that what
// the API server stores differently is never mistaken for a drift. An
// object known to hold the desired fields at its resourceVersion costs one
// map lookup: its stored form is not even looked at.
func (s *ownerScope) driftedFields(ctx context.Context, d *desired, live *unstructured.Unstructured) []string {
	if s.track.holds(d.key, live.GetResourceVersion(), d.ignore) {
		return nil
	}
	want, exact := s.a.stored.Of(d.rendered())
	paths := s.track.drifted(d.key, want, live.Object, live.GetResourceVersion(), d.ignore)
	if len(paths) > 0 && !exact && s.learnStoredForm(ctx, d, live) {
		want, _ = s.a.stored.Of(d.rendered())
		paths = s.track.drifted(d.key, want, live.Object, live.GetResourceVersion(), d.ignore)
	}
	return paths
}
