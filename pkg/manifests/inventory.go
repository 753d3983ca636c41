package manifests

import "slices"

// Phase is where an applied object stands in its lifecycle.
// +kubebuilder:validation:Enum=Scheduled;Creating;Updating;Ready;Completed;Deleting;Orphaned;Error
type Phase string

// Phases of an inventory item.
const (
	// PhaseScheduled: recorded, not yet written (the inventory is written first).
	PhaseScheduled Phase = "Scheduled"
	PhaseCreating  Phase = "Creating"
	PhaseUpdating  Phase = "Updating"
	PhaseReady     Phase = "Ready"
	// PhaseCompleted: purged at the end of its purge wave, or a Job that
	// finished and is gone; kept to remember that.
	PhaseCompleted Phase = "Completed"
	PhaseDeleting  Phase = "Deleting"
	PhaseOrphaned  Phase = "Orphaned"
	PhaseError     Phase = "Error"
)

// +kubebuilder:object:generate=true

// TypeInfo names a group and kind that a component manages instances of:
// the kinds of its own CRDs and APIServices, or declared extra types.
// Group and Kind may be "*", and Group may start with "*." (any subgroup).
type TypeInfo struct {
	// Group of the type; "*" and a leading "*." match any group or subgroup.
	Group string `json:"group"`
	// Kind of the type; "*" matches any kind.
	Kind string `json:"kind"`
}

// +kubebuilder:object:generate=true

// InventoryItem records one object the component applied, with the policies
// and orders it was applied under. Only version, kind, name and phase are
// always set; every other field is optional and left out when empty.
type InventoryItem struct {
	// Group of the object's API version; empty (left out) for the core group.
	// +optional
	Group string `json:"group,omitempty"`
	// Version of the object's API version.
	Version string `json:"version"`
	// Kind of the object.
	Kind string `json:"kind"`
	// Namespace of the object; empty for a cluster-scoped one.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Name of the object.
	Name string `json:"name"`

	// The policies the object was applied under; empty where they are the
	// built-in defaults (if-unowned, on-object-change, replace, delete,
	// background), so that the inventory of thousands of objects fits in a
	// status.
	// +optional
	AdoptionPolicy AdoptionPolicy `json:"adoptionPolicy,omitempty"`
	// +optional
	ReconcilePolicy ReconcilePolicy `json:"reconcilePolicy,omitempty"`
	// +optional
	UpdatePolicy UpdatePolicy `json:"updatePolicy,omitempty"`
	// +optional
	DeletePolicy DeletePolicy `json:"deletePolicy,omitempty"`
	// DeletePropagation is foreground when deleting the object waits for
	// its dependents; empty (left out) for the default, background.
	// +optional
	DeletePropagation DeletePropagation `json:"deletePropagation,omitempty"`

	// ApplyOrder is the wave the object is applied in.
	// +optional
	ApplyOrder int16 `json:"applyOrder,omitempty"`
	// PurgeOrder, if set, is the wave after which the object is deleted again.
	// +optional
	PurgeOrder *int16 `json:"purgeOrder,omitempty"`
	// DeleteOrder is the wave the object is deleted in when the component goes.
	// +optional
	DeleteOrder int16 `json:"deleteOrder,omitempty"`

	// ManagedTypes are the types whose instances this object serves (a CRD's
	// or APIService's), which block deletion while foreign instances exist.
	// +optional
	ManagedTypes []TypeInfo `json:"managedTypes,omitempty"`

	// Digest of the manifest as last applied (and of the component generation
	// for on-object-or-component-change): the first 128 bits of a SHA-256, hex;
	// empty until the object is first written.
	// +optional
	Digest string `json:"digest,omitempty"`
	// Phase is where the object stands; every item has one.
	Phase Phase `json:"phase"`
	// Status is the object's kstatus (InProgress, Failed, ...) and what it
	// waits for; empty when the phase is Ready (kstatus Current). Empty
	// fields are left out: every field of every item costs the API server
	// time on each status write of a large component.
	// +optional
	Status string `json:"status,omitempty"`
	// LastAppliedAt is the time of the last write, kept only for objects with
	// a reapply-interval.
	// +optional
	LastAppliedAt int64 `json:"lastAppliedAt,omitempty"`
	// DeleteHook is set (pre-delete or post-delete) on objects that run only
	// while the component is deleted.
	// +optional
	DeleteHook string `json:"deleteHook,omitempty"`
	// TestHook is set (keep, delete-on-success, delete-on-failure or
	// delete) on a test's object, which only a test run creates. Its phase
	// is the test's outcome in the last run: Ready (passed) or Error
	// (failed, Status says why), and Completed while its run deletes it.
	// +optional
	TestHook TestHookPolicy `json:"testHook,omitempty"`
	// Ran is set on an object that runs to completion (a batch Job) once it
	// was created from the render of Digest: it is not created again for
	// that render, even when it is gone; its outcome is what was seen of it.
	// +optional
	Ran bool `json:"ran,omitempty"`
}

// AppliedGrowth is how many bytes the item's JSON may still gain once its
// object has been applied: a digest and a readiness status. It is zero for
// an item that has been applied; callers use it to size a status before the
// objects it records are created.
func (item InventoryItem) AppliedGrowth() int {
	if item.Digest != "" {
		return 0
	}
	return len(`,"digest":""`) + 2*DigestBytes + len(`,"status":"InProgress"`)
}

// DigestBytes is how much of a manifest's SHA-256 an inventory item's Digest
// keeps: 128 bits, enough to tell versions apart, small enough for the
// inventory of a large component to fit its status.
const DigestBytes = 16

// Equal tells whether two items record the same, as
// equality.Semantic.DeepEqual would (nil and empty ManagedTypes are the
// same), without reflection: a component compares its inventory of
// thousands of items at every status write.
func (item InventoryItem) Equal(other InventoryItem) bool {
	a, b := item, other
	return a.Group == b.Group && a.Version == b.Version && a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name &&
		a.AdoptionPolicy == b.AdoptionPolicy && a.ReconcilePolicy == b.ReconcilePolicy && a.UpdatePolicy == b.UpdatePolicy &&
		a.DeletePolicy == b.DeletePolicy && a.DeletePropagation == b.DeletePropagation &&
		a.ApplyOrder == b.ApplyOrder && equalOrder(a.PurgeOrder, b.PurgeOrder) && a.DeleteOrder == b.DeleteOrder &&
		slices.Equal(a.ManagedTypes, b.ManagedTypes) && a.Digest == b.Digest && a.Phase == b.Phase && a.Status == b.Status &&
		a.LastAppliedAt == b.LastAppliedAt && a.DeleteHook == b.DeleteHook && a.TestHook == b.TestHook && a.Ran == b.Ran
}

// equalOrder tells whether two optional orders are the same.
func equalOrder(a, b *int16) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// EqualInventories tells whether two inventories record the same items in
// the same order (nil and empty are the same).
func EqualInventories(a, b []InventoryItem) bool {
	return slices.EqualFunc(a, b, InventoryItem.Equal)
}
