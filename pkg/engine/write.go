package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/drift"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/jsonvalue"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/managedfields"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/plan"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// sent is what a write did: the object as the API server returned it (nil
// while a re-create waits for the old object to go) and, when
// replace-on-immutable deleted the object to re-create it, why.
type sent struct {
	live     *unstructured.Unstructured
	replaced *ImmutableFieldError
}

// write creates or updates one object according to its update policy.
func (s *ownerScope) write(ctx context.Context, d *plan.Desired, live *unstructured.Unstructured) (sent, error) {
	obj := d.Object.DeepCopy()
	if err := s.leaveIgnored(ctx, d, obj, live); err != nil {
		return sent{}, err
	}
	s.markOwned(obj)
	if d.Policies.Update == manifests.UpdateRecreate {
		setAnnotation(obj, manifests.Key(s.a.opts.Name, manifests.AnnotationDigest), d.Digest)
	}
	s.track.writing(d.Key)
	out, err := s.send(ctx, d, obj, live)
	if err == nil && out.live != nil {
		s.a.stored.Learn(d.Rendered(), out.live.Object)
	}
	s.track.written(d.Key, out.live, err)
	return out, err
}

// leaveIgnored takes out of obj, about to be written over live, the ignored
// fields that other field managers own (see leaveToOthers). It reads the
// object from the API server, since the cache holds no managedFields. A
// recreate writes the object as rendered, as on its first creation.
func (s *ownerScope) leaveIgnored(ctx context.Context, d *plan.Desired, obj, live *unstructured.Unstructured) error {
	if live == nil || len(d.Ignore) == 0 || d.Policies.Update == manifests.UpdateRecreate {
		return nil
	}
	fresh, err := s.a.getDirect(ctx, d)
	if err != nil || fresh == nil {
		return err
	}
	drift.LeaveToOthers(obj, fresh, d.Ignore, s.a.opts.FieldOwner, isServerSideApply(d.Policies.Update))
	return nil
}

// send creates obj, or updates live to it, and returns what the API server
// answered.
func (s *ownerScope) send(ctx context.Context, d *plan.Desired, obj, live *unstructured.Unstructured) (sent, error) {
	var out sent
	var err error
	if live == nil {
		out, err = s.create(ctx, d, obj)
	} else {
		out, err = s.update(ctx, d, obj, live)
	}
	if isServerSideApply(d.Policies.Update) && isUntypedError(err) {
		out, err = s.replaceInstead(ctx, d, obj, live)
	}
	if err != nil {
		return sent{}, explainWriteError(err, s.a.opts.Name)
	}
	return out, nil
}

// replaceInstead writes obj with a POST, or a PUT over live, where
// server-side apply refused it because it does not fit the kind's schema as
// apply reads it: a field the API server does not know (a typo, a field of a
// newer Kubernetes) or a list with two entries of one key (two env vars of
// one name). The API server stores such an object when it is written
// whole, as Helm and kubectl write it: it drops an unknown field with a
// warning, which the caller shows. The PUT does what update-policy replace
// does: it keeps no field another writer set that the manifest lacks.
func (s *ownerScope) replaceInstead(ctx context.Context, d *plan.Desired, obj, live *unstructured.Unstructured) (sent, error) {
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

func (s *ownerScope) markOwned(obj *unstructured.Unstructured) {
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[s.a.OwnerLabel()] = s.owner.ID
	maps.Copy(labels, s.a.opts.ObjectLabels)
	maps.Copy(labels, s.a.opts.Labels)
	obj.SetLabels(labels)
	setAnnotation(obj, s.a.ownerAnnotation(), s.owner.Description)
}

func setAnnotation(obj *unstructured.Unstructured, key, value string) {
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[key] = value
	obj.SetAnnotations(annotations)
}

// create writes an object the owner-label cache does not know. It may still
// exist without the label (or with a label the cache has not seen): then the
// adoption policy decides.
func (s *ownerScope) create(ctx context.Context, d *plan.Desired, obj *unstructured.Unstructured) (sent, error) {
	if isServerSideApply(d.Policies.Update) && s.cacheSeesOwners(d) {
		live, err := s.a.serverSideApply(ctx, d, obj, nil)
		return sent{live: live}, err
	}
	if isServerSideApply(d.Policies.Update) {
		live, err := s.a.applyIfAbsent(ctx, obj)
		if !apierrors.IsConflict(err) {
			return sent{live: live}, err
		}
		existing, err := s.a.getDirect(ctx, d)
		if err != nil {
			return sent{}, err
		}
		if existing != nil {
			return s.updateExisting(ctx, d, obj, existing)
		}
		live, err = s.a.serverSideApply(ctx, d, obj, nil) // deleted since the refusal
		return sent{live: live}, err
	}
	err := s.a.target.Client.Create(ctx, obj, client.FieldOwner(s.a.opts.FieldOwner))
	if apierrors.IsAlreadyExists(err) {
		existing, getErr := s.a.getDirect(ctx, d)
		if getErr != nil || existing == nil {
			return sent{}, errors.Join(err, getErr)
		}
		if s.ownership().CreatedFrom(existing) == d.Digest {
			return sent{live: existing}, nil // created from this render by an earlier pass the cache lags behind
		}
		return s.updateExisting(ctx, d, obj, existing)
	}
	if err != nil {
		return sent{}, err
	}
	return sent{live: obj}, nil
}

// unheldVersion is a resourceVersion that no stored object holds (the
// largest the API server parses): an apply that carries it as its
// precondition creates an absent object and is refused with a conflict
// when one exists, whoever holds it.
const unheldVersion = "18446744073709551615"

// applyIfAbsent applies obj server-side only if no object of its name
// exists: a create with the managed fields of an apply, in one request, and
// a conflict when the name is taken (by another shard's component, or by an
// object that adoption-policy never keeps apart), for the caller to read
// what holds it. A GET before each new object would cost a request more.
func (a *Applier) applyIfAbsent(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	applied := obj.DeepCopy()
	applied.SetManagedFields(nil)
	applied.SetResourceVersion(unheldVersion)
	err := a.target.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(applied), client.FieldOwner(a.opts.FieldOwner), client.ForceOwnership)
	if err != nil {
		return nil, err
	}
	return applied, nil
}

// cacheSeesOwners tells whether an object that the owner-label cache does
// not hold may be applied server-side without reading it first: when it
// exists, it carries no owner label (the cache holds every object with
// one), and the adoption policy lets the owner take such an object. Not so
// with adoption-policy never, nor when the cache holds only a shard's
// objects (Options.Labels).
func (s *ownerScope) cacheSeesOwners(d *plan.Desired) bool {
	return d.Policies.Adoption != manifests.AdoptNever && len(s.a.opts.Labels) == 0
}

// updateExisting updates an object that exists although the owner-label
// cache did not know it, if the adoption policy allows taking it over.
func (s *ownerScope) updateExisting(ctx context.Context, d *plan.Desired, obj, existing *unstructured.Unstructured) (sent, error) {
	return s.updateExistingWith(d, existing, func() (sent, error) { return s.update(ctx, d, obj, existing) })
}

// updateExistingWith runs update, a write over existing, if the adoption
// policy allows taking existing over.
func (s *ownerScope) updateExistingWith(d *plan.Desired, existing *unstructured.Unstructured, update func() (sent, error)) (sent, error) {
	if err := plan.AdoptionRefused(s.ownership(), d, existing); err != nil {
		return sent{}, err
	}
	return update()
}

func (a *Applier) getDirect(ctx context.Context, d *plan.Desired) (*unstructured.Unstructured, error) {
	existing := &unstructured.Unstructured{}
	existing.SetGroupVersionKind(d.GVK)
	err := a.target.Client.Get(ctx, client.ObjectKey{Namespace: d.Key.Namespace, Name: d.Key.Name}, existing)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, api.WordedError(ActionApply, api.WordingRead, d.Key, err)
	}
	return existing, nil
}

// update changes an existing object by the object's update policy.
func (s *ownerScope) update(ctx context.Context, d *plan.Desired, obj, live *unstructured.Unstructured) (sent, error) {
	switch d.Policies.Update {
	case manifests.UpdateSSAMerge, manifests.UpdateSSAOverride:
		written, err := s.a.serverSideApply(ctx, d, obj, live)
		return sent{live: written}, err
	case manifests.UpdateReplaceOnImmutable:
		return s.replaceOnImmutable(ctx, d, obj, live)
	case manifests.UpdateRecreate:
		_, err := s.deleteRecorded(ctx, d.Key, live, d.Policies.ReplacePropagation)
		return sent{}, err
	}
	return s.put(ctx, obj, live)
}

// put replaces live with obj (a PUT).
func (s *ownerScope) put(ctx context.Context, obj, live *unstructured.Unstructured) (sent, error) {
	obj.SetResourceVersion(live.GetResourceVersion())
	obj.SetFinalizers(keepForeignFinalizers(obj.GetFinalizers(), live.GetFinalizers()))
	if err := s.a.target.Client.Update(ctx, obj, client.FieldOwner(s.a.opts.FieldOwner)); err != nil {
		return sent{}, err
	}
	return sent{live: obj}, nil
}

// replaceOnImmutable applies obj server-side, which leaves alone the fields
// the API server filled in (a Job's generated selector), and deletes live,
// to be created again, only when the API server refuses the apply because
// it would change an immutable field.
func (s *ownerScope) replaceOnImmutable(ctx context.Context, d *plan.Desired, obj, live *unstructured.Unstructured) (sent, error) {
	written, err := s.a.serverSideApply(ctx, d, obj, live)
	if err == nil {
		return sent{live: written}, nil
	}
	var immutable *ImmutableFieldError
	if !errors.As(explainWriteError(err, s.a.opts.Name), &immutable) {
		return sent{}, err
	}
	if _, err := s.deleteRecorded(ctx, d.Key, live, d.Policies.ReplacePropagation); err != nil {
		return sent{}, fmt.Errorf("deleting to re-create, since %s: %w", api.ImmutableReason(immutable), err)
	}
	return sent{replaced: immutable}, nil
}

// keepForeignFinalizers keeps the finalizers others set on the live object.
func keepForeignFinalizers(desired, live []string) []string {
	out := slices.Clone(desired)
	for _, f := range live {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

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
func (a *Applier) serverSideApply(ctx context.Context, d *plan.Desired, obj *unstructured.Unstructured, live *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	managers := a.takeOverFrom(d.Policies.Update)
	if live != nil {
		if err := a.takeOverFields(ctx, live, managers, d.Ignore); err != nil {
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
	if err := a.takeOverFields(ctx, applied, managers, d.Ignore); err != nil {
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

// explainWriteError turns the API server's "field is immutable" into advice.
func explainWriteError(err error, prefix string) error {
	if !apierrors.IsInvalid(err) {
		return err
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return err
	}
	var fields []string
	for _, cause := range status.Status().Details.Causes {
		if strings.Contains(cause.Message, "immutable") {
			fields = append(fields, cause.Field)
		}
	}
	if len(fields) == 0 {
		return err
	}
	return &ImmutableFieldError{Fields: fields, PolicyKey: manifests.Key(prefix, manifests.AnnotationUpdatePolicy), Err: err}
}
