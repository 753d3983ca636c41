package engine

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// driftedFields returns the fields of live that drifted from d's stored
// form (decide says, by the drift mode, whether they are corrected). A
// drift found with a stored form that is not exact yet is checked once more
// against the API server's answer to a dry run of the write, so that what
// the API server stores differently is never mistaken for a drift. An
// object known to hold the desired fields at its resourceVersion costs one
// map lookup: its stored form is not even looked at.
func (s *ownerScope) driftedFields(ctx context.Context, d *plan.Desired, live *unstructured.Unstructured) []string {
	if s.track.holds(d.Key, live.GetResourceVersion(), d.Ignore) {
		return nil
	}
	want, exact := s.a.stored.Of(d.Rendered())
	paths := s.track.drifted(d.Key, want, live.Object, live.GetResourceVersion(), d.Ignore)
	if len(paths) > 0 && !exact && s.learnStoredForm(ctx, d, live) {
		want, _ = s.a.stored.Of(d.Rendered())
		paths = s.track.drifted(d.Key, want, live.Object, live.GetResourceVersion(), d.Ignore)
	}
	return paths
}

// correct writes d over live as write does. A write that is a correction
// (see decision) asks the write-loop guard first and is counted by it.
func (s *ownerScope) correct(ctx context.Context, d *plan.Desired, live *unstructured.Unstructured, decision plan.Decision) (sent, error) {
	if decision.Correction {
		if err := s.a.loops.Admit(d.Key, d.Digest, decision.Paths); err != nil {
			return sent{}, err
		}
	}
	out, err := s.write(ctx, d, live)
	if err == nil && decision.Correction {
		s.a.loops.Corrected(d.Key, d.Digest)
	}
	return out, err
}

// learnStoredForm asks the API server, with a dry run of the write of d
// over live, how it stores d, and records the answer; it reports whether it
// learnt it. A recreate is not dry-run: its answer would be a deletion.
func (s *ownerScope) learnStoredForm(ctx context.Context, d *plan.Desired, live *unstructured.Unstructured) bool {
	if d.Policies.Update == manifests.UpdateRecreate {
		return false
	}
	obj := d.Object.DeepCopy()
	s.markOwned(obj)
	dry := client.NewDryRunClient(s.a.target.Client)
	var err error
	if isServerSideApply(d.Policies.Update) {
		applied := obj.DeepCopy()
		applied.SetResourceVersion("")
		applied.SetManagedFields(nil)
		err = dry.Apply(ctx, client.ApplyConfigurationFromUnstructured(applied), client.FieldOwner(s.a.opts.FieldOwner), client.ForceOwnership)
		if err == nil {
			obj = applied
		}
	}
	if !isServerSideApply(d.Policies.Update) || isUntypedError(err) {
		// A PUT, as the write itself would be (replaceInstead).
		obj.SetResourceVersion(live.GetResourceVersion())
		obj.SetFinalizers(keepForeignFinalizers(obj.GetFinalizers(), live.GetFinalizers()))
		err = dry.Update(ctx, obj, client.FieldOwner(s.a.opts.FieldOwner))
	}
	if err != nil {
		return false // the write will say what is wrong
	}
	s.a.stored.Learn(d.Rendered(), obj.Object)
	return true
}
