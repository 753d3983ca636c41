package component

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// run is the state of one reconcile of one component.
type run[T Component] struct {
	r         *Reconciler[T]
	component T
	id        types.NamespacedName
	written   Status                // the status as last read or written
	source    *manifests.SourceInfo // where the generator said the objects come from
	start     time.Time             // when the reconcile began
	writes    int                   // the objects the reconcile wrote or deleted
}

// Reconcile brings one component's objects to their rendered state, or
// deletes them when the component is being deleted, and records the outcome
// in its status. It writes the status only when it changed.
func (r *Reconciler[T]) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	start := time.Now()
	reconcilesStarted.WithLabelValues(r.name).Inc()
	result := resultFailed
	defer func() {
		reconcileDuration.WithLabelValues(r.name).Observe(time.Since(start).Seconds())
		reconcilesFinished.WithLabelValues(r.name, result).Inc()
	}()
	component, err := r.read(ctx, req.NamespacedName)
	if errors.Is(err, errFinalized) {
		result = resultGone
		return ctrl.Result{}, nil
	}
	if apierrors.IsNotFound(err) {
		result = resultGone
		r.forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading %s: %w", req.NamespacedName, err)
	}
	if !r.selects(component) {
		// Another shard's now: it takes over from the status as stored.
		result = resultSkipped
		r.forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	if r.opts.Filter != nil && !r.opts.Filter(component) {
		result = resultSkipped
		return ctrl.Result{}, nil
	}
	rn := &run[T]{r: r, component: component, id: req.NamespacedName, written: *component.GetStatus().DeepCopy(), start: start}
	o := rn.pass(ctx)
	result = o.result()
	return rn.finish(ctx, o)
}

// pass applies the component, or deletes it once it is being deleted.
func (rn *run[T]) pass(ctx context.Context) outcome {
	if err := rn.r.runHooks(ctx, rn.r.postRead, rn.component); err != nil {
		return rn.fail(fmt.Errorf("post-read hook: %w", err))
	}
	if rn.component.GetDeletionTimestamp() != nil {
		return rn.delete(ctx)
	}
	return rn.apply(ctx)
}

// errFinalized is read's answer for a component whose finalizer this
// reconciler removed, which a lagging cache may still show.
var errFinalized = errors.New("finalizer removed: the deletion is over")

func (r *Reconciler[T]) read(ctx context.Context, id types.NamespacedName) (T, error) {
	var zero T
	obj := newObject[T]()
	if err := r.client.Get(ctx, id, obj); err != nil {
		return zero, err
	}
	if r.status.isFinalized(obj) {
		return zero, errFinalized
	}
	return r.status.newest(obj), nil
}

func (r *Reconciler[T]) forget(id types.NamespacedName) {
	r.status.forget(id)
	r.notes.forget(id)
	r.hooks.forget(id)
	if r.renders != nil {
		r.renders.forget(id)
	}
	r.gauge.observe(id.String(), nil)
	objectWrites.DeleteLabelValues(r.name, id.Namespace, id.Name)
	if r.targets != nil {
		r.targets.release(id)
	}
}

func (r *Reconciler[T]) runHooks(ctx context.Context, hooks []HookFunc[T], component T) error {
	for _, h := range hooks {
		if err := h(ctx, r.client, component); err != nil {
			return err
		}
	}
	return nil
}

// statusWriteTimeout bounds the final status write of a reconcile.
const statusWriteTimeout = 10 * time.Second

// outcome is what a reconcile concluded: the Ready reason and message, and
// when to look again.
type outcome struct {
	reason  string
	message string
	requeue time.Duration
	err     error  // returned to controller-runtime (its rate limiter backs off)
	event   string // the Event's reason, when not the Ready reason
	gone    bool   // the finalizer was removed: no status to write
	stalled bool   // only a change helps: Stalled, and no backoff
	// warning makes the Event a Warning whatever the reason: a fetch or
	// render that failed, even one retried (Retrying).
	warning bool
	// failedAttempt: the try at the render failed (an object failed or was
	// refused, or it was not ready in time), which remediation counts.
	failedAttempt bool
}

// result names the outcome in the reconcile metrics.
func (o outcome) result() string {
	if o.gone {
		return resultDeleted
	}
	return o.reason
}

func (rn *run[T]) fail(err error) outcome {
	if o, ok := rn.refused(err); ok {
		return o
	}
	if retry, ok := asRetriable(err); ok {
		o := outcome{reason: ReasonRetrying, message: err.Error(), requeue: rn.r.retryInterval(rn.component)}
		if retry.RetryAfter != nil {
			o.requeue = *retry.RetryAfter
		}
		return o
	}
	if apierrors.IsConflict(err) {
		return outcome{reason: ReasonRetrying, message: err.Error(), requeue: time.Second}
	}
	if o, failed := rn.verificationFailed(err); failed {
		return o
	}
	var rejected *rejectedStatusError
	if errors.As(err, &rejected) {
		// Only a new CRD helps, and its update sends no event: look again
		// at the retry interval rather than with ever longer backoff.
		return outcome{reason: ReasonError, event: ReasonStatusRejected, message: err.Error(), requeue: rn.r.retryInterval(rn.component), stalled: true}
	}
	var loop *engine.WriteLoopError
	if errors.As(err, &loop) {
		// The object is left alone until RetryAt, whatever events come.
		return outcome{reason: ReasonWriteLoop, message: err.Error(), requeue: max(time.Until(loop.RetryAt), time.Second), stalled: true}
	}
	var tooLarge *tooLargeError
	if engine.NeedsChange(err) || errors.As(err, &tooLarge) {
		// Trying again unchanged cannot help: look again on a change, or at
		// the retry interval, rather than with ever longer backoff.
		return outcome{reason: ReasonError, message: err.Error(), requeue: rn.r.retryInterval(rn.component), stalled: true}
	}
	return outcome{reason: ReasonError, message: err.Error(), err: err}
}

// finish records the outcome in the status, writes it if it changed and
// emits an event when the outcome is new. A status the API server refuses
// is reported in its stead (finishTooLarge, finishRejected), with an event
// of its own.
func (rn *run[T]) finish(ctx context.Context, o outcome) (ctrl.Result, error) {
	if o.gone {
		return ctrl.Result{}, nil
	}
	rn.logOutcome(ctx, o)
	status := rn.component.GetStatus()
	status.setReady(rn.component.GetGeneration(), o.reason, o.message, o.stalled)
	rn.recordReconcileRequest()
	rn.r.gauge.observe(rn.id.String(), status)
	// The outcome is written even when the reconcile ran out of its time: a
	// fresh context, bounded on its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statusWriteTimeout)
	defer cancel()
	err := rn.writeStatus(ctx)
	var tooLarge *tooLargeError
	var rejected *rejectedStatusError
	switch {
	case errors.As(err, &tooLarge):
		return rn.finishTooLarge(ctx, err)
	case errors.As(err, &rejected):
		return rn.finishRejected(ctx, err)
	case apierrors.IsConflict(err):
		// Someone changed the component since it was read: start over.
		return ctrl.Result{RequeueAfter: time.Second}, nil
	case apierrors.IsNotFound(err):
		// Deleted meanwhile (a stale read of a component whose deletion
		// just finished): there is nothing left to report on.
		rn.r.forget(rn.id)
		return ctrl.Result{}, nil
	}
	if rn.r.note(rn.component, o, rn.writes > 0) && o.reason == ReasonWriteLoop {
		log.FromContext(ctx).Info("stopped writing an object that is changed back after every write", "message", o.message)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: o.requeue}, o.err
}

// finishTooLarge reports a status too large to store. It keeps the inventory
// as last stored, which already records every object the pass may have
// created, since new items are stored before their objects are created.
func (rn *run[T]) finishTooLarge(ctx context.Context, tooLarge error) (ctrl.Result, error) {
	status := rn.component.GetStatus()
	status.Inventory = rn.written.Inventory
	status.setReady(rn.component.GetGeneration(), ReasonError, tooLarge.Error(), true)
	rn.r.gauge.observe(rn.id.String(), status)
	rn.r.note(rn.component, outcome{reason: ReasonError, message: tooLarge.Error(), stalled: true}, false)
	if err := rn.writeStatus(ctx); err != nil && !apierrors.IsConflict(err) {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, tooLarge
}

// writeStatus writes the status if it differs from what was read or last
// written (optimistic locking through the resourceVersion).
func (rn *run[T]) writeStatus(ctx context.Context) error {
	status := rn.component.GetStatus()
	if apiequality.Semantic.DeepEqual(*status, rn.written) || rn.r.pruned.sameButPruned(status, &rn.written) {
		return nil
	}
	if !apiequality.Semantic.DeepEqual(status.Inventory, rn.written.Inventory) {
		if err := rn.checkSize(); err != nil {
			return err
		}
	}
	sent := jsonMap(status)
	if err := rn.r.client.Status().Update(ctx, rn.component, client.FieldOwner(rn.r.opts.FieldOwner)); err != nil {
		if apierrors.IsInvalid(err) {
			err = rn.rejected(ctx, err)
		}
		return fmt.Errorf("writing status of %s: %w", rn.id, err)
	}
	rn.noticePruned(ctx, sent)
	rn.written = *status.DeepCopy()
	rn.r.status.remember(rn.component)
	return nil
}

// checkSize refuses an inventory that would make the component larger than
// the API server can store once its objects are applied, with a message that
// says what to do, rather than letting etcd reject the write ("request is too
// large") or, worse, accept it and reject the next one.
func (rn *run[T]) checkSize() error {
	data, err := json.Marshal(rn.component)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", rn.id, err)
	}
	inventory := rn.component.GetStatus().Inventory
	size := len(data)
	for _, item := range inventory {
		size += item.AppliedGrowth()
	}
	if limit := rn.r.opts.MaxObjectBytes; size > limit {
		return &tooLargeError{message: fmt.Sprintf(
			"component %s would take %s with an inventory of %d objects, more than the %s an object may take (etcd's default request limit is 1.5 MiB): split it into smaller components",
			rn.id, byteSize(size), len(inventory), byteSize(limit))}
	}
	return nil
}

// tooLargeError says that a status was not written because the component
// would be too large to store.
type tooLargeError struct{ message string }

func (e *tooLargeError) Error() string { return e.message }

// byteSize writes n in KiB, or in MiB from 1 MiB on.
func byteSize(n int) string {
	if n < 1<<20 {
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 2, 64) + " MiB"
}

// note emits an Event for an outcome that differs from the component's last
// one, and reports whether it did. A Normal outcome differs by its reason,
// not its message, which follows progress and would cost an Event a step;
// a Warning differs by its message too. An outcome in progress after a
// pass that wrote objects (inPass) is remembered without an Event: the
// pass's Events (Created, Updated, Deleted) already say what goes on.
func (r *Reconciler[T]) note(component T, o outcome, inPass bool) bool {
	id := types.NamespacedName{Namespace: component.GetNamespace(), Name: component.GetName()}
	reason := o.reason
	if o.event != "" {
		reason = o.event
	}
	kind, key := "Normal", reason
	if o.warns() {
		kind, key = "Warning", reason+"\x00"+o.message
	}
	if r.recorder == nil || !r.notes.changed(id, key) {
		return false
	}
	if kind == "Normal" && inPass && o.reason != ReasonReady {
		return false
	}
	r.recorder.Eventf(component, nil, kind, reason, "Reconcile", "%s", o.message)
	return true
}

// warns tells whether the outcome is a failure or a problem: its Event is
// a Warning, and its reconcile is logged.
func (o outcome) warns() bool {
	switch o.reason {
	case ReasonError, ReasonTimeout, ReasonDeletionBlocked, ReasonRolledBack, ReasonWriteLoop, ReasonTestFailed, ReasonVerificationFailed:
		return true
	}
	return o.warning || o.err != nil
}

// logOutcome logs one line at info level for a reconcile that wrote or
// deleted objects or failed: the component, its revision, the objects
// written and how long it took. A reconcile that changed nothing logs at
// debug level only.
func (rn *run[T]) logOutcome(ctx context.Context, o outcome) {
	logger := log.FromContext(ctx)
	if rn.writes == 0 && !o.warns() {
		logger = logger.V(1)
	}
	logger.Info("reconciled", "component", rn.id.String(), "revision", rn.component.GetGeneration(),
		"objectsWritten", rn.writes, "duration", time.Since(rn.start).Round(time.Millisecond).String(),
		"reason", o.reason, "message", o.message, "requeue", o.requeue)
}

// owner describes the component to the applier.
func (rn *run[T]) owner() (engine.Owner, error) {
	c := rn.component
	gvk, err := apiutil.GVKForObject(c, rn.r.client.Scheme())
	if err != nil {
		return engine.Owner{}, fmt.Errorf("finding the kind of %s: %w", rn.id, err)
	}
	namespace, _ := rn.placement()
	owner := engine.Owner{
		ID:          manifests.OwnerID(gvk.Group, gvk.Kind, c.GetNamespace(), c.GetName()),
		Description: gvk.Kind + " " + rn.id.String(),
		Namespace:   namespace,
		Generation:  c.GetGeneration(),
	}
	if pc, ok := optional[PolicyConfiguration](c); ok {
		owner.Defaults = pc.GetPolicies()
	}
	// An object's annotation wins over these (ParsePolicies); the
	// component's own setting over the reconciler's.
	if rc, ok := optional[ReapplyConfiguration](c); ok && rc.GetReapplyInterval() > 0 {
		owner.Defaults.ReapplyInterval = rc.GetReapplyInterval()
	}
	if owner.Defaults.ReapplyInterval == 0 {
		owner.Defaults.ReapplyInterval = rn.r.opts.ReapplyInterval
	}
	if tc, ok := optional[TypeConfiguration](c); ok {
		owner.AdditionalManagedTypes = tc.GetAdditionalManagedTypes()
	}
	if dc, ok := optional[DriftConfiguration](c); ok {
		owner.Drift = dc.GetDrift()
	}
	if hc, ok := optional[HealthCheckConfiguration](c); ok {
		owner.HealthChecks = hc.GetHealthChecks()
	}
	return owner, nil
}

// placement returns the namespace and name the objects are rendered for.
func (rn *run[T]) placement() (string, string) {
	namespace, name := rn.component.GetNamespace(), rn.component.GetName()
	if pc, ok := optional[PlacementConfiguration](rn.component); ok {
		if ns := pc.GetDeploymentNamespace(); ns != "" {
			namespace = ns
		}
		if n := pc.GetDeploymentName(); n != "" {
			name = n
		}
	}
	return namespace, name
}

func (r *Reconciler[T]) retryInterval(c T) time.Duration {
	if rc, ok := optional[RetryConfiguration](c); ok && rc.GetRetryInterval() > 0 {
		return rc.GetRetryInterval()
	}
	return r.opts.RetryInterval
}

func (r *Reconciler[T]) requeueInterval(c T) time.Duration {
	if rc, ok := optional[RequeueConfiguration](c); ok && rc.GetRequeueInterval() > 0 {
		return rc.GetRequeueInterval()
	}
	return r.opts.RequeueInterval
}

func (r *Reconciler[T]) timeout(c T) time.Duration {
	if tc, ok := optional[TimeoutConfiguration](c); ok && tc.GetTimeout() > 0 {
		return tc.GetTimeout()
	}
	return r.opts.Timeout
}

// describeWaiting lists the first few objects a wave waits for, with
// their progress.
func describeWaiting(prefix string, waiting []engine.Waiting) string {
	return describeWith(prefix, waiting, engine.Summarize)
}

// describeStates lists the first few objects a wave waits for without
// their progress: the status says which objects are not ready and in what
// state, and is not written again at each replica of a rollout.
func describeStates(prefix string, waiting []engine.Waiting) string {
	return describeWith(prefix, waiting, engine.SummarizeStates)
}

func describeWith(prefix string, waiting []engine.Waiting, summarize func([]engine.Waiting, int) string) string {
	if len(waiting) == 0 {
		return prefix
	}
	return prefix + ": " + summarize(waiting, 5)
}
