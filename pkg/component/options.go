package component

import (
	"time"

	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/targets"
	"github.com/wavekit-dev/wavekit/pkg/component/pool"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/external"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// DefaultMaxConcurrentReconciles is how many components a reconciler works
// on at once unless told otherwise. On two cores, 1000 components of 4
// objects each were all Ready in 47 s with 1, 30 s with 4 and 27 s with 8
// (make bench); beyond that the API server is the limit.
const DefaultMaxConcurrentReconciles = 8

// DefaultRequeueInterval is how long after success a component is looked
// at again unless told otherwise.
const DefaultRequeueInterval = 10 * time.Minute

// DefaultMaxObjectBytes is etcd's default request limit (1.5 MiB), less
// room for the key and the request's framing: an object larger than that
// cannot be stored by an API server on a default etcd.
const DefaultMaxObjectBytes = 1536*1024 - 16*1024

// DefaultWaveHeldAfter is how long a wave may wait for its objects before
// the Notifier is told that it is held, unless told otherwise.
const DefaultWaveHeldAfter = 5 * time.Minute

// ReconcilerOptions tune a Reconciler. Zero values take the defaults noted.
type ReconcilerOptions struct {
	// ExternalProviders manage the dependents outside Kubernetes that a
	// render names (objects of group external.wavekit.dev), by kind; a
	// render that names a kind without one is refused.
	ExternalProviders map[string]external.Provider
	// External tunes the polls of external dependents (interval, jitter,
	// concurrency).
	External external.Options
	// FieldOwner of every write (default: the operator name).
	FieldOwner string
	// Finalizer set on components (default: "<operator name>/finalizer"; the
	// bare operator name that earlier versions set is replaced by it).
	Finalizer string
	// Defaults are the object policies when neither object nor component sets
	// one; Defaults.Namespace is the namespace policy (create, or do-not-create).
	Defaults manifests.Defaults
	// TakeOver are the field managers whose fields the update policy
	// ssa-override (the default) takes over before it applies (nil:
	// engine.DefaultTakeOverManagers, what people write with kubectl's
	// client-side verbs; empty: none). See engine.Options.TakeOver.
	TakeOver []string
	// WriteLoop tunes the guard that stops correcting an object that is
	// changed back after every write (engine.WriteLoopOptions); the
	// component is then not Ready, with reason WriteLoop.
	WriteLoop engine.WriteLoopOptions
	// Concurrency bounds the objects written or deleted at once within one
	// wave and stage (default engine.DefaultConcurrency).
	Concurrency int
	// RequeueInterval: how long after success the component is looked at again (default 10m).
	RequeueInterval time.Duration
	// RetryInterval: how long after a retriable error (default 10s).
	RetryInterval time.Duration
	// Timeout: how long a component may take to become ready (default 10m).
	Timeout time.Duration
	// ReapplyInterval applies every object again after this long (default off).
	ReapplyInterval time.Duration
	// MaxConcurrentReconciles of the controller (default
	// DefaultMaxConcurrentReconciles).
	MaxConcurrentReconciles int
	// RateLimiter of the controller's queue (default controller-runtime's).
	RateLimiter workqueue.TypedRateLimiter[reconcile.Request]
	// Pool, when set, is the controller the reconciler works in, as a lane
	// of its own, beside the reconcilers of other kinds (package pool):
	// it has no controller, queue or workers of its own, and
	// MaxConcurrentReconciles and RateLimiter are the pool's. A reconciler
	// in a pool takes no WithWatch. For a process that serves many kinds.
	Pool *pool.Pool
	// MaxObjectBytes is the largest a component may grow, as JSON, when its
	// status is written (default DefaultMaxObjectBytes). A status that would
	// pass it is not written and the component reports why instead.
	MaxObjectBytes int
	// DefaultServiceAccount turns the multi-tenant lockdown on: a component
	// that names no service account of its own is applied, read and deleted
	// as system:serviceaccount:<its namespace>:<DefaultServiceAccount>.
	DefaultServiceAccount string
	// NoCrossNamespaceRefs refuses a component whose placement namespace is
	// not its own namespace.
	NoCrossNamespaceRefs bool
	// InsecureKubeConfigExec allows kubeconfigs from Secrets to use exec and
	// auth-provider users, which run code in the operator (default refused).
	InsecureKubeConfigExec bool
	// TargetTimeout bounds connecting to a target: a cluster that does not
	// answer within it is a retriable error that names it (default 30s).
	TargetTimeout time.Duration
	// ReconcileTimeout bounds one reconcile, every request to a target
	// included (default 2m); readiness fails while a reconcile runs longer.
	ReconcileTimeout time.Duration
	// Filter, if set, selects the components this reconciler handles; others
	// are left alone (no finalizer, no status).
	Filter func(Component) bool
	// Selector, if set, selects by label the components this reconciler
	// handles, as Filter does, and before any read: a shard of an operator
	// (ShardSelector). Give the manager a cache with the same selector
	// (CacheFor), so that other components are not even held in memory. A
	// component whose labels stop matching is left as it is, for the
	// reconciler that matches it now to take over.
	Selector labels.Selector
	// Namespaces are the namespaces the manager's cache watches components
	// in (its DefaultNamespaces, an operator's --watch-namespaces); empty:
	// every namespace. The informers and lists the reconciler makes itself
	// stay within them: the target caches of its own identity (the
	// manager's config, neither impersonated nor from a kubeconfig Secret)
	// and the watch of other shards' components' dependencies. A Role in
	// each of them is then enough, as the operator chart grants with
	// watchNamespaces; an object placed in another namespace is read and
	// written there directly, not watched.
	Namespaces []string
	// DependentLabels are set on every object the reconciler applies, and
	// its target caches hold only objects that carry them: a shard's label
	// (ShardLabels), so that each shard caches and watches its own objects
	// only. An object that still carries another shard's label after its
	// component moved is read from the API server, adopted (its owner label
	// is the same) and relabelled, never re-created nor taken for gone.
	DependentLabels map[string]string
	// ObjectLabels are set on every object the reconciler applies too, but
	// its target caches do not select by them: the Reconcilers of one
	// process whose options differ only in ObjectLabels (and in what only
	// the applier reads: Defaults, Concurrency, WriteLoop) share one
	// connection, cache and watch per target cluster and identity. A
	// defined kind's `<operator>/instance-of` label is one.
	ObjectLabels map[string]string
	// TracerProvider, if set, traces every Reconcile: a span for the
	// Reconcile (namespace, name, generation, uid, outcome), and within it
	// the read, the render, the plan, each wave, each Job and test, and the
	// status write (docs/observability.md). Nil turns tracing off: no span,
	// no goroutine, no allocation. pkg/tracing builds one from the OTEL_*
	// environment variables.
	TracerProvider trace.TracerProvider
	// Notifier, if set, is told what happens to components (pkg/notify):
	// Ready after a change, failed, stalled, rolled back, deletion blocked
	// by foreign instances, drift corrected or reported, a wave held longer
	// than WaveHeldAfter. It is told when the status comes to say something
	// new, not at each pass: a retrying pass that fails the same way tells
	// nothing. Its Send must not block (a notify.Dispatcher does not). Nil
	// turns alerts off: no event is built, nothing is sent.
	Notifier notify.Sink
	// WaveHeldAfter is how long a wave may wait for its objects before the
	// Notifier is told, once per wave and attempt (default
	// DefaultWaveHeldAfter; negative: never). A wave still waiting at the
	// component's Timeout fails with reason Timeout, which it is told too.
	WaveHeldAfter time.Duration
	// RenderKey is the Secret that holds the keys the kept renders are
	// sealed with (created on first use; keptrenders.go). Default:
	// DefaultRenderKey(name).
	RenderKey types.NamespacedName
}

func (o ReconcilerOptions) withDefaults(name string) ReconcilerOptions {
	if o.FieldOwner == "" {
		o.FieldOwner = name
	}
	if o.Finalizer == "" {
		o.Finalizer = name + "/finalizer"
	}
	if o.RequeueInterval <= 0 {
		o.RequeueInterval = DefaultRequeueInterval
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = 10 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.MaxConcurrentReconciles <= 0 {
		o.MaxConcurrentReconciles = DefaultMaxConcurrentReconciles
	}
	if o.TargetTimeout <= 0 {
		o.TargetTimeout = engine.DefaultStartTimeout
	}
	if o.ReconcileTimeout <= 0 {
		o.ReconcileTimeout = 2 * time.Minute
	}
	if o.MaxObjectBytes <= 0 {
		o.MaxObjectBytes = DefaultMaxObjectBytes
	}
	if o.WaveHeldAfter == 0 {
		o.WaveHeldAfter = DefaultWaveHeldAfter
	}
	if o.RenderKey.Name == "" {
		o.RenderKey.Name = DefaultRenderKey(name).Name
	}
	if o.RenderKey.Namespace == "" {
		o.RenderKey.Namespace = OwnNamespace()
	}
	return o
}

// targetOptions are what the reconciler's targets are made with: the
// appliers' and caches' options, and how a target is reached.
func (r *core) targetOptions() targets.Options {
	o := r.opts
	return targets.Options{
		Applier: engine.Options{
			Name: r.name, FieldOwner: o.FieldOwner, Defaults: o.Defaults, Concurrency: o.Concurrency,
			Labels: o.DependentLabels, ObjectLabels: o.ObjectLabels, TakeOver: o.TakeOver, WriteLoop: o.WriteLoop,
		},
		Namespaces: o.Namespaces, StartTimeout: o.TargetTimeout, NoCrossNamespaceRefs: o.NoCrossNamespaceRefs,
		InsecureKubeConfigExec: o.InsecureKubeConfigExec, Wrap: CountRequests,
	}
}
