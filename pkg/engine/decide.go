package engine

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// This file holds the one write decision of the engine: whether an apply
// step creates, updates, replaces, keeps or refuses an object, and why.
// decide is a pure function of what it is given (facts); the plan
// (settledByRecord, before any read), Apply (reconcileObject, reconcileRun)
// and Diff (applyChange) all ask it, so the reason an object was or was
// not written is found here and nowhere else.

// writeKind is what decide says to do with one object.
type writeKind string

const (
	// writeCreate creates an object that does not exist.
	writeCreate writeKind = "create"
	// writeUpdate writes the object over the live one.
	writeUpdate writeKind = "update"
	// writeReplace deletes the live object to create it anew
	// (update-policy recreate); replace-on-immutable is an update the API
	// server's answer turns into a replace (write.go).
	writeReplace writeKind = "replace"
	// writeKeep leaves the object as it is.
	writeKeep writeKind = "keep"
	// writeRefuse does not write an object this owner may not take: its
	// error says why.
	writeRefuse writeKind = "refuse"
)

// Reasons decide gives. The keep reasons a caller acts on are compared by
// value; the others are read in tests and plans.
const (
	reasonSettled         = "purged and unchanged"
	reasonRunEnded        = "ran at this render and is gone; runs again when it changes"
	reasonRunEnding       = "ran at this render and is being deleted"
	reasonEarlierRun      = "waiting for the Job of an earlier render to be deleted"
	reasonPurgedAtRender  = "purged at this render by an earlier pass"
	reasonCRDCreate       = "crd-policy Create: an existing CRD is never updated"
	reasonBeingDeleted    = "being deleted; created again once it is gone"
	reasonReconcileOnce   = "reconcile-policy once: written only when missing"
	reasonUnchanged       = "render unchanged and nothing drifted"
	reasonDriftLeft       = "drifted; drift mode Warn leaves it"
	reasonMissing         = "not in the cluster"
	reasonDeletedByOthers = "deleted by others at an unchanged render"
	reasonForced          = "the owner forces a write"
	reasonRenderChanged   = "the render changed"
	reasonReapply         = "the reapply interval elapsed"
	reasonDrifted         = "drifted"
	reasonRecreate        = "update-policy recreate: deleted to be created again"
)

// decision is decide's answer for one object.
type decision struct {
	kind   writeKind
	reason string
	// err is why a refused object is not written.
	err error
	// correction is set for a write that undoes, at an unchanged render,
	// what others did (a drift, a deletion); the write-loop guard counts it.
	correction bool
	// paths are the drifted fields: corrected, or left in mode Warn.
	paths []string
	// recordCreate says that the live object was created from this render
	// by an earlier pass whose record was lost: it is recorded as written.
	recordCreate bool
}

// writes tells whether the decision sends a write.
func (d decision) writes() bool {
	return d.kind == writeCreate || d.kind == writeUpdate || d.kind == writeReplace
}

// ownership is what decide knows of the owner a pass writes for.
type ownership struct {
	id          string
	description string
	// prefix is the applier's annotation prefix (Options.Name).
	prefix string
	force  bool
}

func (o ownership) label() string      { return keysOf(o.prefix).label }
func (o ownership) annotation() string { return keysOf(o.prefix).annotation }

// ownerKeys are the keys of the owner label and annotations under a
// prefix.
type ownerKeys struct{ label, annotation, digest string }

// keysByPrefix holds the ownerKeys of each prefix, built once: decide
// reads them for every object on every pass.
var keysByPrefix sync.Map

func keysOf(prefix string) ownerKeys {
	if keys, ok := keysByPrefix.Load(prefix); ok {
		return keys.(ownerKeys)
	}
	keys := ownerKeys{
		label:      manifests.Key(prefix, manifests.LabelOwnerID),
		annotation: manifests.Key(prefix, manifests.AnnotationOwner),
		digest:     manifests.Key(prefix, manifests.AnnotationDigest),
	}
	keysByPrefix.Store(prefix, keys)
	return keys
}

// createdFrom returns the digest of the render that live was created from,
// when the applier recorded it on the object (update-policy recreate).
func (o ownership) createdFrom(live *unstructured.Unstructured) string {
	if live == nil {
		return ""
	}
	return jsonvalue.Annotation(live.Object, keysOf(o.prefix).digest)
}

// facts is everything decide reads about one object.
type facts struct {
	desired *desired
	item    *manifests.InventoryItem
	// live is the object in the cluster; nil when there is none.
	live  *unstructured.Unstructured
	owner ownership
	// purgedAtRender says that an earlier pass purged the object at this
	// render (its record may have been lost).
	purgedAtRender bool
	// now is the time of the pass, in Unix seconds.
	now   int64
	drift manifests.DriftMode
	// drifted returns the fields of live that drifted from the desired
	// object; decide calls it only when nothing else decides, at most once.
	drifted func() ([]string, error)
}

// settledByRecord is the decision the inventory alone makes, before any
// read: an object completed (a purged hook) or being purged at an unchanged
// render is kept. The plan shows it as unchanged; Apply reads nothing for it.
func settledByRecord(d *desired, item *manifests.InventoryItem) (decision, bool) {
	if item == nil || item.Digest != d.digest || (item.Phase != manifests.PhaseCompleted && !beingPurged(d, item)) {
		return decision{}, false
	}
	if item.Ran && d.policies.PurgeOrder == nil {
		return keep(reasonRunEnded), true
	}
	return keep(reasonSettled), true
}

// decide is the write decision for one apply step, the same for Apply and
// Diff. In order: what the record settles; a run-once object that ran at
// this render; a purge an earlier pass made; the CRD policy; refusals
// (taken over by another owner, adoption policy); then missing, being
// deleted, reconcile policy, force, render change, reapply interval, drift.
func decide(f facts) decision {
	d, item, live := f.desired, f.item, f.live
	if dec, ok := settledByRecord(d, item); ok {
		return dec
	}
	if dec, ok := decideRun(d, item, live); ok {
		return dec
	}
	switch {
	case live == nil && d.policies.PurgeOrder != nil && f.purgedAtRender:
		return keep(reasonPurgedAtRender)
	case keepsCRD(d, live):
		return keep(reasonCRDCreate)
	}
	if live != nil {
		if err := takenOver(f.owner, d, item, live); err != nil {
			return decision{kind: writeRefuse, reason: err.Error(), err: err}
		}
		if err := adoptionRefused(f.owner, d, live); err != nil {
			return decision{kind: writeRefuse, reason: err.Error(), err: err}
		}
	}
	recorded := item.Digest
	lost := item.Digest != d.digest && f.owner.createdFrom(live) == d.digest
	if lost {
		recorded = d.digest
	}
	dec := decideWrite(f, recorded)
	dec.recordCreate = lost
	return dec
}

// decideRun decides for a run-once object (a Job): one that ran at this
// render and is gone or going is never created again, and one whose
// earlier render's object is on its way out waits for it.
func decideRun(d *desired, item *manifests.InventoryItem, live *unstructured.Unstructured) (decision, bool) {
	if !runsOnce(d.gvk) {
		return decision{}, false
	}
	deleting := live != nil && live.GetDeletionTimestamp() != nil
	switch {
	case ranAt(d, item) && live == nil:
		return keep(reasonRunEnded), true
	case ranAt(d, item) && deleting:
		return keep(reasonRunEnding), true
	case item.Digest != d.digest && deleting:
		return keep(reasonEarlierRun), true
	}
	return decision{}, false
}

// decideWrite decides by the live object, reconcile policy, the owner's
// force, the recorded digest, the reapply interval and drift.
func decideWrite(f facts, recorded string) decision {
	d, item, live := f.desired, f.item, f.live
	switch {
	case live == nil && recorded == d.digest:
		return decision{kind: writeCreate, reason: reasonDeletedByOthers, correction: true}
	case live == nil:
		return decision{kind: writeCreate, reason: reasonMissing}
	case live.GetDeletionTimestamp() != nil:
		return keep(reasonBeingDeleted) // by us for recreate, or by someone else: wait
	case d.policies.Reconcile == manifests.ReconcileOnce:
		return keep(reasonReconcileOnce)
	case f.owner.force:
		return overwrite(d, reasonForced)
	case recorded != d.digest:
		return overwrite(d, reasonRenderChanged)
	case d.policies.ReapplyInterval > 0 && f.now-item.LastAppliedAt >= int64(d.policies.ReapplyInterval.Seconds()):
		return overwrite(d, reasonReapply)
	case f.drift == manifests.DriftDisabled || f.drifted == nil:
		return keep(reasonUnchanged)
	}
	return decideDrift(f)
}

// decideDrift corrects drifted fields, or leaves them in mode Warn.
func decideDrift(f facts) decision {
	paths, err := f.drifted()
	switch {
	case err != nil:
		return decision{kind: writeRefuse, reason: err.Error(), err: err}
	case len(paths) == 0:
		return keep(reasonUnchanged)
	case f.drift == manifests.DriftWarn:
		return decision{kind: writeKeep, reason: reasonDriftLeft, paths: paths}
	}
	dec := overwrite(f.desired, reasonDrifted)
	dec.correction, dec.paths = true, paths
	return dec
}

func keep(reason string) decision { return decision{kind: writeKeep, reason: reason} }

// overwrite is an update, or a replace under update-policy recreate.
func overwrite(d *desired, reason string) decision {
	if d.policies.Update == manifests.UpdateRecreate {
		return decision{kind: writeReplace, reason: reason + "; " + reasonRecreate}
	}
	return decision{kind: writeUpdate, reason: reason}
}

// keepsCRD tells whether the CRD policy leaves an existing CRD as it is.
func keepsCRD(d *desired, live *unstructured.Unstructured) bool {
	return live != nil && kinds.IsCRD(d.gvk.Group, d.gvk.Kind) && d.policies.CRD == manifests.CRDCreate
}

// takenOver returns a refusal (see refused) when another owner took over an object this
// owner had applied: even with adoption-policy always, an owner does not take
// it back, or two components that both may adopt it would take it from each
// other for ever. It is applied again once the other owner deletes or
// releases it.
func takenOver(o ownership, d *desired, item *manifests.InventoryItem, existing *unstructured.Unstructured) error {
	current := jsonvalue.Label(existing.Object, o.label())
	if current == "" || current == o.id || item.Digest == "" {
		return nil
	}
	return api.Refused(d.key, fmt.Errorf("was taken over by %s; it is applied again once that owner deletes or releases it", otherOwner(o, existing, current)))
}

// adoptionRefused returns a refusal (see refused) when the adoption policy forbids taking
// over existing, an object this owner does not hold yet. The error names the
// current owner and the policy, nothing more.
func adoptionRefused(o ownership, d *desired, existing *unstructured.Unstructured) error {
	current := jsonvalue.Label(existing.Object, o.label())
	if current == o.id {
		return nil
	}
	policyKey := manifests.Key(o.prefix, manifests.AnnotationAdoptionPolicy)
	switch {
	case d.policies.Adoption == manifests.AdoptAlways:
		return nil
	case d.policies.Adoption == manifests.AdoptNever && current == "":
		return api.Refused(d.key, fmt.Errorf("already exists and is not managed by %s (%s is %s)", o.description, policyKey, manifests.AdoptNever))
	case current != "":
		return api.Refused(d.key, fmt.Errorf("already exists and is managed by %s (%s is %s)", otherOwner(o, existing, current), policyKey, d.policies.Adoption))
	}
	return nil
}

// otherOwner names the owner of existing in words, by its annotation or,
// without one, by its owner label's value.
func otherOwner(o ownership, existing *unstructured.Unstructured, current string) string {
	if other := jsonvalue.Annotation(existing.Object, o.annotation()); other != "" {
		return other
	}
	return "owner " + current
}

// runsOnce tells whether objects of gvk run to completion and are created
// at most once per render.
func runsOnce(gvk schema.GroupVersionKind) bool {
	return gvk.Group == "batch" && gvk.Kind == "Job"
}

// ranAt tells whether the run-once object was created from the render of d
// and is still to be judged: not yet Completed, nor being purged.
func ranAt(d *desired, item *manifests.InventoryItem) bool {
	return item.Ran && item.Digest == d.digest && item.Phase != manifests.PhaseCompleted && !beingPurged(d, item)
}

// beingPurged tells whether the object is on its way out at the end of its
// purge wave; it then counts as done for its own wave.
func beingPurged(d *desired, item *manifests.InventoryItem) bool {
	return d.policies.PurgeOrder != nil && item.Phase == manifests.PhaseDeleting
}
