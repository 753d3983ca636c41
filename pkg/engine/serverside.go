package engine

import (
	"context"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	if !hasTakeOver(applied.GetManagedFields(), a.opts.FieldOwner, managers) {
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

// replaceInstead writes obj with a POST, or a PUT over live, where
// server-side apply refused it because it does not fit the kind's schema as
// apply reads it: a field the API server does not know (a typo, a field of a
// newer Kubernetes) or a list with two entries of one key (two env vars of
// one name). The API server stores such an object when it is written
// whole, as Helm and kubectl write it: it drops an unknown field with a
// warning, which the caller shows. The PUT does what update-policy replace
// does: it keeps no field another writer set that the manifest lacks.
func (s *ownerScope) replaceInstead(ctx context.Context, d *desired, obj, live *unstructured.Unstructured) (sent, error) {
	if live == nil {
		existing, err := s.a.getDirect(ctx, d)
		if err != nil {
			return sent{}, err
		}
		if existing != nil {
			return s.updateExistingWith(d, existing, func() (sent, error) { return s.put(ctx, obj, existing) })
		}
		obj.SetResourceVersion("")
		if err := s.a.target.Client.Create(ctx, obj, client.FieldOwner(s.a.opts.FieldOwner)); err != nil {
			return sent{}, err
		}
		return sent{live: obj}, nil
	}
	out, err := s.put(ctx, obj, live)
	if !apierrors.IsConflict(err) {
		return out, err
	}
	// The apply's takeover of fields before it was refused changed the
	// object since live was read.
	fresh, getErr := s.a.getDirect(ctx, d)
	if getErr != nil || fresh == nil {
		return out, err
	}
	return s.put(ctx, obj, fresh)
}

// isUntypedError tells whether err is server-side apply refusing an object
// that does not fit its kind's schema (see replaceInstead).
func isUntypedError(err error) bool {
	return err != nil && strings.Contains(err.Error(), "failed to create typed patch object")
}
