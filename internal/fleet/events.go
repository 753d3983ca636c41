package fleet

import (
	"fmt"
	"strings"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
)

const (
	// maxEventNote bounds an Event's note (the API server allows 1 KiB).
	maxEventNote = 1000
	// maxEventNames bounds how many clusters an Event names.
	maxEventNames = 10
)

// Reasons of the set's Events besides those of its conditions.
const (
	ReasonTemplateWritten = "TemplateWritten"
	ReasonClusterRemoved  = "ClusterRemoved"
	ReasonClusterReleased = "ClusterReleased"
	ReasonRolloutStopped  = "RolloutStopped"
	ReasonLeftBehind      = "LeftBehind"
	// ReasonObjectsLeft: a cluster left and the set could not delete its
	// objects there (departure.go).
	ReasonObjectsLeft = "ObjectsLeft"
)

// setEvent is one Event to record about a set.
type setEvent struct {
	Type, Reason, Action, Note string
}

// rolloutEvents are the Events of a pass: the clusters the template was
// written to, the clusters removed or released, the rollout stopping at a
// failed cluster, and a cluster list that could not be read — the last two
// only when the set's Ready reason turned to them, so a pass that finds
// the same writes none.
func rolloutEvents(set *v1alpha1.ComponentSet, p *plan, written []string, removed []string, reasonBefore string) []setEvent {
	var out []setEvent
	if len(written) > 0 {
		out = append(out, setEvent{"Normal", ReasonTemplateWritten, "RollOut",
			fmt.Sprintf("wave %d of %d: the template written to %s", p.Wave, p.Waves, names(written))})
	}
	if len(removed) > 0 {
		reason, what := ReasonClusterRemoved, "deleted"
		if set.Spec.RemovalPolicy == v1alpha1.RemovalOrphan {
			reason, what = ReasonClusterReleased, "released"
		}
		out = append(out, setEvent{"Normal", reason, "Remove",
			fmt.Sprintf("left the selection, their Components %s: %s", what, names(removed))})
	}
	if p.FailedAt != nil && reasonBefore != ReasonFailed {
		out = append(out, setEvent{"Warning", ReasonRolloutStopped, "RollOut",
			fmt.Sprintf("the rollout stopped at wave %d of %d: cluster %s failed: %s", p.Wave, p.Waves, p.FailedAt.Cluster.Name, p.FailedAt.Message)})
	}
	for i := range out {
		out[i].Note = bound(out[i].Note, maxEventNote)
	}
	return out
}

// names lists clusters, the first maxEventNames of them.
func names(clusters []string) string {
	if len(clusters) <= maxEventNames {
		return strings.Join(clusters, ", ")
	}
	return fmt.Sprintf("%s … and %d more", strings.Join(clusters[:maxEventNames], ", "), len(clusters)-maxEventNames)
}
