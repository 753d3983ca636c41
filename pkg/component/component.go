package component

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

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

// optional returns the first of the component and its spec that implements I.
func optional[I any](c Component) (I, bool) {
	if i, ok := any(c).(I); ok {
		return i, true
	}
	i, ok := any(c.GetSpec()).(I)
	return i, ok
}

// HookFunc is called at a point of the reconcile with a client of the
// cluster the component lives in.
type HookFunc[T Component] func(ctx context.Context, c client.Client, component T) error

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

func asRetriable(err error) (*RetriableError, bool) {
	var r *RetriableError
	ok := errors.As(err, &r)
	return r, ok
}

func newObject[T Component]() T {
	var zero T
	return reflect.New(reflect.TypeOf(zero).Elem()).Interface().(T)
}
