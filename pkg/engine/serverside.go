package engine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/managedfields"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// isServerSideApply tells whether a policy writes with server-side apply.
func isServerSideApply(p manifests.UpdatePolicy) bool {
	return p == manifests.UpdateSSAMerge || p == manifests.UpdateSSAOverride || p == manifests.UpdateReplaceOnImmutable
}

// serverSideApply applies obj with this operator as field manager, with
// force. Over an existing object it first takes over the fields the policy
// takes over (takeOverFields): its own earlier Update writes, and for
// ssa-override those of the managers in Options.TakeOver, so that the apply
// removes them when the manifest no longer has them. live must carry its
// managedFields when it has such entries (the target's cache keeps them
// then).
func (a *Applier) serverSideApply(ctx context.Context, d *desired, obj *unstructured.Unstructured, live *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	managers := a.takeOverFrom(d.policies.Update)
	if live != nil {
		if err := a.takeOverFields(ctx, live, managers, d.ignore); err != nil {
			return nil, err
		}
	}
	applied := obj.DeepCopy()
	if err := a.applyServerSide(ctx, applied); err != nil {
		return nil, err
	}
	if !managedfields.HasTakeOver(applied, a.opts.FieldOwner, managers) {
		return applied, nil
	}
	// The cache had not seen the writes to take over yet (or the object
	// existed without the owner label): the answer shows them.
	if err := a.takeOverFields(ctx, applied, managers, d.ignore); err != nil {
		return nil, err
	}
	if err := a.applyServerSide(ctx, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// applyServerSide applies obj with force and fills it with the answer.
func (a *Applier) applyServerSide(ctx context.Context, obj *unstructured.Unstructured) error {
	obj.SetResourceVersion("")
	obj.SetManagedFields(nil)
	return a.target.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(a.opts.FieldOwner), client.ForceOwnership)
}

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

// takeOverFields moves the fields of the Update entries that the apply
// takes over (see takesOver) into this operator's Apply entry of live's
// managedFields, in one patch that holds live's resourceVersion (a conflict
// if live is stale). The next server-side apply then owns them and removes
// those that the manifest no longer has; fields at ignored paths stay with
// their managers. It does nothing, and sends nothing, when live has no such
// entry: live must carry its managedFields, as the target's cache keeps
// them for objects that have such entries (TakeOverTransform).
func (a *Applier) takeOverFields(ctx context.Context, live *unstructured.Unstructured, managers []string, ignore []manifests.Pointer) error {
	kept, taken, err := managedfields.TakeOver(live, a.opts.FieldOwner, managers, ignore)
	if err != nil || !taken {
		return err
	}
	patch := map[string]any{"metadata": map[string]any{"managedFields": kept, "resourceVersion": live.GetResourceVersion()}}
	data, err := jsonvalue.Marshal(patch)
	if err != nil {
		return err
	}
	if err := a.target.Client.Patch(ctx, live.DeepCopy(), client.RawPatch(types.MergePatchType, data)); err != nil {
		return fmt.Errorf("taking over the fields of %s: %w", managedfields.Managers(live.GetManagedFields(), a.opts.FieldOwner, managers), err)
	}
	return nil
}

// TakeOverTransform is the transform of a cache of an applier's objects: it
// strips managedFields, often the larger half of an object, except from the
// objects that hold an entry a server-side apply of owner takes over (see
// Options.TakeOver): the next write of such an object moves those fields to
// owner first, which needs the whole list. After that write the object
// carries none, and the cache strips them again.
func TakeOverTransform(owner string, managers []string) func(any) (any, error) {
	return managedfields.Transform(owner, managers)
}
