package manifests

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Annotation key suffixes. The full key is "<operator name>/<suffix>", see Key.
const (
	AnnotationApplyOrder      = "apply-order"
	AnnotationOrder           = "order" // alias of apply-order
	AnnotationPurgeOrder      = "purge-order"
	AnnotationDeleteOrder     = "delete-order"
	AnnotationReconcilePolicy = "reconcile-policy"
	AnnotationUpdatePolicy    = "update-policy"
	AnnotationDeletePolicy    = "delete-policy"
	// AnnotationDeletePropagation says whether deleting the object waits for
	// the garbage collector to remove its dependents: background or
	// foreground.
	AnnotationDeletePropagation = "delete-propagation"
	AnnotationAdoptionPolicy    = "adoption-policy"
	AnnotationStatusHint        = "status-hint"
	AnnotationReapplyInterval   = "reapply-interval"
	// AnnotationDeleteHook marks an object that runs only when the component
	// is deleted (Helm pre-delete/post-delete hooks): value pre-delete or
	// post-delete. Apply never applies such objects.
	AnnotationDeleteHook = "delete-hook"
	// AnnotationTestHook marks a test (Helm's helm.sh/hook: test): an object
	// that only a test run creates, never Apply; the value says when the run
	// deletes it (TestHookPolicy). Tests run one at a time in apply-order,
	// then name order.
	AnnotationTestHook = "test-hook"
	// AnnotationReplacePropagation is the propagation of the delete that
	// re-creates an object (update policies recreate and
	// replace-on-immutable): background, foreground, or orphan, which keeps
	// a workload's pods for the new object to adopt. Default: the object's
	// delete-propagation.
	AnnotationReplacePropagation = "replace-propagation"
	// AnnotationCRDPolicy says how a CustomResourceDefinition among the
	// objects is applied: Create, CreateReplace or Skip (see CRDPolicy).
	AnnotationCRDPolicy = "crd-policy"
	// AnnotationOwner names the owner of an applied object in words, for
	// messages; the applier writes it.
	AnnotationOwner = "owner"
	// AnnotationDigest holds, on an object with update-policy recreate, the
	// digest of the render it was created from; the applier writes it, so
	// that a pass whose record of that create was lost (a status write that
	// failed) does not delete and create the object a second time.
	AnnotationDigest = "digest"
	// LabelOwnerID is the owner label of every applied object: a hash of the
	// owning component (OwnerID).
	LabelOwnerID = "owner-id"
)

// TestHookPolicy says what a test run does with a test's object once the
// test ran: a test is always created anew by the next run.
// +kubebuilder:validation:Enum=keep;delete-on-success;delete-on-failure;delete
type TestHookPolicy string

// Test hook policies.
const (
	// TestKeep keeps the object until the next run or the component's
	// deletion, whatever the outcome.
	TestKeep TestHookPolicy = "keep"
	// TestDeleteOnSuccess deletes the object at the end of the run when the
	// test passed (Helm's hook-delete-policy hook-succeeded).
	TestDeleteOnSuccess TestHookPolicy = "delete-on-success"
	// TestDeleteOnFailure deletes the object at the end of the run when the
	// test failed (hook-failed).
	TestDeleteOnFailure TestHookPolicy = "delete-on-failure"
	// TestDelete deletes the object at the end of the run whatever the
	// outcome (hook-succeeded and hook-failed).
	TestDelete TestHookPolicy = "delete"
)

// DeletesAfter tells whether the run deletes a test's object once the test
// passed (passed true) or failed.
func (p TestHookPolicy) DeletesAfter(passed bool) bool {
	if passed {
		return p == TestDeleteOnSuccess || p == TestDelete
	}
	return p == TestDeleteOnFailure || p == TestDelete
}

// CheckOperatorName tells whether name can be an operator name: it prefixes
// annotation and label keys, so it must be a DNS subdomain.
func CheckOperatorName(name string) error {
	if len(validation.IsDNS1123Subdomain(name)) > 0 {
		return fmt.Errorf("operator name %q is invalid: it prefixes annotation and label keys, so it must be a DNS subdomain such as example.com "+
			"(lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most %d characters)", name, validation.DNS1123SubdomainMaxLength)
	}
	return nil
}

// Key returns the annotation or label key "<prefix>/<suffix>", where prefix is
// the operator name given to the reconciler.
func Key(prefix, suffix string) string {
	return prefix + "/" + suffix
}

// ReconcilePolicy says when an applied object is applied again.
type ReconcilePolicy string

// Reconcile policies.
const (
	ReconcileOnObjectChange            ReconcilePolicy = "on-object-change"
	ReconcileOnObjectOrComponentChange ReconcilePolicy = "on-object-or-component-change"
	ReconcileOnce                      ReconcilePolicy = "once"
)

// UpdatePolicy says how an existing object is updated.
type UpdatePolicy string

// Update policies.
const (
	// UpdateDefault is the reconciler's default policy, itself
	// UpdateSSAOverride unless the reconciler says otherwise.
	UpdateDefault UpdatePolicy = "default"
	// UpdateReplace writes the rendered object with a PUT: what other
	// writers set and the component does not render (a restart's
	// annotation, an injected label) is removed by every update.
	UpdateReplace UpdatePolicy = "replace"
	// UpdateSSAMerge applies the rendered object server-side with force:
	// the fields other managers own and the component does not render
	// stay. The applier's own earlier Update writes are taken over first,
	// so what it stops rendering goes.
	UpdateSSAMerge UpdatePolicy = "ssa-merge"
	// UpdateSSAOverride, the built-in default, is UpdateSSAMerge that also
	// takes over what people wrote by hand with kubectl (the engine's
	// TakeOver managers), so that the apply removes what the component does
	// not render; never what controllers, kubectl rollout or kubectl scale
	// wrote.
	UpdateSSAOverride UpdatePolicy = "ssa-override"
	// UpdateRecreate deletes the object and creates it again on every
	// change of its render.
	UpdateRecreate UpdatePolicy = "recreate"
	// UpdateReplaceOnImmutable updates as ssa-merge does, and deletes and
	// re-creates the object only when the API server refuses the update
	// because it changes an immutable field (a Job's spec.template, a
	// Service's clusterIP).
	UpdateReplaceOnImmutable UpdatePolicy = "replace-on-immutable"
)

// DeletePolicy says what happens to an object when it leaves the manifests
// (apply) or when the component is deleted (delete).
type DeletePolicy string

// Delete policies.
const (
	DeleteDefault        DeletePolicy = "default"
	DeleteDelete         DeletePolicy = "delete"
	DeleteOrphan         DeletePolicy = "orphan"
	DeleteOrphanOnApply  DeletePolicy = "orphan-on-apply"
	DeleteOrphanOnDelete DeletePolicy = "orphan-on-delete"
)

// DeletePropagation is the propagation policy the object is deleted with,
// which decides when it counts as gone.
type DeletePropagation string

// Delete propagations.
const (
	// PropagationBackground deletes the object at once; the garbage
	// collector removes its dependents (a Deployment's ReplicaSets and
	// pods) afterwards, while the next delete wave already runs.
	PropagationBackground DeletePropagation = "background"
	// PropagationForeground deletes with propagationPolicy Foreground: the
	// API server keeps the object, marked for deletion, until the garbage
	// collector has removed its dependents, so it is gone only after them.
	PropagationForeground DeletePropagation = "foreground"
	// PropagationOrphan deletes with propagationPolicy Orphan: the garbage
	// collector removes the dependents' owner references and keeps them.
	// Only for re-creating an object (replace-propagation), never for
	// deleting it.
	PropagationOrphan DeletePropagation = "orphan"
)

// CRDPolicy says how the CustomResourceDefinitions a component ships are
// applied; it has no effect on other objects.
type CRDPolicy string

// CRD policies.
const (
	// CRDCreateReplace creates missing CRDs and updates existing ones (the
	// default).
	CRDCreateReplace CRDPolicy = "CreateReplace"
	// CRDCreate creates missing CRDs and never updates them.
	CRDCreate CRDPolicy = "Create"
	// CRDSkip never creates, updates or deletes a CRD: rendered CRDs are
	// left out of the inventory, and one that an earlier pass installed
	// leaves the inventory without being deleted.
	CRDSkip CRDPolicy = "Skip"
)

// AdoptionPolicy says whether an existing object that the component does not
// own yet may be taken over.
type AdoptionPolicy string

// Adoption policies.
const (
	AdoptNever     AdoptionPolicy = "never"
	AdoptIfUnowned AdoptionPolicy = "if-unowned"
	AdoptAlways    AdoptionPolicy = "always"
)

// NamespacePolicy says whether a namespace that objects need, and that is
// neither among the manifests nor in the cluster, is created.
type NamespacePolicy string

// Namespace policies.
const (
	// NamespaceCreate creates the namespace, records it in the inventory and
	// never deletes it with the component (delete policy orphan).
	NamespaceCreate NamespacePolicy = "create"
	// NamespaceDoNotCreate refuses to apply objects whose namespace is missing.
	NamespaceDoNotCreate NamespacePolicy = "do-not-create"
)

// ParseNamespacePolicy checks a namespace policy given as text (a flag);
// empty means the default, create.
func ParseNamespacePolicy(value string) (NamespacePolicy, error) {
	switch p := NamespacePolicy(value); p {
	case "":
		return NamespaceCreate, nil
	case NamespaceCreate, NamespaceDoNotCreate:
		return p, nil
	}
	return "", fmt.Errorf("namespace policy %q is not one of %s, %s", value, NamespaceCreate, NamespaceDoNotCreate)
}

// OwnerID derives a stable owner label value (<name>/owner-id) from a
// component's identity.
func OwnerID(group, kind, namespace, name string) string {
	sum := sha256.Sum256([]byte(group + "\x00" + kind + "\x00" + namespace + "\x00" + name))
	return hex.EncodeToString(sum[:20])
}
