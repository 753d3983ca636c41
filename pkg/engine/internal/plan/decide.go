package plan

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/kinds"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/runonce"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// This file holds the one write decision of the engine: whether an apply
// step creates, updates, replaces, keeps or refuses an object, and why.
// Decide is a pure function of what it is given (Facts); the plan
// (SettledByRecord, before any read), the engine's Apply (reconcileObject,
// reconcileRun) and Diff (applyChange) all ask it, so the reason an object
// was or was not written is found here and nowhere else.

// WriteKind is what decide says to do with one object.
type WriteKind string

const (
	// WriteCreate creates an object that does not exist.
	WriteCreate WriteKind = "create"
	// WriteUpdate writes the object over the live one.
	WriteUpdate WriteKind = "update"
	// WriteReplace deletes the live object to create it anew
	// (update-policy recreate); replace-on-immutable is an update the API
	// server's answer turns into a replace (the engine's write.go).
	WriteReplace WriteKind = "replace"
	// WriteKeep leaves the object as it is.
	WriteKeep WriteKind = "keep"
	// WriteRefuse does not write an object this owner may not take: its
	// error says why.
	WriteRefuse WriteKind = "refuse"
)

// Reasons decide gives. The keep reasons a caller acts on are compared by
// value; the others are read in tests and plans.
const (
	reasonSettled         = "purged and unchanged"
	ReasonRunEnded        = "ran at this render and is gone; runs again when it changes"
	reasonRunEnding       = "ran at this render and is being deleted"
	ReasonEarlierRun      = "waiting for the Job of an earlier render to be deleted"
	ReasonPurgedAtRender  = "purged at this render by an earlier pass"
	reasonCRDCreate       = "crd-policy Create: an existing CRD is never updated"
	reasonBeingDeleted    = "being deleted; created again once it is gone"
	reasonReconcileOnce   = "reconcile-policy once: written only when missing"
	reasonUnchanged       = "render unchanged and nothing drifted"
	ReasonDriftLeft       = "drifted; drift mode Warn leaves it"
	reasonMissing         = "not in the cluster"
	reasonDeletedByOthers = "deleted by others at an unchanged render"
	reasonForced          = "the owner forces a write"
	reasonRenderChanged   = "the render changed"
	reasonReapply         = "the reapply interval elapsed"
	reasonDrifted         = "drifted"
	reasonRecreate        = "update-policy recreate: deleted to be created again"
)

// Decision is decide's answer for one object.
type Decision struct {
	Kind   WriteKind
	Reason string
	// Err is why a refused object is not written.
	Err error
	// Correction is set for a write that undoes, at an unchanged render,
	// what others did (a drift, a deletion); the write-loop guard counts it.
	Correction bool
	// Paths are the drifted fields: corrected, or left in mode Warn.
	Paths []string
	// RecordCreate says that the live object was created from this render
	// by an earlier pass whose record was lost: it is recorded as written.
	RecordCreate bool
}

// Writes tells whether the decision sends a write.
func (d Decision) Writes() bool {
	return d.Kind == WriteCreate || d.Kind == WriteUpdate || d.Kind == WriteReplace
}

// Ownership is what decide knows of the owner a pass writes for.
type Ownership struct {
	ID          string
	Description string
	// Prefix is the applier's annotation prefix (Options.Name).
	Prefix string
	Force  bool
}

func (o Ownership) label() string      { return keysOf(o.Prefix).label }
func (o Ownership) annotation() string { return keysOf(o.Prefix).annotation }

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

// CreatedFrom returns the digest of the render that live was created from,
// when the applier recorded it on the object (update-policy recreate).
func (o Ownership) CreatedFrom(live *unstructured.Unstructured) string {
	if live == nil {
		return ""
	}
	return jsonvalue.Annotation(live.Object, keysOf(o.Prefix).digest)
}

// Facts is everything decide reads about one object.
type Facts struct {
	Desired *Desired
	Item    *manifests.InventoryItem
	// Live is the object in the cluster; nil when there is none.
	Live  *unstructured.Unstructured
	Owner Ownership
	// PurgedAtRender says that an earlier pass purged the object at this
	// render (its record may have been lost).
	PurgedAtRender bool
	// Now is the time of the pass, in Unix seconds.
	Now   int64
	Drift manifests.DriftMode
	// Drifted returns the fields of live that drifted from the desired
	// object; decide calls it only when nothing else decides, at most once.
	Drifted func() ([]string, error)
}

// SettledByRecord is the decision the inventory alone makes, before any
// read: an object completed (a purged hook) or being purged at an unchanged
// render is kept. The plan shows it as unchanged; Apply reads nothing for it.
func SettledByRecord(d *Desired, item *manifests.InventoryItem) (Decision, bool) {
	if item == nil || item.Digest != d.Digest || (item.Phase != manifests.PhaseCompleted && !BeingPurged(d, item)) {
		return Decision{}, false
	}
	if item.Ran && d.Policies.PurgeOrder == nil {
		return keep(ReasonRunEnded), true
	}
	return keep(reasonSettled), true
}

// Decide is the write decision for one apply step, the same for Apply and
// Diff. In order: what the record settles; a run-once object that ran at
// this render; a purge an earlier pass made; the CRD policy; refusals
// (taken over by another owner, adoption policy); then missing, being
// deleted, reconcile policy, force, render change, reapply interval, drift.
func Decide(f Facts) Decision {
	d, item, live := f.Desired, f.Item, f.Live
	if dec, ok := SettledByRecord(d, item); ok {
		return dec
	}
	if dec, ok := DecideRun(d, item, live); ok {
		return dec
	}
	switch {
	case live == nil && d.Policies.PurgeOrder != nil && f.PurgedAtRender:
		return keep(ReasonPurgedAtRender)
	case keepsCRD(d, live):
		return keep(reasonCRDCreate)
	}
	if live != nil {
		if err := TakenOver(f.Owner, d, item, live); err != nil {
			return Decision{Kind: WriteRefuse, Reason: err.Error(), Err: err}
		}
		if err := AdoptionRefused(f.Owner, d, live); err != nil {
			return Decision{Kind: WriteRefuse, Reason: err.Error(), Err: err}
		}
	}
	recorded := item.Digest
	lost := item.Digest != d.Digest && f.Owner.CreatedFrom(live) == d.Digest
	if lost {
		recorded = d.Digest
	}
	dec := decideWrite(f, recorded)
	dec.RecordCreate = lost
	return dec
}

// DecideRun decides for a run-once object (a Job): one that ran at this
// render and is gone or going is never created again, and one whose
// earlier render's object is on its way out waits for it.
func DecideRun(d *Desired, item *manifests.InventoryItem, live *unstructured.Unstructured) (Decision, bool) {
	if !runonce.RunsOnce(d.GVK) {
		return Decision{}, false
	}
	deleting := live != nil && live.GetDeletionTimestamp() != nil
	switch {
	case RanAt(d, item) && live == nil:
		return keep(ReasonRunEnded), true
	case RanAt(d, item) && deleting:
		return keep(reasonRunEnding), true
	case item.Digest != d.Digest && deleting:
		return keep(ReasonEarlierRun), true
	}
	return Decision{}, false
}

// decideWrite decides by the live object, reconcile policy, the owner's
// force, the recorded digest, the reapply interval and drift.
func decideWrite(f Facts, recorded string) Decision {
	d, item, live := f.Desired, f.Item, f.Live
	switch {
	case live == nil && recorded == d.Digest:
		return Decision{Kind: WriteCreate, Reason: reasonDeletedByOthers, Correction: true}
	case live == nil:
		return Decision{Kind: WriteCreate, Reason: reasonMissing}
	case live.GetDeletionTimestamp() != nil:
		return keep(reasonBeingDeleted) // by us for recreate, or by someone else: wait
	case d.Policies.Reconcile == manifests.ReconcileOnce:
		return keep(reasonReconcileOnce)
	case f.Owner.Force:
		return overwrite(d, reasonForced)
	case recorded != d.Digest:
		return overwrite(d, reasonRenderChanged)
	case d.Policies.ReapplyInterval > 0 && f.Now-item.LastAppliedAt >= int64(d.Policies.ReapplyInterval.Seconds()):
		return overwrite(d, reasonReapply)
	case f.Drift == manifests.DriftDisabled || f.Drifted == nil:
		return keep(reasonUnchanged)
	}
	return decideDrift(f)
}

// decideDrift corrects drifted fields, or leaves them in mode Warn.
func decideDrift(f Facts) Decision {
	paths, err := f.Drifted()
	switch {
	case err != nil:
		return Decision{Kind: WriteRefuse, Reason: err.Error(), Err: err}
	case len(paths) == 0:
		return keep(reasonUnchanged)
	case f.Drift == manifests.DriftWarn:
		return Decision{Kind: WriteKeep, Reason: ReasonDriftLeft, Paths: paths}
	}
	dec := overwrite(f.Desired, reasonDrifted)
	dec.Correction, dec.Paths = true, paths
	return dec
}

func keep(reason string) Decision { return Decision{Kind: WriteKeep, Reason: reason} }

// overwrite is an update, or a replace under update-policy recreate.
func overwrite(d *Desired, reason string) Decision {
	if d.Policies.Update == manifests.UpdateRecreate {
		return Decision{Kind: WriteReplace, Reason: reason + "; " + reasonRecreate}
	}
	return Decision{Kind: WriteUpdate, Reason: reason}
}

// keepsCRD tells whether the CRD policy leaves an existing CRD as it is.
func keepsCRD(d *Desired, live *unstructured.Unstructured) bool {
	return live != nil && kinds.IsCRD(d.GVK.Group, d.GVK.Kind) && d.Policies.CRD == manifests.CRDCreate
}

// TakenOver returns a refusal (see refused) when another owner took over an object this
// owner had applied: even with adoption-policy always, an owner does not take
// it back, or two components that both may adopt it would take it from each
// other for ever. It is applied again once the other owner deletes or
// releases it.
func TakenOver(o Ownership, d *Desired, item *manifests.InventoryItem, existing *unstructured.Unstructured) error {
	current := jsonvalue.Label(existing.Object, o.label())
	if current == "" || current == o.ID || item.Digest == "" {
		return nil
	}
	return api.Refused(d.Key, fmt.Errorf("was taken over by %s; it is applied again once that owner deletes or releases it", otherOwner(o, existing, current)))
}

// AdoptionRefused returns a refusal (see refused) when the adoption policy forbids taking
// over existing, an object this owner does not hold yet. The error names the
// current owner and the policy, nothing more.
func AdoptionRefused(o Ownership, d *Desired, existing *unstructured.Unstructured) error {
	current := jsonvalue.Label(existing.Object, o.label())
	if current == o.ID {
		return nil
	}
	policyKey := manifests.Key(o.Prefix, manifests.AnnotationAdoptionPolicy)
	switch {
	case d.Policies.Adoption == manifests.AdoptAlways:
		return nil
	case d.Policies.Adoption == manifests.AdoptNever && current == "":
		return api.Refused(d.Key, fmt.Errorf("already exists and is not managed by %s (%s is %s)", o.Description, policyKey, manifests.AdoptNever))
	case current != "":
		return api.Refused(d.Key, fmt.Errorf("already exists and is managed by %s (%s is %s)", otherOwner(o, existing, current), policyKey, d.Policies.Adoption))
	}
	return nil
}

// otherOwner names the owner of existing in words, by its annotation or,
// without one, by its owner label's value.
func otherOwner(o Ownership, existing *unstructured.Unstructured, current string) string {
	if other := jsonvalue.Annotation(existing.Object, o.annotation()); other != "" {
		return other
	}
	return "owner " + current
}

// RanAt tells whether the run-once object was created from the render of d
// and is still to be judged: not yet Completed, nor being purged.
func RanAt(d *Desired, item *manifests.InventoryItem) bool {
	return item.Ran && item.Digest == d.Digest && item.Phase != manifests.PhaseCompleted && !BeingPurged(d, item)
}

// BeingPurged tells whether the object is on its way out at the end of its
// purge wave; it then counts as done for its own wave.
func BeingPurged(d *Desired, item *manifests.InventoryItem) bool {
	return d.Policies.PurgeOrder != nil && item.Phase == manifests.PhaseDeleting
}
