package engine

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// takeOverFrom returns the managers whose Update writes a server-side
// apply under policy takes over, besides the applier's own earlier Update
// writes (a PUT under replace, or an older wavekit), which every server-side
// apply takes over so that what the applier no longer renders goes.
func (a *Applier) takeOverFrom(policy manifests.UpdatePolicy) []string {
	if policy == manifests.UpdateSSAOverride {
		return a.opts.TakeOver
	}
	return nil
}

// takesOver tells whether e is an entry a server-side apply of owner takes
// over: an Update of the object itself (not a subresource such as status
// or scale) by owner or one of managers.
func takesOver(e metav1.ManagedFieldsEntry, owner string, managers []string) bool {
	return headOf(e).takenOverBy(owner, managers)
}

// hasTakeOver tells whether obj's managedFields hold an entry a server-side
// apply of owner would take over from managers.
func hasTakeOver(obj metav1.Object, owner string, managers []string) bool {
	return slices.ContainsFunc(entryHeads(obj), func(e entryHead) bool { return e.takenOverBy(owner, managers) })
}

// takeOverFields moves the fields of the Update entries that the apply
// takes over (see takesOver) into this operator's Apply entry of live's
// managedFields, in one patch that holds live's resourceVersion (a conflict
// if live is stale). The next server-side apply then owns them and removes
// those that the manifest no longer has; fields at ignored paths stay with
// their managers. It does nothing, and sends nothing, when live has no such
// entry: live must carry its managedFields, as the target's cache keeps
// them for objects that have such entries (TakeOverTransform).
func (a *Applier) takeOverFields(ctx context.Context, live *unstructured.Unstructured, managers []string, ignore []manifests.Pointer) error {
	entries := live.GetManagedFields()
	var kept []metav1.ManagedFieldsEntry
	taken := &fieldpath.Set{}
	for _, e := range entries {
		if !takesOver(e, a.opts.FieldOwner, managers) {
			kept = append(kept, e)
			continue
		}
		set, err := decodeFieldSet(e.FieldsV1)
		if err != nil {
			return fmt.Errorf("reading managed fields of %s: %w", e.Manager, err)
		}
		mine := withoutIgnored(set, ignore)
		keep := set.Difference(mine)
		taken = taken.Union(mine)
		if !keep.Empty() {
			// The ignored fields stay with the manager that wrote them.
			fields, err := encodeFieldSet(keep)
			if err != nil {
				return err
			}
			e.FieldsV1 = fields
			kept = append(kept, e)
		}
	}
	if taken.Empty() {
		return nil
	}
	kept, err := a.mergeIntoOwnEntry(kept, taken, live.GetAPIVersion())
	if err != nil {
		return err
	}
	patch := map[string]any{"metadata": map[string]any{"managedFields": kept, "resourceVersion": live.GetResourceVersion()}}
	data, err := jsonvalue.Marshal(patch)
	if err != nil {
		return err
	}
	if err := a.target.Client.Patch(ctx, live.DeepCopy(), client.RawPatch(types.MergePatchType, data)); err != nil {
		return fmt.Errorf("taking over the fields of %s: %w", managersOf(entries, a.opts.FieldOwner, managers), err)
	}
	return nil
}

// managersOf names the managers of entries that a takeover takes from.
func managersOf(entries []metav1.ManagedFieldsEntry, owner string, managers []string) []string {
	var names []string
	for _, e := range entries {
		if takesOver(e, owner, managers) && !slices.Contains(names, e.Manager) {
			names = append(names, e.Manager)
		}
	}
	return names
}

func (a *Applier) mergeIntoOwnEntry(entries []metav1.ManagedFieldsEntry, taken *fieldpath.Set, apiVersion string) ([]metav1.ManagedFieldsEntry, error) {
	for i, e := range entries {
		if e.Manager != a.opts.FieldOwner || e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != "" || e.FieldsV1 == nil {
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
		Manager: a.opts.FieldOwner, Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: apiVersion, Time: &now, FieldsType: "FieldsV1", FieldsV1: fields,
	}), nil
}

// TakeOverTransform is the transform of a cache of an applier's objects: it
// strips managedFields, often the larger half of an object, except from the
// objects that hold an entry a server-side apply of owner takes over (see
// Options.TakeOver): the next write of such an object moves those fields to
// owner first, which needs the whole list. After that write the object
// carries none, and the cache strips them again.
func TakeOverTransform(owner string, managers []string) func(any) (any, error) {
	return func(obj any) (any, error) {
		accessor, ok := obj.(metav1.Object)
		if !ok {
			return obj, nil
		}
		if !hasTakeOver(accessor, owner, managers) {
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
