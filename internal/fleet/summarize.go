package fleet

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

const (
	// maxClusterLines bounds status.clusters; one more line says how many
	// were left out.
	maxClusterLines = 50
	// maxLineLength bounds one line of status.clusters.
	maxLineLength = 256
	// maxConditionMessage bounds a condition's message (the API server
	// allows 32 KiB).
	maxConditionMessage = 2048
)

// Reasons of the set's conditions.
const (
	ReasonReady             = "Ready"
	ReasonProgressing       = "Progressing"
	ReasonFailed            = "Failed"
	ReasonPaused            = "Paused"
	ReasonClusterListFailed = "ClusterListFailed"
	ReasonInvalid           = "Invalid"
	ReasonDeleting          = "Deleting"
)

// stateOrder lists problems first in status.clusters.
var stateOrder = map[state]int{stateFailed: 0, stateUnreachable: 1, stateUpdating: 2, statePaused: 3, stateWaiting: 3, stateReady: 4}

// summarize writes the plan's rollout, lines and conditions into status.
func summarize(set *v1alpha1.ComponentSet, p *plan, status *v1alpha1.ComponentSetStatus) {
	r := v1alpha1.RolloutStatus{Wave: int32(p.Wave), Waves: int32(p.Waves), Clusters: int32(len(p.Members))}
	for _, m := range p.Members {
		switch m.State {
		case stateReady:
			r.Ready++
		case stateFailed:
			r.Failed++
		case stateUnreachable:
			r.Unreachable++
		case stateWaiting, statePaused:
			r.Waiting++
		default:
			r.Updating++
		}
	}
	status.Rollout = r
	status.Clusters = clusterLines(p.Members)
	status.ObservedGeneration = set.Generation
	switch {
	case p.FailedAt != nil:
		m := p.FailedAt
		setConditions(status, set.Generation, ReasonFailed, true, fmt.Sprintf("the rollout stopped at wave %d of %d: cluster %s failed (Component %s): %s; "+
			"the clusters of later waves keep their template", p.Wave, p.Waves, m.Cluster.Name, componentName(set.Name, m.Cluster.Name), m.Message))
	case set.Spec.Paused:
		setConditions(status, set.Generation, ReasonPaused, false, pausedMessage(set, p, r))
	case r.Ready+r.Unreachable == r.Clusters && r.Unreachable == 0:
		setConditions(status, set.Generation, ReasonReady, false, fmt.Sprintf("%d of %d clusters Ready", r.Ready, r.Clusters))
	default:
		setConditions(status, set.Generation, ReasonProgressing, false, fmt.Sprintf("wave %d of %d: %s", p.Wave, p.Waves, counts(r)))
	}
}

// pausedMessage says where a paused set stands and what it would do:
// the Components it would create, write the new template to, or remove.
func pausedMessage(set *v1alpha1.ComponentSet, p *plan, r v1alpha1.RolloutStatus) string {
	create, write := 0, 0
	for _, m := range p.Members {
		switch {
		case m.State != statePaused:
		case m.Component == nil:
			create++
		default:
			write++
		}
	}
	remove := "remove"
	if set.Spec.RemovalPolicy == v1alpha1.RemovalOrphan {
		remove = "release"
	}
	return fmt.Sprintf("paused at wave %d of %d, writing nothing: it would write the new template to %d Components, create %d and %s %d; "+
		"%d of %d clusters Ready, %d updating, %d failed, %d unreachable", p.Wave, p.Waves, write, create, remove, len(p.Leaving),
		r.Ready, r.Clusters, r.Updating, r.Failed, r.Unreachable)
}

// counts says how many clusters are in which state, in words.
func counts(r v1alpha1.RolloutStatus) string {
	return fmt.Sprintf("%d of %d clusters Ready, %d updating, %d failed, %d unreachable, %d waiting for their wave",
		r.Ready, r.Clusters, r.Updating, r.Failed, r.Unreachable, r.Waiting)
}

// clusterLines is one line per member, problems first, at most
// maxClusterLines and then one that says how many more there are.
func clusterLines(members []*member) []string {
	sorted := slices.Clone(members)
	slices.SortStableFunc(sorted, func(a, b *member) int {
		return cmp.Or(cmp.Compare(stateOrder[a.State], stateOrder[b.State]), cmp.Compare(a.Wave, b.Wave),
			strings.Compare(a.Cluster.Name, b.Cluster.Name))
	})
	var lines []string
	for i, m := range sorted {
		if i == maxClusterLines {
			lines = append(lines, fmt.Sprintf("… and %d more", len(sorted)-maxClusterLines))
			break
		}
		line := fmt.Sprintf("%s (wave %d): %s", m.Cluster.Name, m.Wave, m.State)
		if m.Message != "" {
			line += ": " + m.Message
		}
		lines = append(lines, bound(line, maxLineLength))
	}
	return lines
}

// setConditions sets Ready (True only for ReasonReady), Reconciling (while
// work goes on) and Stalled (when only a change or a repair helps).
func setConditions(status *v1alpha1.ComponentSetStatus, generation int64, reason string, stalled bool, message string) {
	message = bound(message, maxConditionMessage)
	ready := metav1.ConditionFalse
	if reason == ReasonReady {
		ready = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: component.ConditionReady, Status: ready,
		Reason: reason, Message: message, ObservedGeneration: generation})
	setFlag(status, component.ConditionReconciling, !stalled && reason != ReasonReady && reason != ReasonPaused, generation, reason, message)
	setFlag(status, component.ConditionStalled, stalled, generation, reason, message)
}

func setFlag(status *v1alpha1.ComponentSetStatus, kind string, on bool, generation int64, reason, message string) {
	if !on {
		meta.RemoveStatusCondition(&status.Conditions, kind)
		return
	}
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: kind, Status: metav1.ConditionTrue,
		Reason: reason, Message: message, ObservedGeneration: generation})
}

// bound cuts s to at most n bytes, on a rune boundary, ending in "…".
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
