package instance

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/internal/operator"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// AnnotationPinRevision is the suffix of the annotation
// "<operator>/pin-revision" by which an instance's owner pins it to a
// revision of its definition, whatever the rollout does.
const AnnotationPinRevision = "pin-revision"

// AnnotationSuspend is the suffix of the annotation "<operator>/suspend":
// "true" suspends the instance as spec.suspend suspends a Component
// (nothing is applied; deletion still works), "false" or none does not.
// An annotation, not a field, because the spec is the chart's values.
const AnnotationSuspend = "suspend"

// Instance is an instance of a defined kind.
type Instance struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              map[string]any `json:"spec,omitempty"`
	Status            Status         `json:"status,omitempty"`

	// bound is the Component the instance stands for at its revision, pin
	// that revision's source; both are set by Bind.
	bound *v1alpha1.Component
	pin   *operator.PinnedSource
}

// Status is a Component's status and the revision the instance runs.
type Status struct {
	component.Status `json:",inline"`
	// Revision is the revision of the definition the instance runs.
	Revision int64 `json:"revision,omitempty"`
}

// DeepCopyObject copies the instance, bound or not.
func (i *Instance) DeepCopyObject() runtime.Object {
	out := &Instance{TypeMeta: i.TypeMeta, Spec: runtime.DeepCopyJSON(i.Spec), bound: i.bound, pin: i.pin}
	i.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	i.Status.Status.DeepCopyInto(&out.Status.Status)
	out.Status.Revision = i.Status.Revision
	return out
}

// Pinned is the revision the instance's owner pinned it to, 0 for none.
func (i *Instance) Pinned(operatorName string) (int64, error) {
	value, ok := i.Annotations[manifests.Key(operatorName, AnnotationPinRevision)]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 1 {
		return 0, &manifests.UserError{Err: fmt.Errorf("the annotation %s is %q: give the number of a revision of the definition",
			manifests.Key(operatorName, AnnotationPinRevision), value)}
	}
	return n, nil
}

// Suspended tells whether the instance's owner suspended it with the
// annotation "<operator>/suspend".
func (i *Instance) Suspended(operatorName string) (bool, error) {
	key := manifests.Key(operatorName, AnnotationSuspend)
	switch value, ok := i.Annotations[key]; {
	case !ok || value == "false":
		return false, nil
	case value == "true":
		return true, nil
	default:
		return false, &manifests.UserError{Err: fmt.Errorf("the annotation %s is %q: give true or false", key, value)}
	}
}

// Bind makes the instance stand for the Component rev makes of it, for
// the operator of operatorName (whose annotations it reads), and records
// that it runs rev.
func (i *Instance) Bind(rev *v1alpha1.ComponentDefinitionRevision, operatorName string) error {
	values, err := Values(rev.Spec.Values, i.Spec)
	if err != nil {
		return &manifests.UserError{Err: err}
	}
	suspended, err := i.Suspended(operatorName)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(values)
	if err != nil {
		return fmt.Errorf("encoding the values of %s/%s: %w", i.Namespace, i.Name, err)
	}
	src, settings := rev.Spec.Source, rev.Spec.Instances
	c := &v1alpha1.Component{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Component"},
		Spec: v1alpha1.ComponentSpec{
			Source: src.Source, Chart: src.Chart, Git: src.Git, SourceRef: src.SourceRef, Path: src.Path,
			Values:             &apiextensionsv1.JSON{Raw: raw},
			ServiceAccountName: settings.ServiceAccountName, Policies: settings.Policies, CRDs: settings.CRDs,
			Intervals: settings.Intervals, Drift: settings.Drift, HealthChecks: settings.HealthChecks,
			Remediation: settings.Remediation, Test: settings.Test, Patches: settings.Patches,
			AdditionalManagedTypes: settings.AdditionalManagedTypes, Suspend: suspended,
		},
		Status: i.Status.Status,
	}
	i.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	i.bound = c
	i.pin = &operator.PinnedSource{Definition: rev.Spec.Definition, Revision: rev.Spec.Revision, Source: src,
		Digest: rev.Spec.Resolved.Digest, URL: rev.Spec.Resolved.URL, ArtifactRevision: rev.Spec.Resolved.Revision}
	i.Status.Revision = rev.Spec.Revision
	return nil
}

// Bound is the Component the instance stands for, nil before Bind.
func (i *Instance) Bound() *v1alpha1.Component { return i.bound }

// GetSpec returns the values the instance's spec maps to.
func (i *Instance) GetSpec() manifests.Parameters {
	if i.bound == nil {
		return manifests.Values{}
	}
	return i.bound.GetSpec()
}

// GetStatus returns the status every component embeds.
func (i *Instance) GetStatus() *component.Status { return &i.Status.Status }

// settings is the bound Component, or an empty one before Bind.
func (i *Instance) settings() *v1alpha1.Component {
	if i.bound == nil {
		return &v1alpha1.Component{ObjectMeta: i.ObjectMeta}
	}
	return i.bound
}

// The settings of the Component the instance stands for.

func (i *Instance) GetImpersonationUser() string           { return i.settings().GetImpersonationUser() }
func (i *Instance) GetImpersonationGroups() []string       { return nil }
func (i *Instance) GetPolicies() manifests.Defaults        { return i.settings().GetPolicies() }
func (i *Instance) GetRequeueInterval() time.Duration      { return i.settings().GetRequeueInterval() }
func (i *Instance) GetRetryInterval() time.Duration        { return i.settings().GetRetryInterval() }
func (i *Instance) GetTimeout() time.Duration              { return i.settings().GetTimeout() }
func (i *Instance) GetReapplyInterval() time.Duration      { return i.settings().GetReapplyInterval() }
func (i *Instance) GetDrift() manifests.DriftSettings      { return i.settings().GetDrift() }
func (i *Instance) GetRemediation() *component.Remediation { return i.settings().GetRemediation() }
func (i *Instance) IsSuspended() bool                      { return i.settings().IsSuspended() }
func (i *Instance) GetTest() *component.Test               { return i.settings().GetTest() }
func (i *Instance) GetHealthChecks() []manifests.HealthCheck {
	return i.settings().GetHealthChecks()
}
func (i *Instance) GetAdditionalManagedTypes() []manifests.TypeInfo {
	return i.settings().GetAdditionalManagedTypes()
}

var (
	_ component.Component                  = &Instance{}
	_ component.ImpersonationConfiguration = &Instance{}
	_ component.PolicyConfiguration        = &Instance{}
	_ component.TypeConfiguration          = &Instance{}
	_ component.RequeueConfiguration       = &Instance{}
	_ component.RetryConfiguration         = &Instance{}
	_ component.TimeoutConfiguration       = &Instance{}
	_ component.ReapplyConfiguration       = &Instance{}
	_ component.DriftConfiguration         = &Instance{}
	_ component.HealthCheckConfiguration   = &Instance{}
	_ component.RemediationConfiguration   = &Instance{}
	_ component.TestConfiguration          = &Instance{}
	_ component.SuspensionConfiguration    = &Instance{}
)
