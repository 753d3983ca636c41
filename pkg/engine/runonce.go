package engine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/runonce"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Run-once objects are the objects that run to completion: batch Jobs, which
// Helm hooks, migrations and one-time registrations are made of. A pass
// creates one at most once per render (the item's Digest): once created, the
// item records it (InventoryItem.Ran), and a Job of that render that is gone
// is not created again, whoever deleted it (the TTL-after-finished
// controller, a person, the job controller's cleanup). Its outcome is what
// was observed of it (runEnded, internal/runonce): complete, failed, deleted
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

// The status of a run-once object created and not yet in the cache.
const (
	statusNotCachedYet = "InProgress: created, not in the cache yet"
)

// reconcileStep writes the object of an apply step if it needs it (a delete
// hook's too) and reports its outcome: reconcileRun for a run-once object,
// reconcileObject for any other.
func (s *ownerScope) reconcileStep(ctx context.Context, d *plan.Desired, item *manifests.InventoryItem) plan.Outcome {
	if runonce.RunsOnce(d.GVK) {
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
// and the item records whether it ran at this render. That it ran is read
// from the item, or from the applier's copy of the record when the status
// that carried it was not written (recalled).
func (s *ownerScope) reconcileRun(ctx context.Context, d *plan.Desired, item *manifests.InventoryItem) plan.Outcome {
	shown, recalled := s.recalled(d, item)
	o := s.reconcileRunAs(ctx, d, shown)
	if recalled {
		o = restored(o, shown, item)
	}
	if o.Err == nil {
		s.track.ran(s.owner.UID, d.Key, d.Digest, ranAfter(o, d, shown))
	}
	return o
}

// ranAfter tells whether item records the object of d as run at its render
// once o is settled into it.
func ranAfter(o plan.Outcome, d *plan.Desired, item *manifests.InventoryItem) bool {
	ran, digest := item.Ran, item.Digest
	if o.SetRan {
		ran = o.Ran
	}
	if o.Written {
		digest = o.Digest
	}
	return ran && digest == d.Digest
}

// recalled returns item as it would read had the status that recorded the
// run of d's object at this render been written, and true, when this
// applier recorded that run and the item does not; else item itself.
func (s *ownerScope) recalled(d *plan.Desired, item *manifests.InventoryItem) (*manifests.InventoryItem, bool) {
	if plan.RanAt(d, item) || item.Digest == d.Digest && item.Phase == manifests.PhaseCompleted ||
		!s.a.ranAt.RanAt(s.owner.UID, d.Key, d.Digest) {
		return item, false
	}
	shown := *item
	if shown.Digest != d.Digest {
		// The phase is the earlier render's: this one's is not known.
		shown.Phase, shown.Status = manifests.PhaseCreating, ""
	}
	shown.Ran, shown.Digest = true, d.Digest
	return &shown, true
}

// restored is o, the outcome of shown (a recalled item), with what item
// lost settled back into it: o's own record where o has one, shown's
// elsewhere.
func restored(o plan.Outcome, shown, item *manifests.InventoryItem) plan.Outcome {
	if o.Err != nil {
		return o
	}
	if !o.SetRan {
		o.SetRan, o.Ran = true, shown.Ran
	}
	if !o.Written && item.Digest != shown.Digest {
		o.Written, o.Digest, o.AppliedAt = true, shown.Digest, item.LastAppliedAt
	}
	if o.Phase == "" && item.Phase != shown.Phase {
		o.Phase = shown.Phase
	}
	if !o.SetStatus && item.Status != shown.Status {
		o.Status, o.SetStatus = shown.Status, true
	}
	o.Changed = true
	return o
}

// reconcileRunAs is reconcileRun with item as the record of the object.
func (s *ownerScope) reconcileRunAs(ctx context.Context, d *plan.Desired, item *manifests.InventoryItem) plan.Outcome {
	live, err := s.a.live.Get(ctx, d.GVK, d.Key)
	if err != nil {
		return plan.Outcome{Key: d.Key, Err: api.StepError(ActionApply, d.Key, fmt.Errorf("reading it: %w", err))}
	}
	if live != nil && plan.RanAt(d, item) {
		s.a.runs.Put(d.Key, live.GetUID()) // this render's, seen after a restart too
	}
	if o, planted := judgedByName(d, item); planted {
		return o
	}
	switch dec, ok := plan.DecideRun(d, item, live); {
	case ok && dec.Reason == plan.ReasonEarlierRun:
		// The Job of an earlier render is on its way out (its TTL, a
		// purge): this render's is created once it is gone.
		return plan.Outcome{Key: d.Key, Phase: manifests.PhaseCreating, Status: plan.ReasonEarlierRun, SetStatus: true}
	case ok:
		return s.runEnded(ctx, d, item, live)
	}
	return withRun(s.reconcileObject(ctx, d, item), d, item, live)
}

// withRun records in o whether the object ran at the render of d: it did
// when the pass created it, or found it created from this render (an
// earlier pass's record lost, an item of an older wavekit); it did not when
// the pass deleted it to create it again (recreate, replace-on-immutable).
func withRun(o plan.Outcome, d *plan.Desired, item *manifests.InventoryItem, live *unstructured.Unstructured) plan.Outcome {
	ran := item.Ran
	switch {
	case o.Err != nil:
		return o
	case o.Action == ActionCreate, o.Written && o.Action == "":
		ran = true
	case o.Action == ActionReplace, o.Action == ActionUpdate && d.Policies.Update == manifests.UpdateRecreate:
		ran = false
	case o.Action == "" && live != nil && live.GetDeletionTimestamp() == nil && item.Digest == d.Digest:
		ran = true
	}
	if ran != item.Ran {
		o.SetRan, o.Ran = true, ran
	}
	return o
}

// runEnded is the outcome of a run-once object that ran at this render and
// is gone (live nil) or being deleted: by the phase it reached, else by the
// last state the cache saw of it.
func (s *ownerScope) runEnded(ctx context.Context, d *plan.Desired, item *manifests.InventoryItem, live *unstructured.Unstructured) plan.Outcome {
	o := plan.Outcome{Key: d.Key}
	switch item.Phase {
	case manifests.PhaseError:
		return o // judged already: it failed, or went before it finished
	case manifests.PhaseReady:
		o.Phase, o.Status, o.SetStatus = manifests.PhaseCompleted, "", true
		return o
	}
	if live != nil {
		o.Phase, o.Status = runonce.EndOf(live)
		o.SetStatus = true
		return o
	}
	last, fresh, err := s.ownEnd(ctx, d)
	switch {
	case err != nil:
		o.Err = err // getDirect's names the object
		return o
	case fresh != nil:
		s.a.runs.Put(d.Key, fresh.GetUID())
		if !runonce.Ended(fresh) {
			// The cache lags, or the Job carries a label it does not
			// select (another shard's, from before its owner moved):
			// then no event will come, so look again.
			o.Status, o.SetStatus, o.Unwatched = statusNotCachedYet, true, true
			return o
		}
		last = fresh
	}
	o.Phase, o.Status = runonce.EndOf(last)
	o.SetStatus = true
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
func (s *ownerScope) ownEnd(ctx context.Context, d *plan.Desired) (last, fresh *unstructured.Unstructured, err error) {
	uid, known := s.a.runs.Get(d.Key)
	last = runonce.OwnEndState(s.a.target.ends.LastSeen(d.Key), uid, known)
	if last != nil && runonce.Ended(last) {
		return last, nil, nil
	}
	fresh, err = s.a.getDirect(ctx, d)
	return last, fresh, err
}
