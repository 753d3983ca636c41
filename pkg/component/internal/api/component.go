package api

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Component is the custom resource type of a component operator: its spec
// is the generator's parameters and its status embeds Status.
type Component interface {
	client.Object
	GetSpec() manifests.Parameters
	GetStatus() *Status
}

// The optional interfaces below may be implemented by a component or by the
// value its GetSpec returns; the component is asked first.

// PlacementConfiguration overrides where the objects go and the release name.
type PlacementConfiguration interface {
	GetDeploymentNamespace() string
	GetDeploymentName() string
}

// ClientConfiguration points to a kubeconfig Secret (in the component's
// namespace) of a remote target cluster. An empty name means the local cluster.
type ClientConfiguration interface {
	GetKubeConfigSecret() (name, key string)
}

// ImpersonationConfiguration names the identity every write to the target
// is made as. A service account is given as "system:serviceaccount:ns:name".
type ImpersonationConfiguration interface {
	GetImpersonationUser() string
	GetImpersonationGroups() []string
}

// SuspensionConfiguration stops applying (deletion still works).
type SuspensionConfiguration interface {
	IsSuspended() bool
}

// PolicyConfiguration sets default policies for the component's objects.
type PolicyConfiguration interface {
	GetPolicies() manifests.Defaults
}

// TypeConfiguration declares extra types whose foreign instances block deletion.
type TypeConfiguration interface {
	GetAdditionalManagedTypes() []manifests.TypeInfo
}

// RequeueConfiguration sets how long after success the component is looked at again.
type RequeueConfiguration interface {
	GetRequeueInterval() time.Duration
}

// RetryConfiguration sets how long after a retriable error the component is retried.
type RetryConfiguration interface {
	GetRetryInterval() time.Duration
}

// TimeoutConfiguration sets how long the component may take to become ready.
type TimeoutConfiguration interface {
	GetTimeout() time.Duration
}

// ReapplyConfiguration sets after how long every object is applied again.
type ReapplyConfiguration interface {
	GetReapplyInterval() time.Duration
}

// DependencyConfiguration names the components, of the same type, that must
// be Ready at their current generation before this one is applied; none of
// them is deleted while this one exists. A name without a namespace is in
// the component's own namespace.
type DependencyConfiguration interface {
	GetDependencies() []types.NamespacedName
}

// ObjectDependency is an object of any kind that must be ready before the
// component is applied: by ReadyExpr (CEL on the object, self) when given,
// else by kstatus, as the engine judges its own objects. It is read in the
// component's target cluster, as the component's identity (its service
// account, when it has one), and while the component waits for it, watched
// by name as that identity (which needs list and watch on it): its changes
// move the component on. It is not the component's: nothing waits for it
// on deletion.
type ObjectDependency struct {
	APIVersion, Kind, Namespace, Name string
	ReadyExpr                         string
}

// ObjectDependencyConfiguration names the objects a component waits for,
// besides the components of DependencyConfiguration. A dependency without a
// namespace is in the component's own namespace (cluster-scoped kinds have
// none).
type ObjectDependencyConfiguration interface {
	GetObjectDependencies() []ObjectDependency
}

// DriftConfiguration says how changes that others make to the component's
// objects are treated (manifests.DriftSettings: mode and ignore rules).
type DriftConfiguration interface {
	GetDrift() manifests.DriftSettings
}

// HealthCheckConfiguration gives CEL health checks for kinds whose status
// kstatus cannot read (manifests.HealthCheck). They judge the component's
// objects wave by wave: the next wave starts only when every object of a
// wave is Current by its check. A check that does not compile makes the
// component Stalled at once, with the compile error, before any write.
type HealthCheckConfiguration interface {
	GetHealthChecks() []manifests.HealthCheck
}

// Annotation key suffixes that a person or a tool sets on a component to ask
// for a pass; the full key is "<operator name>/<suffix>" (manifests.Key).
const (
	// AnnotationReconcileRequestedAt asks for one pass now (plan and apply,
	// or the deletion pass): any new value does, and the pass records it in
	// Status.LastHandledReconcileAt, as Flux's
	// reconcile.fluxcd.io/requestedAt and status.lastHandledReconcileAt.
	// The pass renders only if the render's inputs changed (a generator
	// that declares them looks at its source at once for a request): the
	// same inputs keep the current render.
	AnnotationReconcileRequestedAt = "reconcile-requested-at"
	// AnnotationForce asks for one pass that renders anew (its value is one
	// of the render's inputs, as Flux's reconcile.fluxcd.io/forceAt forces
	// a Helm upgrade) and writes every object it reaches whether or not it
	// changed or drifted (engine.Owner.Force); the pass records the value
	// in Status.LastHandledForceAt, so a value forces once.
	AnnotationForce = "force"
	// AnnotationRollbackRequestedAt, set to the same value as
	// AnnotationReconcileRequestedAt, asks the pass of that request to roll
	// back to the last Ready render kept (Status.LastGoodRender) at once,
	// as the Rollback remediation does once the retries are used up: the
	// rollback stays until the generation, the render or the reconcile
	// request changes. Without a kept render older than the attempt's, the
	// request is a plain reconcile request.
	AnnotationRollbackRequestedAt = "rollback-requested-at"
)

// Optional returns the first of the component and its spec that implements
// I, one of the optional interfaces.
func Optional[I any](c Component) (I, bool) {
	if i, ok := any(c).(I); ok {
		return i, true
	}
	i, ok := any(c.GetSpec()).(I)
	return i, ok
}

// RetriableError asks for another attempt, after RetryAfter if set.
type RetriableError struct {
	Err        error
	RetryAfter *time.Duration
}

// Retriable wraps err so the reconciler retries, after retryAfter if not zero.
func Retriable(err error, retryAfter time.Duration) error {
	e := &RetriableError{Err: err}
	if retryAfter > 0 {
		e.RetryAfter = &retryAfter
	}
	return e
}

func (e *RetriableError) Error() string {
	if e.RetryAfter != nil {
		return fmt.Sprintf("%v (retrying in %s)", e.Err, e.RetryAfter)
	}
	return e.Err.Error()
}

func (e *RetriableError) Unwrap() error { return e.Err }

// AsRetriable finds a RetriableError in err's chain.
func AsRetriable(err error) (*RetriableError, bool) {
	var r *RetriableError
	ok := errors.As(err, &r)
	return r, ok
}
