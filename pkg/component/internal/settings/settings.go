package settings

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// Settings are what a component's optional configurations (the
// *Configuration interfaces its type or spec implements) say, with the
// reconciler's options for what they leave out. Resolve fills them
// once per Reconcile; the rest of the Reconcile reads them and asks the
// component for none of its interfaces again.
type Settings struct {
	// Namespace and Name the objects are rendered for (PlacementConfiguration).
	Namespace, Name string
	// KubeConfigSecret and KubeConfigKey name the kubeconfig of a remote
	// target (ClientConfiguration); no Secret for the local cluster.
	KubeConfigSecret, KubeConfigKey string
	// User and Groups the target is used as (ImpersonationConfiguration, or
	// the lockdown's default service account); no user for the operator's own.
	User   string
	Groups []string
	// Suspended: nothing is applied (SuspensionConfiguration).
	Suspended bool
	// Defaults are the object policies (PolicyConfiguration, with the reapply
	// interval of ReapplyConfiguration or the reconciler's).
	Defaults     manifests.Defaults
	ManagedTypes []manifests.TypeInfo    // TypeConfiguration
	Drift        manifests.DriftSettings // DriftConfiguration
	HealthChecks []manifests.HealthCheck // HealthCheckConfiguration
	// Requeue, Retry and Timeout are the intervals of RequeueConfiguration,
	// RetryConfiguration and TimeoutConfiguration, or the reconciler's.
	Requeue, Retry, Timeout time.Duration
	Dependencies            []types.NamespacedName // DependencyConfiguration, namespaces filled in
	// ObjectDependencies of ObjectDependencyConfiguration; WaitsForObjects
	// tells whether the component implements it at all.
	ObjectDependencies []api.ObjectDependency
	WaitsForObjects    bool
	Remediation        *api.Remediation // RemediationConfiguration; nil for none
	Test               *api.Test        // TestConfiguration, when its tests are enabled; else nil
}

// Defaults are the reconciler's options that the optional configurations
// override: its intervals, and the lockdown's default service account.
type Defaults struct {
	Requeue, Retry, Timeout, Reapply time.Duration
	DefaultServiceAccount            string
}

// Resolve asks c for each of its optional configurations, once.
func Resolve(c api.Component, d Defaults) Settings {
	s := Settings{Namespace: c.GetNamespace(), Name: c.GetName(), Dependencies: Dependencies(c),
		Requeue: d.Requeue, Retry: d.Retry, Timeout: d.Timeout}
	if pc, ok := api.Optional[api.PlacementConfiguration](c); ok {
		s.Namespace, s.Name = orDefault(pc.GetDeploymentNamespace(), s.Namespace), orDefault(pc.GetDeploymentName(), s.Name)
	}
	if cc, ok := api.Optional[api.ClientConfiguration](c); ok {
		s.KubeConfigSecret, s.KubeConfigKey = cc.GetKubeConfigSecret()
	}
	s.User, s.Groups = identity(c, d.DefaultServiceAccount)
	if sc, ok := api.Optional[api.SuspensionConfiguration](c); ok {
		s.Suspended = sc.IsSuspended()
	}
	s.Defaults = policies(c, d.Reapply)
	if tc, ok := api.Optional[api.TypeConfiguration](c); ok {
		s.ManagedTypes = tc.GetAdditionalManagedTypes()
	}
	if dc, ok := api.Optional[api.DriftConfiguration](c); ok {
		s.Drift = dc.GetDrift()
	}
	if hc, ok := api.Optional[api.HealthCheckConfiguration](c); ok {
		s.HealthChecks = hc.GetHealthChecks()
	}
	if rc, ok := api.Optional[api.RequeueConfiguration](c); ok && rc.GetRequeueInterval() > 0 {
		s.Requeue = rc.GetRequeueInterval()
	}
	if rc, ok := api.Optional[api.RetryConfiguration](c); ok && rc.GetRetryInterval() > 0 {
		s.Retry = rc.GetRetryInterval()
	}
	if tc, ok := api.Optional[api.TimeoutConfiguration](c); ok && tc.GetTimeout() > 0 {
		s.Timeout = tc.GetTimeout()
	}
	if oc, ok := api.Optional[api.ObjectDependencyConfiguration](c); ok {
		s.ObjectDependencies, s.WaitsForObjects = oc.GetObjectDependencies(), true
	}
	if rc, ok := api.Optional[api.RemediationConfiguration](c); ok {
		s.Remediation = rc.GetRemediation()
	}
	if tc, ok := api.Optional[api.TestConfiguration](c); ok {
		if t := tc.GetTest(); t != nil && t.Enable {
			s.Test = t
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
// (Defaults.DefaultServiceAccount), the default service account of
// its own namespace; empty for the operator's own identity.
func identity(c api.Component, defaultServiceAccount string) (string, []string) {
	if ic, ok := api.Optional[api.ImpersonationConfiguration](c); ok && ic.GetImpersonationUser() != "" {
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
func policies(c api.Component, reapply time.Duration) manifests.Defaults {
	var defaults manifests.Defaults
	if pc, ok := api.Optional[api.PolicyConfiguration](c); ok {
		defaults = pc.GetPolicies()
	}
	if rc, ok := api.Optional[api.ReapplyConfiguration](c); ok && rc.GetReapplyInterval() > 0 {
		defaults.ReapplyInterval = rc.GetReapplyInterval()
	}
	if defaults.ReapplyInterval == 0 {
		defaults.ReapplyInterval = reapply
	}
	return defaults
}

// Dependencies returns what c depends on (DependencyConfiguration),
// namespaces filled in.
func Dependencies(c api.Component) []types.NamespacedName {
	dc, ok := api.Optional[api.DependencyConfiguration](c)
	if !ok {
		return nil
	}
	deps := dc.GetDependencies()
	out := make([]types.NamespacedName, 0, len(deps))
	for _, d := range deps {
		if d.Namespace == "" {
			d.Namespace = c.GetNamespace()
		}
		out = append(out, d)
	}
	return out
}
