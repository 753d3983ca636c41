package fleet

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// state is where one cluster's Component stands.
type state string

// The states, as status.clusters writes them (v1alpha1.ClusterReady, …).
const (
	stateReady       state = v1alpha1.ClusterReady
	stateUpdating    state = v1alpha1.ClusterUpdating
	stateFailed      state = v1alpha1.ClusterFailed
	stateUnreachable state = v1alpha1.ClusterUnreachable
	stateWaiting     state = v1alpha1.ClusterWaiting
	// statePaused: the message says what the set would do there. Counted
	// as waiting: the cluster keeps the template it had.
	statePaused state = v1alpha1.ClusterPaused
)

// classify says where c stands at the template of hash; a Component at
// another template is Updating (the caller writes the template first).
func classify(c *v1alpha1.Component, hash string, k keys) (state, string) {
	ready := c.Status.ReadyCondition()
	if isUnreachable(ready) {
		return stateUnreachable, ready.Message
	}
	if c.Annotations[k.specHash] != hash {
		return stateUpdating, "the template is being written"
	}
	if failed, message := hasFailed(c); failed {
		return stateFailed, message
	}
	if ready != nil && ready.Status == metav1.ConditionTrue && ready.ObservedGeneration == c.Generation &&
		c.Status.ObservedGeneration == c.Generation {
		return stateReady, ""
	}
	if ready == nil || ready.ObservedGeneration != c.Generation {
		return stateUpdating, "not yet reconciled at generation " + itoa(c.Generation)
	}
	return stateUpdating, ready.Reason + ": " + ready.Message
}

// isUnreachable tells whether a Ready condition says the target cluster
// did not answer: by its reason alone, which the Component decides from
// the error's type (component.ReasonTargetUnreachable), for a cluster that
// never answered as for one that stopped answering; never by its message.
func isUnreachable(ready *metav1.Condition) bool {
	return ready != nil && ready.Status != metav1.ConditionTrue && ready.Reason == component.ReasonTargetUnreachable
}

// hasFailed tells whether c failed at its generation: Stalled (only a
// change helps), or its attempt at this generation failed or was rolled
// back with its retries used up.
func hasFailed(c *v1alpha1.Component) (bool, string) {
	if stalled := meta.FindStatusCondition(c.Status.Conditions, component.ConditionStalled); stalled != nil &&
		stalled.Status == metav1.ConditionTrue && stalled.ObservedGeneration == c.Generation {
		return true, stalled.Reason + ": " + stalled.Message
	}
	a := c.Status.Attempt
	if a == nil || a.Generation != c.Generation {
		return false, ""
	}
	var retries int32
	if c.Spec.Remediation != nil {
		retries = c.Spec.Remediation.Retries
	}
	switch {
	case a.Result == component.ResultRolledBack:
		return true, "rolled back: " + a.Message
	case a.Result == component.ResultFailed && a.Failures > retries:
		return true, a.Message
	}
	return false, ""
}
