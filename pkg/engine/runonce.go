package engine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Run-once objects are the objects that run to completion: batch Jobs, which
// Helm hooks, migrations and one-time registrations are made of. A pass
// creates one at most once per render (the item's Digest): once created, the
// item records it (InventoryItem.Ran), and a Job of that render that is gone
// is not created again, whoever deleted it (the TTL-after-finished
// controller, a person, the job controller's cleanup). Its outcome is what
// was observed of it (runEnded, endstates.go): complete, failed, deleted
// before it finished, or gone before its outcome was seen, which counts as
// done, as Helm counts a hook Job that was deleted while it waited. A new
// render (an upgrade, a changed manifest) runs it again.
//
// What was observed is only ever the end state of the object's own UID:
// the one the applier created at this render or saw live at it (Applier.runs).
// The end state the cache kept of the name may be the previous render's
// Job, and a cache that lags reads this render's Job as gone while it runs:
// without an end state of its own UID the API server is asked. A Job that
// is still there is judged by the API server's copy once it ended, and
// looked at again while it runs: its cache may never show it, when it
// carries the label of another shard, from before its owner moved.

// Words of the status of a run-once object that is gone.
const (
	statusDeletedUnfinished = "deleted before it finished; not run again for this render"
	statusOutcomeUnseen     = "gone before its outcome was seen; counted as done, as Helm counts a deleted hook"
	statusNotCachedYet      = "InProgress: created, not in the cache yet"
)

// reconcileStep writes the object of an apply step if it needs it (a delete
// hook's too) and reports its outcome: reconcileRun for a run-once object,
// reconcileObject for any other.
func (s *ownerScope) reconcileStep(ctx context.Context, d *desired, item *manifests.InventoryItem) outcome {
	if runsOnce(d.gvk) {
		ctx, span := runOnceSpan(ctx, d)
		o := s.reconcileRun(ctx, d, item)
		endObjectSpan(span, o)
		return o
	}
	return s.reconcileObject(ctx, d, item)
}

// reconcileRun is reconcileObject for a run-once object. One that ran at
// this render and is gone, or is being deleted, is judged by what was seen
// of it, never created again; otherwise it is reconciled as any object,
// and the item records whether it ran at this render.
func (s *ownerScope) reconcileRun(ctx context.Context, d *desired, item *manifests.InventoryItem) outcome {
	live, err := s.a.live.Get(ctx, d.gvk, d.key)
	if err != nil {
		return outcome{key: d.key, err: api.StepError(ActionApply, d.key, fmt.Errorf("reading it: %w", err))}
	}
	if live != nil && ranAt(d, item) {
		s.a.runs.Put(d.key, live.GetUID()) // this render's, seen after a restart too
	}
	if o, planted := judgedByName(d, item); planted {
		return o
	}
	switch dec, ok := decideRun(d, item, live); {
	case ok && dec.reason == reasonEarlierRun:
		// The Job of an earlier render is on its way out (its TTL, a
		// purge): this render's is created once it is gone.
		return outcome{key: d.key, phase: manifests.PhaseCreating, status: reasonEarlierRun, setStatus: true}
	case ok:
		return s.runEnded(ctx, d, item, live)
	}
	return withRun(s.reconcileObject(ctx, d, item), d, item, live)
}

// withRun records in o whether the object ran at the render of d: it did
// when the pass created it, or found it created from this render (an
// earlier pass's record lost, an item of an older wavekit); it did not when
// the pass deleted it to create it again (recreate, replace-on-immutable).
func withRun(o outcome, d *desired, item *manifests.InventoryItem, live *unstructured.Unstructured) outcome {
	ran := item.Ran
	switch {
	case o.err != nil:
		return o
	case o.action == ActionCreate, o.written && o.action == "":
		ran = true
	case o.action == ActionReplace, o.action == ActionUpdate && d.policies.Update == manifests.UpdateRecreate:
		ran = false
	case o.action == "" && live != nil && live.GetDeletionTimestamp() == nil && item.Digest == d.digest:
		ran = true
	}
	if ran != item.Ran {
		o.setRan, o.ran = true, ran
	}
	return o
}

// runEnded is the outcome of a run-once object that ran at this render and
// is gone (live nil) or being deleted: by the phase it reached, else by the
// last state the cache saw of it.
func (s *ownerScope) runEnded(ctx context.Context, d *desired, item *manifests.InventoryItem, live *unstructured.Unstructured) outcome {
	o := outcome{key: d.key}
	switch item.Phase {
	case manifests.PhaseError:
		return o // judged already: it failed, or went before it finished
	case manifests.PhaseReady:
		o.phase, o.status, o.setStatus = manifests.PhaseCompleted, "", true
		return o
	}
	if live != nil {
		o.phase, o.status = endOf(live)
		o.setStatus = true
		return o
	}
	last, fresh, err := s.ownEnd(ctx, d)
	switch {
	case err != nil:
		o.err = err // getDirect's names the object
		return o
	case fresh != nil:
		s.a.runs.Put(d.key, fresh.GetUID())
		if !ended(fresh) {
			// The cache lags, or the Job carries a label it does not
			// select (another shard's, from before its owner moved):
			// then no event will come, so look again.
			o.status, o.setStatus, o.unwatched = statusNotCachedYet, true, true
			return o
		}
		last = fresh
	}
	o.phase, o.status = endOf(last)
	o.setStatus = true
	return o
}

// ownEnd returns the state the cache saw last of the run-once object of d
// that ran at this render and reads as gone: only one of the UID it ran
// as (ownEndState). Unless that state is an end (ended), it asks the API
// server: fresh is its copy when the object is still there (the cache
// lags, or never holds it), and when it is not, last is its final state,
// or nil when it went unseen. The object on the API server is the one
// this render created: the Job of an earlier render of the same name had
// to be gone for it to be created.
func (s *ownerScope) ownEnd(ctx context.Context, d *desired) (last, fresh *unstructured.Unstructured, err error) {
	uid, known := s.a.runs.Get(d.key)
	last = ownEndState(s.a.target.ends.lastSeen(d.key), uid, known)
	if last != nil && ended(last) {
		return last, nil, nil
	}
	fresh, err = s.a.getDirect(ctx, d)
	return last, fresh, err
}

// ended tells whether a run-once object is being deleted or reached an
// end condition: it can be judged by this copy (endOf).
func ended(obj *unstructured.Unstructured) bool {
	_, _, reached := endCondition(obj)
	return reached || obj.GetDeletionTimestamp() != nil
}

// ownEndState is last, the end state kept of an object's name, when it is
// of the object with uid; nil when it is another's (the Job of an earlier
// render, of the same name) or uid is not known.
func ownEndState(last *unstructured.Unstructured, uid types.UID, known bool) *unstructured.Unstructured {
	if last == nil || !known || last.GetUID() != uid {
		return nil
	}
	return last
}

// endOf is the phase and status of a run-once object from the last state
// seen of it before it went (nil: none was seen).
func endOf(last *unstructured.Unstructured) (manifests.Phase, string) {
	if last == nil {
		return manifests.PhaseCompleted, statusOutcomeUnseen
	}
	if phase, status, reached := endCondition(last); reached {
		return phase, status
	}
	return manifests.PhaseError, statusDeletedUnfinished
}

// endCondition is the phase and status of a run-once object by the end
// condition it reached: complete, or failed with its reason; reached is
// false when it reached none.
func endCondition(obj *unstructured.Unstructured) (phase manifests.Phase, status string, reached bool) {
	conditions := readiness.Conditions(obj)
	for _, done := range []string{"Complete", "SuccessCriteriaMet"} {
		if c, ok := conditions[done]; ok && c.Status == "True" {
			return manifests.PhaseCompleted, "", true
		}
	}
	for _, failed := range []string{"Failed", "FailureTarget"} {
		if c, ok := conditions[failed]; ok && c.Status == "True" {
			return manifests.PhaseError, "Failed: " + readiness.WithReason(c.Reason, c.Message), true
		}
	}
	return "", "", false
}
