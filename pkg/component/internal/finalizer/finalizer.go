package finalizer

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Finalizer is the reconciler's finalizer on its components, and the one
// earlier versions set.
type Finalizer struct {
	Client     client.Client
	FieldOwner string
	// Name is the finalizer ReconcilerOptions.Finalizer names.
	Name string
	// Legacy is the finalizer earlier versions set, the operator's name;
	// "" when Name is that very name (Legacy).
	Legacy string
}

// Legacy is the finalizer earlier versions of the operator named operator
// set, or "" when finalizer is that very name.
func Legacy(operator, finalizer string) string {
	if operator == finalizer {
		return ""
	}
	return operator
}

// Ensure adds the finalizer to c, replacing the bare operator name that
// earlier versions set (the API server warns about a finalizer without a
// path).
func (f Finalizer) Ensure(ctx context.Context, c client.Object) error {
	return f.patch(ctx, c, "adding the finalizer to", func() bool {
		migrated := controllerutil.RemoveFinalizer(c, f.Legacy)
		return controllerutil.AddFinalizer(c, f.Name) || migrated
	})
}

// On tells whether c carries the finalizer, or the one earlier versions
// set.
func (f Finalizer) On(c client.Object) bool {
	return controllerutil.ContainsFinalizer(c, f.Name) || controllerutil.ContainsFinalizer(c, f.Legacy)
}

// Remove removes the finalizer, and the one earlier versions set, from c.
func (f Finalizer) Remove(ctx context.Context, c client.Object) error {
	return f.patch(ctx, c, "removing the finalizer from", func() bool {
		removed := controllerutil.RemoveFinalizer(c, f.Name)
		return controllerutil.RemoveFinalizer(c, f.Legacy) || removed
	})
}

// patch applies change to c's finalizers and, when it changed them, sends a
// merge patch of metadata.finalizers alone (with the resourceVersion, so a
// concurrent change is a conflict). An update would send the whole object:
// the spec's defaulted fields would become the operator's and a new
// component would move to generation 2. The patch is written as it is, not
// diffed from a copy of the component: two encodings of the whole
// component for one list.
func (f Finalizer) patch(ctx context.Context, c client.Object, what string, change func() bool) error {
	if !change() {
		return nil
	}
	id := client.ObjectKeyFromObject(c)
	var finalizers []string // null removes the list
	if list := c.GetFinalizers(); len(list) > 0 {
		finalizers = list
	}
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"finalizers": finalizers, "resourceVersion": c.GetResourceVersion(),
	}})
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, id, err)
	}
	patch := client.RawPatch(types.MergePatchType, data)
	if err := f.Client.Patch(ctx, c, patch, client.FieldOwner(f.FieldOwner)); err != nil {
		return fmt.Errorf("%s %s: %w", what, id, err)
	}
	return nil
}
