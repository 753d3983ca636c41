package engine

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	if !hasTakeOver(applied, a.opts.FieldOwner, managers) {
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
