package managedfields

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// TakesOver tells whether e is an entry a server-side apply of owner takes
// over: an Update of the object itself (not a subresource such as status
// or scale) by owner or one of managers.
func takesOver(e metav1.ManagedFieldsEntry, owner string, managers []string) bool {
	return headOf(e).takenOverBy(owner, managers)
}

// HasTakeOver tells whether obj's managedFields hold an entry a server-side
// apply of owner would take over from managers.
func HasTakeOver(obj metav1.Object, owner string, managers []string) bool {
	return slices.ContainsFunc(entryHeads(obj), func(e entryHead) bool { return e.takenOverBy(owner, managers) })
}

// TakeOver returns live's managedFields with the fields of the Update
// entries that a server-side apply of owner takes over from managers moved
// into owner's Apply entry, those at ignored paths left with their
// managers, and false when there is nothing to take.
func TakeOver(live *unstructured.Unstructured, owner string, managers []string, ignore []manifests.Pointer) ([]metav1.ManagedFieldsEntry, bool, error) {
	entries := live.GetManagedFields()
	var kept []metav1.ManagedFieldsEntry
	taken := &fieldpath.Set{}
	for _, e := range entries {
		if !takesOver(e, owner, managers) {
			kept = append(kept, e)
			continue
		}
		set, err := decodeFieldSet(e.FieldsV1)
		if err != nil {
			return nil, false, fmt.Errorf("reading managed fields of %s: %w", e.Manager, err)
		}
		take := withoutIgnored(set, ignore)
		keep := set.Difference(take)
		taken = taken.Union(take)
		if !keep.Empty() {
			// The ignored fields stay with the manager that wrote them.
			fields, err := encodeFieldSet(keep)
			if err != nil {
				return nil, false, err
			}
			e.FieldsV1 = fields
			kept = append(kept, e)
		}
	}
	if taken.Empty() {
		return nil, false, nil
	}
	kept, err := mergeIntoOwnEntry(kept, taken, owner, live.GetAPIVersion())
	if err != nil {
		return nil, false, err
	}
	return kept, true, nil
}

// Managers names the managers of entries that a takeover takes from.
func Managers(entries []metav1.ManagedFieldsEntry, owner string, managers []string) []string {
	var names []string
	for _, e := range entries {
		if takesOver(e, owner, managers) && !slices.Contains(names, e.Manager) {
			names = append(names, e.Manager)
		}
	}
	return names
}

// mergeIntoOwnEntry adds taken to owner's Apply entry of entries, or adds
// that entry.
func mergeIntoOwnEntry(entries []metav1.ManagedFieldsEntry, taken *fieldpath.Set, owner, apiVersion string) ([]metav1.ManagedFieldsEntry, error) {
	for i, e := range entries {
		if e.Manager != owner || e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != "" || e.FieldsV1 == nil {
			continue
		}
		own, err := decodeFieldSet(e.FieldsV1)
		if err != nil {
			return nil, fmt.Errorf("reading own managed fields: %w", err)
		}
		fields, err := encodeFieldSet(own.Union(taken))
		if err != nil {
			return nil, err
		}
		entries[i].FieldsV1 = fields
		return entries, nil
	}
	fields, err := encodeFieldSet(taken)
	if err != nil {
		return nil, err
	}
	now := metav1.Now()
	return append(entries, metav1.ManagedFieldsEntry{
		Manager: owner, Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: apiVersion, Time: &now, FieldsType: "FieldsV1", FieldsV1: fields,
	}), nil
}

// Transform is the transform of a cache of an applier's objects: it
// strips managedFields, often the larger half of an object, except from the
// objects that hold an entry a server-side apply of owner takes over (see
// Options.TakeOver): the next write of such an object moves those fields to
// owner first, which needs the whole list. After that write the object
// carries none, and the cache strips them again.
func Transform(owner string, managers []string) func(any) (any, error) {
	return func(obj any) (any, error) {
		accessor, ok := obj.(metav1.Object)
		if !ok {
			return obj, nil
		}
		if !HasTakeOver(accessor, owner, managers) {
			accessor.SetManagedFields(nil)
		}
		return obj, nil
	}
}

func decodeFieldSet(fields *metav1.FieldsV1) (*fieldpath.Set, error) {
	set := &fieldpath.Set{}
	if err := set.FromJSON(bytes.NewReader(fields.GetRawBytes())); err != nil {
		return nil, err
	}
	return set, nil
}

func encodeFieldSet(set *fieldpath.Set) (*metav1.FieldsV1, error) {
	data, err := set.ToJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding managed fields: %w", err)
	}
	return metav1.NewFieldsV1(string(data)), nil
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
