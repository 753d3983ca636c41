package fleet

import (
	"fmt"
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/notify"
)

// setAlert is one thing to tell of a set.
type setAlert struct {
	kind            notify.Kind
	reason, message string
}

// notify tells the notifier what the status written says that the status
// before did not: the waves the rollout went past (done), the set Ready
// (its last wave done), the rollout stopped at a failed cluster (held),
// and more clusters that do not answer (unreachable, the selected clusters
// that do not answer now).
func (r *Reconciler) notify(set *v1alpha1.ComponentSet, before *v1alpha1.ComponentSetStatus, unreachable []string) {
	if r.notifier == nil {
		return
	}
	for _, a := range setAlerts(set, before, unreachable) {
		r.notifier.Send(notify.Event{Kind: a.kind, Reason: a.reason, Message: bound(a.message, notify.MaxMessageBytes),
			Object: notify.Object{APIVersion: v1alpha1.GroupVersion.String(), Kind: "ComponentSet", Namespace: set.Namespace,
				Name: set.Name, UID: string(set.UID)},
			Generation: set.Generation, Time: time.Now(), Operator: r.operator, Labels: maps.Clone(set.Labels)})
	}
}

// setAlerts is what the status after says that before did not. It reads
// and writes nothing.
func setAlerts(set *v1alpha1.ComponentSet, before *v1alpha1.ComponentSetStatus, unreachable []string) []setAlert {
	after := &set.Status
	was, now := readyOf(before), readyOf(after)
	var out []setAlert
	sameTemplate := before.ObservedGeneration == after.ObservedGeneration
	if from, to := before.Rollout.Wave, after.Rollout.Wave; sameTemplate && from > 0 && to > from {
		out = append(out, setAlert{notify.KindWaveDone, now.Reason, fmt.Sprintf("%s of %d done: its clusters are Ready at the template; the rollout goes on to wave %d",
			waveRange(from, to-1), after.Rollout.Waves, to)})
	}
	if now.Reason == ReasonReady && was.Reason != ReasonReady {
		out = append(out, setAlert{notify.KindWaveDone, now.Reason, fmt.Sprintf("wave %d of %d done: %s",
			after.Rollout.Waves, after.Rollout.Waves, now.Message)})
	}
	if now.Reason == ReasonFailed && (was.Reason != ReasonFailed || was.Message != now.Message) {
		out = append(out, setAlert{notify.KindWaveHeld, now.Reason, now.Message})
	}
	if len(unreachable) > int(before.Rollout.Unreachable) {
		verb := "do not answer"
		if len(unreachable) == 1 {
			verb = "does not answer"
		}
		out = append(out, setAlert{notify.KindClusterUnreachable, component.ReasonTargetUnreachable, fmt.Sprintf(
			"%s of %d %s: %s; nothing is deleted for it, and the rollout goes on past at most %s",
			count(len(unreachable), "cluster"), after.Rollout.Clusters, verb, names(unreachable), maxUnavailableWords(set))})
	}
	return out
}

// readyOf is the Ready condition of status, or an empty one.
func readyOf(status *v1alpha1.ComponentSetStatus) metav1.Condition {
	if c := meta.FindStatusCondition(status.Conditions, component.ConditionReady); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// waveRange words the waves from to to: "wave 2", "waves 1 to 3".
func waveRange(from, to int32) string {
	if from == to {
		return fmt.Sprintf("wave %d", from)
	}
	return fmt.Sprintf("waves %d to %d", from, to)
}

// maxUnavailableWords words spec.rollout.maxUnavailable: "1 unreachable
// cluster", "10% unreachable clusters".
func maxUnavailableWords(set *v1alpha1.ComponentSet) string {
	if m := set.Spec.Rollout.MaxUnavailable; m != nil {
		return m.String() + " unreachable clusters (spec.rollout.maxUnavailable)"
	}
	return "1 unreachable cluster (spec.rollout.maxUnavailable's default)"
}

// unreachableClusters are the selected clusters of p that do not answer.
func unreachableClusters(p *plan) []string {
	var out []string
	for _, m := range p.Members {
		if m.State == stateUnreachable {
			out = append(out, m.Cluster.Name)
		}
	}
	return out
}
