package definition

import (
	"context"
	"errors"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/definition/crdgen"
	"github.com/wavekit-dev/wavekit/internal/definition/rollout"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// The reasons of a definition's Ready condition.
const (
	// ReasonServed: the kind is served and every instance runs the newest
	// revision (pinned ones aside).
	ReasonServed = "Served"
	// ReasonInvalid: the definition says something that cannot be (a
	// group, names, columns, a values mapping); nothing was changed.
	ReasonInvalid = "Invalid"
	// ReasonInvalidSchema: the schema cannot be made a CRD's.
	ReasonInvalidSchema = "InvalidSchema"
	// ReasonKindClash: the kind is another CRD's.
	ReasonKindClash = "KindClash"
	// ReasonSourceRefused: the source is not allowed, fails its
	// verification, or does not resolve.
	ReasonSourceRefused = "SourceRefused"
	// ReasonSourceUnavailable: the source cannot be reached now; retried.
	ReasonSourceUnavailable = "SourceUnavailable"
	// ReasonSchemaBreaksInstances: a new revision's schema would make
	// existing instances invalid; it was not made.
	ReasonSchemaBreaksInstances = "SchemaBreaksInstances"
	// ReasonEstablishing: the CRD is written, not served yet.
	ReasonEstablishing = "Establishing"
	// ReasonRollingOut, ReasonRolloutPaused, ReasonRolloutHalted: where
	// the move to the newest revision is.
	ReasonRollingOut    = "RollingOut"
	ReasonRolloutPaused = "RolloutPaused"
	ReasonRolloutHalted = "RolloutHalted"
)

// AnnotationAcceptBreakingRevision is the suffix of the annotation
// "<operator>/accept-breaking-revision" whose value, a revision's number,
// makes that revision although its schema breaks existing instances.
const AnnotationAcceptBreakingRevision = "accept-breaking-revision"

// refusal is a definition the controller will not act on until it changes.
type refusal struct {
	reason string
	err    error
}

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// reconciler is the controller of ComponentDefinitions.
type reconciler struct {
	client   client.Client
	api      client.Reader
	kinds    *Kinds
	opts     Options
	recorder events.EventRecorder
	resolved *resolutions
	label    string // <operator>/definition
	checked  *checkedCRDs
}

// Reconcile brings a definition's revision, CRD, roles, served kind and
// rollout to what it says, and writes its status once, when it changed.
func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	def := &v1alpha1.ComponentDefinition{}
	if err := r.client.Get(ctx, req.NamespacedName, def); err != nil {
		if apierrors.IsNotFound(err) {
			r.resolved.put(req.Name, nil)
			return ctrl.Result{}, r.kinds.Stop(req.Name)
		}
		return ctrl.Result{}, err
	}
	if !def.DeletionTimestamp.IsZero() {
		return r.delete(ctx, def)
	}
	if !controllerutil.ContainsFinalizer(def, r.finalizer()) {
		patch := client.MergeFromWithOptions(def.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.AddFinalizer(def, r.finalizer())
		if err := r.client.Patch(ctx, def, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding the finalizer to ComponentDefinition %s: %w", def.Name, err)
		}
	}
	before := def.DeepCopy()
	p := &pass{r: r, def: def}
	result, err := p.run(ctx)
	p.conclude(err)
	statusErr := r.writeStatus(ctx, before, def)
	if statusErr == nil {
		r.tell(before, def)
	}
	var refused *refusal
	if errors.As(err, &refused) {
		err = nil // said in the status; only a change of the definition helps
	}
	if apierrors.IsConflict(statusErr) {
		// The cache held an older definition (a status this controller
		// wrote, whose event brings no pass): look again once it caught up.
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	return result, errors.Join(err, statusErr)
}

func (r *reconciler) finalizer() string { return manifests.Key(r.opts.Name, "definition") }

// pass is one reconcile of a definition.
type pass struct {
	r   *reconciler
	def *v1alpha1.ComponentDefinition
	res *resolution

	established bool
	instances   []unstructured.Unstructured
}

// run does the work of a pass: the kind served as it is (after a restart,
// even while its source cannot be resolved), the definition's content made
// a revision, CRD and roles, then the rollout; the status says how far it
// got.
func (p *pass) run(ctx context.Context) (ctrl.Result, error) {
	if err := p.checkGroup(); err != nil {
		return ctrl.Result{}, err
	}
	if err := p.serveExisting(ctx); err != nil {
		return ctrl.Result{RequeueAfter: time.Second}, err
	}
	result, err := p.revise(ctx)
	if !p.established {
		return result, err
	}
	if serveErr := p.r.kinds.Serve(p.def); serveErr != nil {
		return ctrl.Result{RequeueAfter: time.Second}, errors.Join(err, serveErr)
	}
	if rollErr := p.rollOut(ctx); rollErr != nil && err == nil {
		err = rollErr
	}
	return result, err
}

// revise makes the definition's content a revision, CRD and roles.
func (p *pass) revise(ctx context.Context) (ctrl.Result, error) {
	res, err := p.r.resolve(ctx, p.def)
	if err != nil {
		return ctrl.Result{}, sourceError(err)
	}
	p.res = res
	crd, err := p.crd()
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := p.newRevision(ctx); err != nil {
		return ctrl.Result{}, err
	}
	if p.established, err = p.ensureCRD(ctx, crd); err != nil {
		return ctrl.Result{}, err
	}
	if err := p.ensureRoles(ctx); err != nil {
		return ctrl.Result{}, err
	}
	if !p.established {
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	return ctrl.Result{RequeueAfter: interval(p.def)}, nil
}

// serveExisting serves the kind of a definition that has a revision and
// whose CRD, the operator's, is served: what a restart finds.
func (p *pass) serveExisting(ctx context.Context) error {
	if p.def.Status.Revision == 0 {
		return nil
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := p.r.client.Get(ctx, client.ObjectKey{Name: crdgen.Name(p.def)}, crd); err != nil {
		return client.IgnoreNotFound(err)
	}
	if crd.Labels[p.r.label] != p.def.Name || !established(crd) {
		return nil
	}
	p.established = true
	return p.r.kinds.Serve(p.def)
}

// sourceError is a resolution's error as the pass reports it: what the
// definition must change is a refusal; what may pass is retried.
func sourceError(err error) error {
	var refused *refusal
	if errors.As(err, &refused) {
		return err
	}
	if _, retriable := err.(*component.RetriableError); retriable || errors.As(err, new(*component.RetriableError)) {
		return &transient{fmt.Errorf("the source: %w", err)}
	}
	return &refusal{reason: ReasonSourceRefused, err: fmt.Errorf("the source: %w", err)}
}

// transient is an error that may pass: retried with backoff.
type transient struct{ err error }

func (t *transient) Error() string { return t.err.Error() }
func (t *transient) Unwrap() error { return t.err }

// rollOut is where the move of the instances to the newest revision is
// now. The instances whose revision changes with it are reconciled when
// the status is written (binder.moved).
func (p *pass) rollOut(ctx context.Context) error {
	items, err := p.r.kinds.Instances(ctx, p.def)
	if err != nil {
		return err
	}
	p.instances = items
	instances := make([]rollout.Instance, len(items))
	for n := range items {
		instances[n] = rolloutInstance(p.r.opts.Name, &items[n])
	}
	st, err := rollout.Step(p.def.Spec.Rollout, p.def.Status.Revision, p.def.Status.Rollout, instances)
	if err != nil {
		return &refusal{reason: ReasonInvalid, err: err}
	}
	p.def.Status.Rollout = &st
	return nil
}
