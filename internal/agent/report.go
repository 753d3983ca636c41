package agent

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// reportOf is the status of the ComponentWork w that says where the
// Component c on the cluster stands, c's generations translated to w's:
// applied is the generation of w whose spec c was written from, so a
// generation of c's own status equal to c's generation becomes applied and
// any older one 0 (not at any generation of w the set knows). It keeps
// w's Removed condition and writes nothing of c that a set does not read.
func reportOf(w *v1alpha1.ComponentWork, c *v1alpha1.Component, applied int64, version string) v1alpha1.ComponentWorkStatus {
	out := v1alpha1.ComponentWorkStatus{AgentVersion: version}
	for _, cond := range w.Status.Conditions {
		if cond.Type == v1alpha1.WorkConditionRemoved {
			out.Conditions = append(out.Conditions, cond)
		}
	}
	if c == nil {
		return out
	}
	translate := func(g int64) int64 {
		if g != 0 && g == c.Generation {
			return applied
		}
		return 0
	}
	out.ObservedGeneration = translate(c.Status.ObservedGeneration)
	for _, cond := range c.Status.Conditions {
		cond.ObservedGeneration = translate(cond.ObservedGeneration)
		out.Conditions = append(out.Conditions, cond)
	}
	out.State = c.Status.State
	if a := c.Status.Attempt; a != nil {
		out.Attempt = a.DeepCopy()
		out.Attempt.Generation = translate(a.Generation)
		out.Attempt.Tests = nil
		out.RenderDigest = a.RenderDigest
	}
	out.Inventory.Objects = int32(len(c.Status.Inventory))
	for _, item := range c.Status.Inventory {
		if item.Phase == manifests.PhaseReady || item.Phase == manifests.PhaseCompleted {
			out.Inventory.Ready++
		}
	}
	return out
}

// removedStatus is w's status once its Component is gone from the cluster.
func removedStatus(w *v1alpha1.ComponentWork, version string) v1alpha1.ComponentWorkStatus {
	out := v1alpha1.ComponentWorkStatus{AgentVersion: version, ObservedGeneration: w.Generation}
	out.Conditions = []metav1.Condition{{Type: v1alpha1.WorkConditionRemoved, Status: metav1.ConditionTrue,
		ObservedGeneration: w.Generation, Reason: "Deleted", Message: "the Component and its objects are deleted from the cluster",
		LastTransitionTime: metav1.Now()}}
	for _, cond := range w.Status.Conditions {
		if cond.Type == v1alpha1.WorkConditionRemoved && cond.Status == metav1.ConditionTrue {
			out.Conditions[0].LastTransitionTime = cond.LastTransitionTime
		}
	}
	return out
}
