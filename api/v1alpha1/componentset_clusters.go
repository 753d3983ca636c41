package v1alpha1

import (
	"strconv"
	"strings"
)

// The states a line of a ComponentSet's status.clusters gives a selected
// cluster: "NAME (wave N): STATE[: MESSAGE]".
const (
	// ClusterReady: at the current template, Ready at its generation.
	ClusterReady = "Ready"
	// ClusterUpdating: being created or brought to the current template.
	ClusterUpdating = "Updating"
	// ClusterFailed: the current template failed there.
	ClusterFailed = "Failed"
	// ClusterUnreachable: its API server (or a pulled cluster's agent)
	// does not answer.
	ClusterUnreachable = "Unreachable"
	// ClusterWaiting: in a wave the rollout has not reached; it keeps the
	// template it had.
	ClusterWaiting = "Waiting"
	// ClusterPaused: the set is paused; it keeps the template it had.
	ClusterPaused = "Paused"
)

// ClusterLine is what one line of a set's status.clusters says of a
// selected cluster: the views (wavekit tree --set, the status page) read a
// pulled cluster's state from it, since such a cluster has no Component on
// the hub — the set's controller wrote the line from the same plan as for
// a pushed one, its agent's silence included (Unreachable).
// +kubebuilder:object:generate=false
type ClusterLine struct {
	Cluster string
	Wave    int
	// State is one of the Cluster* states.
	State   string
	Message string
}

// Ready tells whether the cluster runs the current template and is Ready.
func (l ClusterLine) Ready() bool { return l.State == ClusterReady }

// Unreachable tells whether the cluster does not answer: a pushed
// cluster's API server, or a pulled cluster's agent whose Lease ran out.
func (l ClusterLine) Unreachable() bool { return l.State == ClusterUnreachable }

// Placed tells whether the set placed the cluster's Component (or
// ComponentWork) already: every state but Waiting and Paused.
func (l ClusterLine) Placed() bool { return l.State != ClusterWaiting && l.State != ClusterPaused }

// PlacedElsewhere are the set's lines (status.clusters) about the clusters
// it placed that are not in here, the clusters with a Component on the
// hub: the pulled clusters, whose Component runs on the cluster only.
func PlacedElsewhere(lines []string, here map[string]bool) []ClusterLine {
	var out []ClusterLine
	for _, text := range lines {
		if l, ok := ParseClusterLine(text); ok && l.Placed() && !here[l.Cluster] {
			out = append(out, l)
		}
	}
	return out
}

// ParseClusterLine reads a line of status.clusters about a selected
// cluster, "NAME (wave N): STATE[: MESSAGE]"; false for the others
// (departing clusters, those that left objects, "… and N more").
func ParseClusterLine(line string) (ClusterLine, bool) {
	head, rest, ok := strings.Cut(line, "): ")
	if !ok {
		return ClusterLine{}, false
	}
	name, wave, ok := strings.Cut(head, " (wave ")
	if !ok {
		return ClusterLine{}, false
	}
	n, err := strconv.Atoi(wave)
	if err != nil || name == "" {
		return ClusterLine{}, false
	}
	state, message, _ := strings.Cut(rest, ": ")
	switch state {
	case ClusterReady, ClusterUpdating, ClusterFailed, ClusterUnreachable, ClusterWaiting, ClusterPaused:
		return ClusterLine{Cluster: name, Wave: n, State: state, Message: message}, true
	}
	return ClusterLine{}, false
}
