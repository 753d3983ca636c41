package engine

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/engine/internal/drift"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/expiry"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/live"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/readiness"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/runonce"
	"github.com/wavekit-dev/wavekit/pkg/engine/internal/writes"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// DefaultConcurrency is how many objects of one plan group an applier
// writes or deletes at once unless Options.Concurrency says otherwise.
const DefaultConcurrency = 16

// DefaultTakeOverManagers are the field managers whose fields the default
// update policy, ssa-override, takes over before it applies: what a person
// wrote by hand with kubectl's client-side verbs (apply without
// --server-side, create, edit, patch, replace, set) and fields written before
// managedFields existed. A field they set that the component does not
// render is then removed by the next apply of the object. Controllers are
// never taken over, and neither are kubectl rollout (a restart's
// annotation), kubectl scale, label and annotate: what they set stays.
var DefaultTakeOverManagers = []string{
	"before-first-apply", "kubectl", "kubectl-client-side-apply", "kubectl-create",
	"kubectl-edit", "kubectl-patch", "kubectl-replace", "kubectl-set",
}

// Options configure an Applier.
type Options struct {
	// Name is the operator name: annotation and label prefix and field owner.
	Name string
	// FieldOwner overrides Name as the field manager of writes.
	FieldOwner string
	// Defaults are the policies of objects without policy annotations.
	Defaults manifests.Defaults
	// TakeOver are the field managers whose fields (written with Update
	// requests: PUT, PATCH) the update policy ssa-override, the default,
	// takes over before it applies, so that the apply removes those the
	// component does not render (nil: DefaultTakeOverManagers; empty: none).
	// Every server-side apply also takes over the applier's own earlier
	// Update writes. Give the target's cache the same managers
	// (CachedTargetOptions.TakeOver).
	TakeOver []string
	// Concurrency bounds the objects of one plan group written or deleted
	// at once (default DefaultConcurrency).
	Concurrency int
	// Labels are set on every object written, besides the owner label: the
	// label of an operator's shard. Give the target's cache the same labels
	// (CachedTargetOptions.Labels) so that it holds only this shard's
	// objects. The applier then reads an object the cache lacks from the API
	// server before it takes it for gone, since it may carry another shard's
	// label still, and creates a new object by an apply the API server
	// refuses when the name is taken (the adoption policy then decides).
	Labels map[string]string
	// ObjectLabels are set on every object written too, but the target's
	// cache does not select by them, so it holds the objects of every
	// applier that differs from this one only in ObjectLabels: a defined
	// kind's label, which lets the reconcilers of one process share one
	// cache. The applier trusts such a cache as it trusts one without Labels.
	ObjectLabels map[string]string
	// AdditionalManagedTypes block deletion while foreign instances exist,
	// besides the types served by the component's CRDs and APIServices.
	AdditionalManagedTypes []manifests.TypeInfo
	// WriteLoop tunes the guard that stops correcting an object that is
	// changed back after every write (see WriteLoopError).
	WriteLoop WriteLoopOptions
	// Now returns the current time (tests replace it).
	Now func() time.Time
}

// LiveReader reads the current state of objects that carry the owner label.
// In an operator it is an informer cache restricted to that label (informers
// start on demand, one per kind); in the CLI a direct client does.
type LiveReader = live.Reader

// Defaults of the write-loop guard (Options.WriteLoop).
const (
	DefaultWriteLoopWrites  = writes.DefaultWrites
	DefaultWriteLoopWindow  = writes.DefaultWindow
	DefaultWriteLoopBackoff = writes.DefaultBackoff
)

// WriteLoopOptions tune the guard that stops a write loop: an object written
// again and again at one render because something changes it back after
// every write (a second controller that fights over a field without an
// ignore rule, a field the API server does not store as rendered).
type WriteLoopOptions = writes.LoopOptions

// WriteLoopError says that an object was corrected too often at one render
// and is left alone until RetryAt: whatever changes it after each write
// wins until then.
type WriteLoopError = writes.LoopError

// Target is the cluster an Applier works on.
type Target struct {
	// Client writes, and reads what the owner label cannot select (adoption,
	// foreign instances). It must carry a RESTMapper that learns new CRDs.
	Client client.Client
	// Live reads objects that carry the owner label, ideally from a cache.
	Live LiveReader
	// Discovery lists the resources of the cluster (for wildcard managed types).
	Discovery discovery.DiscoveryInterface

	// deleter, when set (NewCachedTarget sets it), deletes with requests
	// whose answers say whether an object is gone at once.
	deleter *live.Deleter
	// ends, when set (NewCachedTarget sets it), holds the last state the
	// cache saw of the objects that run to completion: run-once objects and
	// tests (internal/runonce).
	ends *runonce.EndStates
	// probes, when set (NewCachedTarget sets it), remember the kinds the
	// target's appliers probed, so that each is listed once a target.
	probes *live.Probes
}

// Owner is the component that owns the objects of an Apply or Delete.
type Owner struct {
	// ID is the value of the owner label; see OwnerID.
	ID string
	// Description names the owner in messages, e.g. "Component default/demo".
	Description string
	// UID, when set, is the component's: the applier then remembers at
	// which render it created the owner's run-once objects, so that a Job
	// whose record was lost with a status write that failed, and which the
	// cluster deleted already, is not created a second time.
	UID types.UID
	// Namespace is given to namespaced objects that have none.
	Namespace string
	// Generation of the component, for on-object-or-component-change.
	Generation int64
	// Defaults, where set, override the applier's defaults for this owner.
	Defaults manifests.Defaults
	// AdditionalManagedTypes are added to the applier's for this owner.
	AdditionalManagedTypes []manifests.TypeInfo
	// Force writes every object the pass reaches, changed or not, drifted
	// or not; never one with reconcile-policy once, one being deleted, or a
	// purged one (Completed), which would run again.
	Force bool
	// Drift says how changes others make to the owner's objects are
	// treated: corrected (the default), reported, or not looked for, and
	// which fields are left to other writers.
	Drift manifests.DriftSettings
	// HealthChecks judge the live objects of their kinds with CEL where
	// kstatus would (a wave waits until they say Current); an expression that
	// does not compile fails the pass before any write, as a
	// manifests.UserError.
	HealthChecks []manifests.HealthCheck
	// Externals, where set, are the owner's dependents outside Kubernetes,
	// applied and deleted in their waves beside the objects (Apply and
	// Delete; Preview and Diff leave them out).
	Externals Externals
}

// SaveFunc persists the inventory (a status write, a Secret write). The
// applier calls it before it creates objects that are new to the inventory.
type SaveFunc func(ctx context.Context, items []manifests.InventoryItem) error

// Applier applies rendered objects in waves and deletes them again.
type Applier struct {
	opts   Options
	target Target
	mapper meta.RESTMapper
	// reporting: which custom kinds report status.observedGeneration.
	reporting *readiness.ObservedGenerations
	scheme    *runtime.Scheme
	live      *live.Objects
	drift     *drift.Detector
	stored    *drift.StoredForms
	loops     *writes.Loops
	own       *writes.Own
	purges    *writes.Purges
	// runs are the UIDs of the run-once objects that ran at their item's
	// render, as the applier created or saw them: the only UIDs whose end
	// states judge them (runonce.go).
	runs *expiry.Map[manifests.ObjectKey, types.UID]
	// ranAt copies the inventory's records of run-once objects that ran,
	// in case the status that carried one is not written (runonce.go).
	ranAt *runonce.Records
	// namespaces are the namespaces a read found to exist, for
	// namespaceMemory: the objects of many new components in one
	// namespace read it once, not once a pass each (namespaces.go).
	namespaces *expiry.Map[string, bool]
}

// withDefaults fills in what o leaves to its defaults.
func (o Options) withDefaults() Options {
	if o.FieldOwner == "" {
		o.FieldOwner = o.Name
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.TakeOver == nil {
		o.TakeOver = DefaultTakeOverManagers
	}
	o.Defaults = o.Defaults.WithFallbacks()
	return o
}

// NewApplier returns an applier for one target cluster. Keep it for the
// lifetime of the target: it remembers what it wrote.
func NewApplier(target Target, opts Options) (*Applier, error) {
	if opts.Name == "" {
		return nil, fmt.Errorf("applier options: Name (the operator name) is required")
	}
	if target.Client == nil || target.Live == nil {
		return nil, fmt.Errorf("applier target: Client and Live are required")
	}
	opts = opts.withDefaults()
	return &Applier{
		opts:       opts,
		target:     target,
		mapper:     target.Client.RESTMapper(),
		scheme:     target.Client.Scheme(),
		live:       live.New(target.Live, target.Client, opts.Now, target.probes),
		reporting:  &readiness.ObservedGenerations{},
		drift:      drift.NewDetector(),
		stored:     drift.NewStoredForms(target.Client.Scheme()),
		loops:      writes.NewLoops(opts.WriteLoop, opts.Now),
		own:        writes.NewOwn(),
		purges:     writes.NewPurges(opts.Now),
		runs:       expiry.New[manifests.ObjectKey, types.UID](runonce.EndStateMemory, opts.Now),
		ranAt:      runonce.NewRecords(opts.Now),
		namespaces: expiry.New[string, bool](namespaceMemory, opts.Now),
	}, nil
}

// OwnerLabel is the label key that marks the objects this applier owns.
func (a *Applier) OwnerLabel() string { return manifests.Key(a.opts.Name, manifests.LabelOwnerID) }

// CheckListable makes sure the target's identity may list gvk where the
// informer for objects in namespace would list (once per kind): call it
// before starting an informer, which would otherwise retry a Forbidden list
// forever instead of saying so.
func (a *Applier) CheckListable(ctx context.Context, gvk schema.GroupVersionKind, namespace string) error {
	return a.live.Probe(ctx, gvk, namespace)
}

// ownerAnnotation names the owner in words, for conflict messages.
func (a *Applier) ownerAnnotation() string {
	return manifests.Key(a.opts.Name, manifests.AnnotationOwner)
}

// ClaimEvent tells whether a watch event of obj needs no reaction from the
// owner's reconciler now. It does not when obj is the version the applier
// itself wrote last; the cache then holds that write, so the applier lets go
// of the copy it kept until then. Nor does it while the applier is writing
// obj, since the API server may send a write's event before its answer: the
// applier holds the event and calls react once the write returns, unless the
// event was that write. Any other event is someone else's change.
func (a *Applier) ClaimEvent(obj client.Object, react func()) bool {
	key := live.KeyOf(obj)
	own, held := a.own.Claim(key, obj.GetResourceVersion(), react)
	if own {
		a.live.CaughtUp(key, obj.GetResourceVersion())
	}
	return own || held
}

// ObjectGone tells the applier that a delete event took obj out of the
// cache, so the record it kept of deleting obj (which makes a lagging cache
// read as "being deleted") has served. The state a test or a Job was
// deleted in needs no report: the cache of a NewCachedTarget keeps it.
func (a *Applier) ObjectGone(obj client.Object) {
	a.live.Gone(live.KeyOf(obj), obj.GetUID())
}
