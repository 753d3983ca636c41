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
	// ReasonInputsFailed: spec.inputs could not be read (an API error, a
	// rate limit, an unreadable file); the set keeps its members.
	ReasonInputsFailed = "InputsFailed"
	ReasonDeleting     = "Deleting"
)

// stateOrder lists problems first in status.clusters.
var stateOrder = map[state]int{stateFailed: 0, stateUnreachable: 1, stateUpdating: 3, statePaused: 4, stateWaiting: 4, stateReady: 5}

// summarize writes the plan's rollout, lines and conditions into status,
// with where the departing clusters stand and the clusters that left
// objects behind (status.leftClusters).
func summarize(set *v1alpha1.ComponentSet, p *plan, departures []departure, status *v1alpha1.ComponentSetStatus) {
	r := rolloutOf(p)
	status.Rollout = r
	status.Clusters = clusterLines(p.Members, departures, status.LeftClusters)
	status.ObservedGeneration = set.Generation
	var leaving []string
	for _, d := range departures {
		if d.State == departLeaving {
			leaving = append(leaving, d.Cluster)
		}
	}
	note := departureNote(departures, status.LeftClusters)
	switch {
	case p.FailedAt != nil:
		m := p.FailedAt
		setConditions(status, set.Generation, ReasonFailed, true, fmt.Sprintf("the rollout stopped at wave %d of %d: %s failed (Component %s): %s; "+
			"the %ss of later waves keep their template", p.Wave, p.Waves, m.Cluster.describe(), m.componentName(set), m.Message, unit(set))+note)
	case set.Spec.Paused:
		setConditions(status, set.Generation, ReasonPaused, false, pausedMessage(set, p, r)+note)
	case len(leaving) > 0:
		setConditions(status, set.Generation, ReasonProgressing, false, fmt.Sprintf("wave %d of %d: %s; removing %s that left: %s",
			p.Wave, p.Waves, counts(r), count(len(leaving), unit(set)), names(leaving))+note)
	case r.Ready == r.Clusters:
		setConditions(status, set.Generation, ReasonReady, false, fmt.Sprintf("%d of %d %ss Ready", r.Ready, r.Clusters, unit(set))+note)
	default:
		setConditions(status, set.Generation, ReasonProgressing, false, fmt.Sprintf("wave %d of %d: %s", p.Wave, p.Waves, counts(r))+note)
	}
}

// unit is what a set's members are called in its messages: clusters, or
// members for a set with spec.inputs.
func unit(set *v1alpha1.ComponentSet) string {
	if set.Spec.Inputs != nil {
		return "member"
	}
	return "cluster"
}

// rolloutOf counts the plan's clusters by state.
func rolloutOf(p *plan) v1alpha1.RolloutStatus {
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
	return r
}

// departureNote names, for the Ready message, the clusters left behind
// and those that left objects on them: a set is never silently Ready
// while something it placed is left on a cluster.
func departureNote(departures []departure, left []v1alpha1.LeftCluster) string {
	var behind, objects []string
	for _, d := range departures {
		if d.State == departLeftBehind {
			behind = append(behind, d.Cluster)
		}
	}
	for _, l := range left {
		objects = append(objects, l.Cluster)
	}
	note := ""
	if len(behind) > 0 {
		note += fmt.Sprintf("; left behind, being deleted until they answer: %s", names(behind))
	}
	if len(objects) > 0 {
		note += fmt.Sprintf("; objects were left on %s that left: %s (status.leftClusters)", count(len(objects), "cluster"), names(objects))
	}
	return note
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

// line is one line of status.clusters and where it sorts.
type line struct {
	order, wave int
	cluster     string
	text        string
}

// departureOrder sorts the lines of departing clusters and of clusters that
// left objects behind after those that failed or do not answer, before
// those under way.
const departureOrder = 2

// clusterLines is one line per member, per departing cluster and per
// cluster that left objects behind, problems first, at most
// maxClusterLines and then one that says how many more there are.
func clusterLines(members []*member, departures []departure, left []v1alpha1.LeftCluster) []string {
	all := make([]line, 0, len(members)+len(departures)+len(left))
	for _, m := range members {
		text := fmt.Sprintf("%s (wave %d): %s", m.Cluster.Name, m.Wave, m.State)
		if m.Message != "" {
			text += ": " + m.Message
		}
		all = append(all, line{order: stateOrder[m.State], wave: m.Wave, cluster: m.Cluster.Name, text: text})
	}
	for _, d := range departures {
		if d.State != departReleased { // a released one has its record
			all = append(all, line{order: departureOrder, cluster: d.Cluster, text: fmt.Sprintf("%s (%s): %s", d.Cluster, d.State, d.Message)})
		}
	}
	for _, l := range left {
		all = append(all, line{order: departureOrder, cluster: l.Cluster, text: leftLine(l)})
	}
	slices.SortStableFunc(all, func(a, b line) int {
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.wave, b.wave), strings.Compare(a.cluster, b.cluster))
	})
	var lines []string
	for i, l := range all {
		if i == maxClusterLines {
			lines = append(lines, fmt.Sprintf("… and %d more", len(all)-maxClusterLines))
			break
		}
		lines = append(lines, bound(l.text, maxLineLength))
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
