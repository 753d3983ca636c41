package v1alpha1

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

var (
	_ component.Component                  = &Component{}
	_ component.PlacementConfiguration     = &Component{}
	_ component.ClientConfiguration        = &Component{}
	_ component.ImpersonationConfiguration = &Component{}
	_ component.SuspensionConfiguration    = &Component{}
	_ component.PolicyConfiguration        = &Component{}
	_ component.TypeConfiguration          = &Component{}
	_ component.RequeueConfiguration       = &Component{}
	_ component.RetryConfiguration         = &Component{}
	_ component.TimeoutConfiguration       = &Component{}
	_ component.ReapplyConfiguration       = &Component{}
	_ component.DependencyConfiguration    = &Component{}
	_ component.DriftConfiguration         = &Component{}
	_ component.RemediationConfiguration   = &Component{}
	_ component.TestConfiguration          = &Component{}
)

// GetSpec returns spec.values as the generator's parameters.
func (c *Component) GetSpec() manifests.Parameters {
	values := manifests.Values{}
	if c.Spec.Values != nil && len(c.Spec.Values.Raw) > 0 {
		// The API server validated the JSON; an object is all it can hold here.
		_ = json.Unmarshal(c.Spec.Values.Raw, &values)
	}
	return values
}

// GetStatus returns the status every component embeds.
func (c *Component) GetStatus() *component.Status { return &c.Status }

// GetDeploymentNamespace returns spec.namespace.
func (c *Component) GetDeploymentNamespace() string { return c.Spec.Namespace }

// GetDeploymentName returns spec.name.
func (c *Component) GetDeploymentName() string { return c.Spec.Name }

// GetKubeConfigSecret returns the Secret with the remote cluster's kubeconfig.
func (c *Component) GetKubeConfigSecret() (string, string) {
	if c.Spec.KubeConfig == nil {
		return "", ""
	}
	return c.Spec.KubeConfig.Name, c.Spec.KubeConfig.Key
}

// GetImpersonationUser returns the service account to write as, if any.
func (c *Component) GetImpersonationUser() string {
	if c.Spec.ServiceAccountName == "" {
		return ""
	}
	return "system:serviceaccount:" + c.Namespace + ":" + c.Spec.ServiceAccountName
}

// GetImpersonationGroups returns no extra groups.
func (c *Component) GetImpersonationGroups() []string { return nil }

// IsSuspended returns spec.suspend.
func (c *Component) IsSuspended() bool { return c.Spec.Suspend }

// GetPolicies returns spec.policies and spec.crds as object policy defaults.
func (c *Component) GetPolicies() manifests.Defaults {
	p := c.Spec.Policies
	return manifests.Defaults{Update: p.Update, Delete: p.Delete, Adoption: p.Adoption, Namespace: p.Namespace, CRDs: c.Spec.CRDs}
}

// GetAdditionalManagedTypes returns spec.additionalManagedTypes.
func (c *Component) GetAdditionalManagedTypes() []manifests.TypeInfo {
	return c.Spec.AdditionalManagedTypes
}

// GetRequeueInterval returns spec.intervals.requeue (0: operator default);
// a Component that reads a Git repository is looked at again after the
// repository's interval (jittered up to a tenth later, by Component, and
// never later than spec.intervals.requeue), so that a new commit is found
// then.
func (c *Component) GetRequeueInterval() time.Duration {
	requeue := duration(c.Spec.Intervals.Requeue)
	if git := c.gitInterval(); git > 0 && (requeue == 0 || git < requeue) {
		if jittered := c.jittered(git); requeue == 0 || jittered < requeue {
			return jittered
		}
	}
	return requeue
}

// GetRetryInterval returns spec.intervals.retry (0: operator default).
func (c *Component) GetRetryInterval() time.Duration { return duration(c.Spec.Intervals.Retry) }

// GetTimeout returns spec.intervals.timeout (0: operator default).
func (c *Component) GetTimeout() time.Duration { return duration(c.Spec.Intervals.Timeout) }

// GetReapplyInterval returns spec.intervals.reapply (0: operator default).
func (c *Component) GetReapplyInterval() time.Duration { return duration(c.Spec.Intervals.Reapply) }

func duration(d *metav1.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return d.Duration
}

// GetDependencies returns spec.dependsOn; a dependency without a namespace
// is in the Component's own namespace (the reconciler fills it in).
func (c *Component) GetDependencies() []types.NamespacedName {
	var deps []types.NamespacedName
	for _, d := range c.Spec.DependsOn {
		if !d.isObject() {
			deps = append(deps, types.NamespacedName{Namespace: d.Namespace, Name: d.Name})
		}
	}
	return deps
}

// GetObjectDependencies returns the entries of spec.dependsOn that name an
// object of another kind than Component.
func (c *Component) GetObjectDependencies() []component.ObjectDependency {
	var deps []component.ObjectDependency
	for _, d := range c.Spec.DependsOn {
		if d.isObject() {
			deps = append(deps, component.ObjectDependency{APIVersion: d.APIVersion, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, ReadyExpr: d.ReadyExpr})
		}
	}
	return deps
}

// isObject tells whether d names an object rather than a Component.
func (d DependencyReference) isObject() bool {
	return d.Kind != "" && !(d.Kind == "Component" && (d.APIVersion == "" || d.APIVersion == GroupVersion.String()))
}

// GetDrift returns spec.drift: the drift mode and ignore rules.
func (c *Component) GetDrift() manifests.DriftSettings { return c.Spec.Drift }

// GetHealthChecks returns spec.healthChecks.
func (c *Component) GetHealthChecks() []manifests.HealthCheck { return c.Spec.HealthChecks }

// GetRemediation returns spec.remediation.
func (c *Component) GetRemediation() *component.Remediation { return c.Spec.Remediation }

// GetTest returns spec.test.
func (c *Component) GetTest() *component.Test { return c.Spec.Test }
