package component

import (
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

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
