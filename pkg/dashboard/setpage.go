package dashboard

import (
	"net/http"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/api/v1alpha1"
	"github.com/wavekit-dev/wavekit/pkg/component"
)

// setRow is a set in the overview, and the head of its own page.
type setRow struct {
	URL        string
	Kind       string
	Namespace  string
	Name       string
	Ready      string
	Reason     string
	Message    string
	Rollout    rolloutFields
	Paused     bool
	Deleting   bool
	LastChange time.Time
	Created    time.Time
}

func newSetRow(r *setRecord, limit int) setRow {
	message := strings.Join(strings.Fields(r.ready.Message), " ")
	if limit > 0 && len(message) > limit {
		message = message[:limit] + "…"
	}
	return setRow{URL: setURL(r.kind.key, r.namespace, r.name), Kind: r.kind.gvk.Kind, Namespace: r.namespace, Name: r.name,
		Ready: string(r.ready.Status), Reason: r.ready.Reason, Message: message, Rollout: r.status.Rollout,
		Paused: r.paused, Deleting: r.deleting, LastChange: r.lastChange, Created: r.created}
}

// setURL is the path of a set's page.
func setURL(kindKey, namespace, name string) string {
	return "/s" + strings.TrimPrefix(componentURL(kindKey, namespace, name), "/c")
}

// setPage is one set: its cluster waves, conditions, the clusters that
// left objects behind, and its Events.
type setPage struct {
	layoutData
	Row      setRow
	Commands []command
	Waves    []setWaveView
	// MembersHidden: the viewer may not list the members' kind here.
	MembersHidden bool
	// Inputs: some member is an input's (a column of their ids).
	Inputs bool
	// NotCreated counts the selected clusters that have no component yet.
	NotCreated    int
	Conditions    []metav1.Condition
	Left          []leftCluster
	Events        []event
	EventsHidden  bool
	EventsCommand string
	// Actions and Done are as on a component's page.
	Actions []actionButton
	Done    string
}

// setWaveView is one cluster wave of a set.
type setWaveView struct {
	Number int
	// State is done, holding (the wave the rollout is at), paused (that
	// wave, of a paused set) or waiting.
	State    string
	Clusters []clusterView
}

// clusterView is one cluster of a wave: its component's state.
type clusterView struct {
	Cluster string
	// Input is the id of the member's input, for a set's inputs; Cluster
	// is then empty for a member on the operator's own cluster.
	Input       string
	Component   string
	URL         string
	State       string
	Reason      string
	Message     string
	Unreachable bool
	Holds       bool
	Deleting    bool
	// Pulled: the component runs on the cluster only (its agent's); the
	// page has the set's line about it.
	Pulled bool
}

func (h *Handler) serveSet(w http.ResponseWriter, r *http.Request, v *viewer) {
	set := h.store.getSet(recordKey(r.PathValue("kind"), r.PathValue("namespace"), r.PathValue("name")))
	if set == nil || !v.mayList(r.Context(), set.kind.kindInfo, set.namespace) {
		h.notFound(w)
		return
	}
	page := setPage{
		layoutData: h.layout(v, set.name+" · "+h.opts.Title, "/live?namespace="+set.namespace),
		Row:        newSetRow(set, 0), Commands: setCommands(set), Conditions: set.status.Conditions, Left: set.status.LeftClusters,
		EventsCommand: "kubectl get events -n " + set.namespace + " --field-selector involvedObject.name=" + set.name,
		Actions:       h.buttons(r.Context(), v, setTarget(set)), Done: doneOf(r),
	}
	if v.mayList(r.Context(), set.kind.member, set.namespace) {
		members := h.store.members(set)
		pulled := pulledClusters(set, members)
		page.Waves = setWaves(set, members, pulled)
		page.NotCreated = max(int(set.status.Rollout.Clusters)-current(members)-len(pulled), 0)
		page.Inputs = slices.ContainsFunc(members, func(m *record) bool { return m.member != nil && m.member.input != "" })
	} else {
		page.MembersHidden = true
	}
	if v.mayReadEvents(r.Context(), set.namespace) {
		page.Events = h.store.eventsOf([]objectKey{{Kind: set.kind.gvk.Kind, Namespace: set.namespace, Name: set.name}}, maxEvents)
	} else {
		page.EventsHidden = true
	}
	h.render(w, http.StatusOK, "set", page)
}

// current counts the members that are not being deleted.
func current(members []*record) int {
	n := 0
	for _, m := range members {
		if !m.deleting {
			n++
		}
	}
	return n
}

// setWaves groups a set's components by wave, in order, each wave's
// clusters by name. The wave the rollout is at (status.rollout.wave) holds
// (or is paused), the earlier ones are done and the later ones wait; in the
// wave that holds, the clusters whose component is not Ready at its
// generation hold it.
func setWaves(set *setRecord, members []*record, pulled []v1alpha1.ClusterLine) []setWaveView {
	byWave := map[int][]clusterView{}
	for _, m := range members {
		byWave[m.member.wave] = append(byWave[m.member.wave], clusterOf(m))
	}
	for _, l := range pulled {
		byWave[l.Wave] = append(byWave[l.Wave], pulledClusterOf(l))
	}
	numbers := make([]int, 0, len(byWave))
	for n := range byWave {
		numbers = append(numbers, n)
	}
	slices.Sort(numbers)
	out := make([]setWaveView, len(numbers))
	for i, n := range numbers {
		state := waveState(set, n)
		clusters := byWave[n]
		slices.SortFunc(clusters, func(a, b clusterView) int { return strings.Compare(a.Cluster, b.Cluster) })
		for j := range clusters {
			clusters[j].Holds = (state == "holding" || state == "paused") && clusters[j].Holds
		}
		out[i] = setWaveView{Number: n, State: state, Clusters: clusters}
	}
	return out
}

// waveState is where the rollout stands with wave n.
func waveState(set *setRecord, n int) string {
	at := int(set.status.Rollout.Wave)
	switch {
	case set.ready.Status == metav1.ConditionTrue || n < at:
		return "done"
	case n == at && set.paused:
		return "paused"
	case n == at:
		return "holding"
	}
	return "waiting"
}

// clusterOf is a member's line; Holds says it is not Ready at its
// generation (whether that holds its wave is the wave's to say).
func clusterOf(m *record) clusterView {
	readyNow := m.ready.Status == metav1.ConditionTrue && m.ready.ObservedGeneration == m.generation
	return clusterView{Cluster: m.member.cluster, Input: m.member.input, Component: m.name, URL: componentURL(m.kind.key, m.namespace, m.name),
		State: m.state(), Reason: m.ready.Reason, Message: strings.Join(strings.Fields(m.ready.Message), " "),
		Unreachable: m.ready.Status != metav1.ConditionTrue && m.ready.Reason == component.ReasonTargetUnreachable,
		Holds:       !readyNow && !m.deleting, Deleting: m.deleting}
}

// pulledClusters are the set's lines (status.clusters) about the clusters
// it placed that have no member here: pulled clusters, whose component
// runs on the cluster only, written there by its agent.
func pulledClusters(set *setRecord, members []*record) []v1alpha1.ClusterLine {
	here := map[string]bool{}
	for _, m := range members {
		here[m.member.key] = true
	}
	return v1alpha1.PlacedElsewhere(set.status.Clusters, here)
}

// pulledClusterOf is a pulled cluster's line, from the set's.
func pulledClusterOf(l v1alpha1.ClusterLine) clusterView {
	v := clusterView{Cluster: l.Cluster, Pulled: true, State: l.State, Message: l.Message, Unreachable: l.Unreachable(), Holds: !l.Ready()}
	if l.Unreachable() {
		v.Reason = component.ReasonTargetUnreachable
	}
	return v
}

// setCommands are the read commands about one set.
func setCommands(r *setRecord) []command {
	out := []command{
		{"the set", "kubectl get " + r.kind.key + " -n " + r.namespace + " " + r.name + " -o yaml"},
		{"describe", "kubectl describe " + r.kind.key + " -n " + r.namespace + " " + r.name},
	}
	if r.kind.gvk.Group == wavekitGroup {
		out = append(out, command{"clusters by wave, live", "kubectl wavekit tree --set " + r.namespace + "/" + r.name})
	}
	return out
}
