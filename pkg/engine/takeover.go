package engine

import (
	"bytes"
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// takeOverFields moves the fields that other managers set with Update
// (kubectl edit, patch, client-side apply and the like) into this operator's
// Apply entry of managedFields. The next server-side apply then owns them
// and removes those that the manifest no longer has. Fields at ignored
// paths stay with their managers.
func (a *Applier) takeOverFields(ctx context.Context, live *unstructured.Unstructured, ignore []manifests.Pointer) error {
	entries := live.GetManagedFields()
	var kept []metav1.ManagedFieldsEntry
	taken := &fieldpath.Set{}
	for _, e := range entries {
		if e.Operation != metav1.ManagedFieldsOperationUpdate || e.Manager == a.opts.FieldOwner || e.Subresource != "" || e.FieldsV1 == nil {
			kept = append(kept, e)
			continue
		}
		set, err := decodeFieldSet(e.FieldsV1)
		if err != nil {
			return fmt.Errorf("reading managed fields of %s: %w", e.Manager, err)
		}
		taken = taken.Union(withoutIgnored(set, ignore))
	}
	if len(kept) == len(entries) {
		return nil
	}
	kept, err := a.mergeIntoOwnEntry(kept, taken, live.GetAPIVersion())
	if err != nil {
		return err
	}
	patch := map[string]any{"metadata": map[string]any{"managedFields": kept, "resourceVersion": live.GetResourceVersion()}}
	data, err := jsonMarshal(patch)
	if err != nil {
		return err
	}
	if err := a.target.Client.Patch(ctx, live.DeepCopy(), client.RawPatch(types.MergePatchType, data)); err != nil {
		return fmt.Errorf("taking over fields of other managers: %w", err)
	}
	return nil
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
