package component

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// settings are what a component's optional configurations (the
// *Configuration interfaces its type or spec implements) say, with the
// reconciler's options for what they leave out. resolveSettings fills them
// once per Reconcile; the rest of the Reconcile reads them and asks the
// component for none of its interfaces again.
type settings struct {
	// namespace and name the objects are rendered for (PlacementConfiguration).
	namespace, name string
	// kubeConfigSecret and kubeConfigKey name the kubeconfig of a remote
	// target (ClientConfiguration); no Secret for the local cluster.
	kubeConfigSecret, kubeConfigKey string
	// user and groups the target is used as (ImpersonationConfiguration, or
	// the lockdown's default service account); no user for the operator's own.
	user   string
	groups []string
	// suspended: nothing is applied (SuspensionConfiguration).
	suspended bool
	// defaults are the object policies (PolicyConfiguration, with the reapply
	// interval of ReapplyConfiguration or the reconciler's).
	defaults     manifests.Defaults
	managedTypes []manifests.TypeInfo    // TypeConfiguration
	drift        manifests.DriftSettings // DriftConfiguration
	healthChecks []manifests.HealthCheck // HealthCheckConfiguration
	// requeue, retry and timeout are the intervals of RequeueConfiguration,
	// RetryConfiguration and TimeoutConfiguration, or the reconciler's.
	requeue, retry, timeout time.Duration
	dependencies            []types.NamespacedName // DependencyConfiguration, namespaces filled in
	// objectDependencies of ObjectDependencyConfiguration; waitsForObjects
	// tells whether the component implements it at all.
	objectDependencies []ObjectDependency
	waitsForObjects    bool
	remediation        *Remediation // RemediationConfiguration; nil for none
	test               *Test        // TestConfiguration, when its tests are enabled; else nil
}

// resolveSettings asks c for each of its optional configurations, once.
func resolveSettings(c Component, opts ReconcilerOptions) settings {
	s := settings{namespace: c.GetNamespace(), name: c.GetName(), dependencies: dependencies(c),
		requeue: opts.RequeueInterval, retry: opts.RetryInterval, timeout: opts.Timeout}
	if pc, ok := api.Optional[PlacementConfiguration](c); ok {
		s.namespace, s.name = orDefault(pc.GetDeploymentNamespace(), s.namespace), orDefault(pc.GetDeploymentName(), s.name)
	}
	if cc, ok := api.Optional[ClientConfiguration](c); ok {
		s.kubeConfigSecret, s.kubeConfigKey = cc.GetKubeConfigSecret()
	}
	s.user, s.groups = identity(c, opts.DefaultServiceAccount)
	if sc, ok := api.Optional[SuspensionConfiguration](c); ok {
		s.suspended = sc.IsSuspended()
	}
	s.defaults = policies(c, opts.ReapplyInterval)
	if tc, ok := api.Optional[TypeConfiguration](c); ok {
		s.managedTypes = tc.GetAdditionalManagedTypes()
	}
	if dc, ok := api.Optional[DriftConfiguration](c); ok {
		s.drift = dc.GetDrift()
	}
	if hc, ok := api.Optional[HealthCheckConfiguration](c); ok {
		s.healthChecks = hc.GetHealthChecks()
	}
	if rc, ok := api.Optional[RequeueConfiguration](c); ok && rc.GetRequeueInterval() > 0 {
		s.requeue = rc.GetRequeueInterval()
	}
	if rc, ok := api.Optional[RetryConfiguration](c); ok && rc.GetRetryInterval() > 0 {
		s.retry = rc.GetRetryInterval()
	}
	if tc, ok := api.Optional[TimeoutConfiguration](c); ok && tc.GetTimeout() > 0 {
		s.timeout = tc.GetTimeout()
	}
	if oc, ok := api.Optional[ObjectDependencyConfiguration](c); ok {
		s.objectDependencies, s.waitsForObjects = oc.GetObjectDependencies(), true
	}
	if rc, ok := api.Optional[RemediationConfiguration](c); ok {
		s.remediation = rc.GetRemediation()
	}
	if tc, ok := api.Optional[TestConfiguration](c); ok {
		if t := tc.GetTest(); t != nil && t.Enable {
			s.test = t
		}
	}
	return s
}

// orDefault is value, or fallback when value is empty.
func orDefault(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}

// identity returns the user and groups a component's target is used as: the
// service account it names, else, with the lockdown on
// (ReconcilerOptions.DefaultServiceAccount), the default service account of
// its own namespace; empty for the operator's own identity.
func identity(c Component, defaultServiceAccount string) (string, []string) {
	if ic, ok := api.Optional[ImpersonationConfiguration](c); ok && ic.GetImpersonationUser() != "" {
		return ic.GetImpersonationUser(), ic.GetImpersonationGroups()
	}
	if defaultServiceAccount != "" {
		return "system:serviceaccount:" + c.GetNamespace() + ":" + defaultServiceAccount, nil
	}
	return "", nil
}

// policies returns the component's object policies. An object's annotation
// wins over these (ParsePolicies); the component's own reapply interval over
// the reconciler's.
func policies(c Component, reapply time.Duration) manifests.Defaults {
	var defaults manifests.Defaults
	if pc, ok := api.Optional[PolicyConfiguration](c); ok {
		defaults = pc.GetPolicies()
	}
	if rc, ok := api.Optional[ReapplyConfiguration](c); ok && rc.GetReapplyInterval() > 0 {
		defaults.ReapplyInterval = rc.GetReapplyInterval()
	}
	if defaults.ReapplyInterval == 0 {
		defaults.ReapplyInterval = reapply
	}
	return defaults
}
