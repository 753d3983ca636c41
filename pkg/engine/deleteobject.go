package engine

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/live"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// goneAction says what made an object gone: this owner's delete request, of
// this pass (requested) or of an earlier one (the item is Deleting), or
// nothing this owner did.
func goneAction(item *manifests.InventoryItem, requested bool) Action {
	if requested || item.Phase == manifests.PhaseDeleting {
		return ActionDelete
	}
	return ActionLeave
}

// removal is what deleteObject did: whether the object is gone, whether it
// asked for the deletion, and, when the object is not gone, what holds it.
type removal struct {
	gone      bool
	requested bool
	heldBy    string
}

// deleteObject deletes the object of item unless it is already being
// deleted, with the item's propagation policy, and reports whether it is
// gone; when it is not, heldBy says what keeps it (see holder). An object
// that carries another owner's label (or none) is not this owner's to
// delete: for this owner it is gone. It reads item and does not change it:
// once it asked for the deletion (requested), the caller's outcome marks
// the item Deleting.
func (s *ownerScope) deleteObject(ctx context.Context, item *manifests.InventoryItem) (removal, error) {
	key := item.Key()
	live, err := s.a.liveForDeletion(ctx, item.GroupVersionKind(), key)
	if meta.IsNoMatchError(err) {
		return removal{gone: true}, nil // its type is no longer served, so it cannot exist
	}
	if err != nil {
		return removal{}, err
	}
	if live == nil || live.GetLabels()[s.a.OwnerLabel()] != s.owner.ID {
		s.a.forget(key)
		return removal{gone: true}, nil
	}
	if live.GetDeletionTimestamp() != nil {
		return removal{heldBy: holder(item, live)}, nil
	}
	gone, err := s.deleteRecorded(ctx, key, live, item.DeletePropagation)
	if err != nil {
		return removal{}, err
	}
	if gone {
		s.a.forget(key)
		return removal{gone: true, requested: true}, nil
	}
	return removal{requested: true, heldBy: holder(item, live)}, nil
}

// holder says what keeps an object that is being deleted, for the waiting
// message: the namespace controller while it empties a Namespace, the
// garbage collector while a foreground deletion waits for the object's
// dependents (the item's propagation, or the finalizer of a foreground
// deletion someone else asked for); "" when it is nothing wavekit knows of.
func holder(item *manifests.InventoryItem, live *unstructured.Unstructured) string {
	switch {
	case item.Group == "" && item.Kind == "Namespace":
		return "Terminating: the namespace controller is removing the objects in it"
	case item.DeletePropagation == manifests.PropagationForeground,
		slices.Contains(live.GetFinalizers(), metav1.FinalizerDeleteDependents):
		return "foreground: waiting for the garbage collector to remove its dependents"
	}
	return ""
}

// beingDeleted is the waiting reason of an object that is not gone yet:
// what (being deleted, being purged) and, when known, what holds it.
func beingDeleted(what, heldBy string) string {
	if heldBy == "" {
		return what
	}
	return what + " (" + heldBy + ")"
}

// forget drops what the applier kept of an object it no longer owns, so
// that objects that come and go (purged Jobs) leave nothing behind.
func (a *Applier) forget(key manifests.ObjectKey) {
	a.drift.Forget(key)
	a.stored.Forget(key)
	a.loops.Forget(key)
	a.own.Forget(key)
}

// liveForDeletion reads the live object as live.Objects.Get does. When the cache
// holds only some of the owner's objects (Options.Labels: a shard's), an
// object it lacks may carry another shard's label still and is not gone for
// that: it is read from the API server, unless this applier deleted it.
func (a *Applier) liveForDeletion(ctx context.Context, gvk schema.GroupVersionKind, key manifests.ObjectKey) (*unstructured.Unstructured, error) {
	deletedHere := a.live.DeletedHere(key)
	obj, err := a.live.Get(ctx, gvk, key)
	if err != nil || obj != nil || len(a.opts.Labels) == 0 || deletedHere {
		return obj, err
	}
	return live.Read(ctx, a.target.Client, gvk, key)
}

// release removes the owner label and annotation from an orphaned object so
// that another owner may adopt it; an object this owner does not hold is
// left as it is.
func (s *ownerScope) release(ctx context.Context, item *manifests.InventoryItem) error {
	live, err := s.a.liveForDeletion(ctx, item.GroupVersionKind(), item.Key())
	if err != nil {
		return err
	}
	if live == nil || live.GetLabels()[s.a.OwnerLabel()] != s.owner.ID {
		return nil
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(item.GroupVersionKind())
	obj.SetNamespace(item.Namespace)
	obj.SetName(item.Name)
	patch := map[string]any{"metadata": map[string]any{
		"labels":      map[string]any{s.a.OwnerLabel(): nil},
		"annotations": map[string]any{s.a.ownerAnnotation(): nil},
	}}
	data, err := jsonvalue.Marshal(patch)
	if err != nil {
		return err
	}
	err = s.a.target.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data))
	if err != nil && !apierrors.IsNotFound(err) {
		return api.StepError(ActionOrphan, item.Key(), err)
	}
	s.a.live.Forget(item.Key())
	s.a.forget(item.Key())
	return nil
}

// deleteRecorded deletes live with the given propagation and records that
// this applier deleted it, so that a lagging cache reads it as being
// deleted. The record comes before the request: the delete event, which
// drops it, may come before the answer.
func (s *ownerScope) deleteRecorded(ctx context.Context, key manifests.ObjectKey, live *unstructured.Unstructured, propagation manifests.DeletePropagation) (bool, error) {
	s.track.deleting(key, live.GetUID())
	gone, err := s.a.deleteLive(ctx, live, propagation)
	s.track.deleted(key, live.GetUID(), err)
	return gone, err
}

// deleteLive deletes live unless it is gone already, and reports whether
// it is gone: only a target with a deleter knows that from the API server's
// answer; otherwise the cache tells later.
func (a *Applier) deleteLive(ctx context.Context, live *unstructured.Unstructured, propagation manifests.DeletePropagation) (bool, error) {
	uid := live.GetUID()
	policy := propagationPolicy(propagation)
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &policy}
	var gone bool
	var err error
	if a.target.deleter == nil {
		err = a.target.Client.Delete(ctx, live, client.Preconditions(*opts.Preconditions), client.PropagationPolicy(policy))
	} else {
		gone, err = a.deleteAnswered(ctx, live, opts)
	}
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	return gone, err
}

// propagationPolicy is the API's propagation policy for a delete
// propagation: Foreground, Orphan, or Background for anything else. Background is
// explicit because some kinds (batch/v1 Jobs) default to orphaning their
// dependents, which would leave them behind.
func propagationPolicy(p manifests.DeletePropagation) metav1.DeletionPropagation {
	switch p {
	case manifests.PropagationForeground:
		return metav1.DeletePropagationForeground
	case manifests.PropagationOrphan:
		return metav1.DeletePropagationOrphan
	}
	return metav1.DeletePropagationBackground
}

func (a *Applier) deleteAnswered(ctx context.Context, live *unstructured.Unstructured, opts metav1.DeleteOptions) (bool, error) {
	gvk := live.GroupVersionKind()
	mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false, fmt.Errorf("mapping %s: %w", gvk, err)
	}
	return a.target.deleter.Delete(ctx, mapping, live, opts)
}
