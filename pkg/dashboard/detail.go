package dashboard

import (
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/wavekit-dev/wavekit/pkg/component"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// componentPage is one component.
type componentPage struct {
	layoutData
	Row        row
	Generation int64
	Observed   int64
	// TraceID is the trace of the Reconcile that last wrote the status
	// (status.lastTraceID), when the operator traces.
	TraceID        string
	Commands       []command
	Waves          []waveView
	Conditions     []metav1.Condition
	Events         []event
	EventsHidden   bool
	EventsCommand  string
	History        []component.HistoryEntry
	HistoryCommand string
	LastGood       *component.StoredRender
	Attempt        *component.Attempt
	Drift          driftView
	Tests          []objectView
	TestCondition  *metav1.Condition
	DeleteHooks    []objectView
	DependsOn      []dependencyView
	Dependents     []dependencyView
	// ChartDependencies are the chart dependencies the last render
	// brought (status.source.dependencies).
	ChartDependencies []manifests.DependencyInfo
	// Actions are the buttons of the actions the viewer may take, each a
	// form that carries CSRF.
	Actions []actionButton
	// Done is the action just taken (the ?done= of the redirect).
	Done string
	// Request is the last reconcile request and whether the operator
	// handled it.
	Request *requestView
}

// requestView is the last reconcile request of a component.
type requestView struct {
	At      string
	Handled bool
	// Outcome is the Ready condition's reason and message.
	Outcome string
}

// waveView is one wave on the page.
type waveView struct {
	Order int16
	// State is done, holding (the first wave not done) or waiting.
	State   string
	Objects []objectView
}

// objectView is one object of the inventory.
type objectView struct {
	Kind      string
	Namespace string
	Name      string
	Phase     string
	Status    string
	Ready     bool
	Holds     bool
	// External is a dependent outside Kubernetes.
	External bool
	Command  string
}

// driftView is how the component treats drift and what was seen of it.
type driftView struct {
	Mode      string
	Ignore    []string
	Condition *metav1.Condition
	WriteLoop bool
	Events    []event
}

// dependencyView is a component on the other end of a dependsOn.
type dependencyView struct {
	Kind      string
	Namespace string
	Name      string
	URL       string
	State     string
}

// maxEvents is how many Events a component's page shows.
const maxEvents = 30

func (h *Handler) serveComponent(w http.ResponseWriter, r *http.Request, v *viewer) {
	rec := h.store.get(recordKey(r.PathValue("kind"), r.PathValue("namespace"), r.PathValue("name")))
	if rec == nil || !v.seesRecord(r.Context(), rec) {
		h.notFound(w)
		return
	}
	page := componentPage{
		layoutData: h.layout(v, rec.name+" · "+h.opts.Title, "/live?namespace="+rec.namespace),
		Row:        newRow(rec, 0), Observed: rec.status.ObservedGeneration, TraceID: rec.status.LastTraceID,
		Commands: componentCommands(rec), Waves: waveViews(rec.waves),
		Conditions: rec.status.Conditions, History: rec.status.History, HistoryCommand: historyCommand(rec),
		LastGood: rec.status.LastGoodRender, Attempt: rec.status.Attempt,
		Tests: objectViews(specialItems(rec.status.Inventory, true), false), DeleteHooks: objectViews(specialItems(rec.status.Inventory, false), false),
		EventsCommand: eventsCommand(rec),
	}
	page.Actions, page.Done = h.buttons(r.Context(), v, componentTarget(rec)), doneOf(r)
	if rec.requestedAt != "" {
		page.Request = &requestView{At: rec.requestedAt, Handled: rec.status.LastHandledReconcileAt == rec.requestedAt,
			Outcome: strings.TrimSpace(rec.ready.Reason + ": " + rec.ready.Message)}
	}
	if rec.status.Source != nil {
		page.ChartDependencies = rec.status.Source.Dependencies
	}
	if c := findCondition(rec.status.Conditions, component.ConditionTestSuccess); c.Reason != "" {
		page.TestCondition = &c
	}
	if v.mayReadEvents(r.Context(), rec.namespace) {
		page.Events = h.store.eventsOf(eventObjects(rec), maxEvents)
	} else {
		page.EventsHidden = true
	}
	page.Drift = driftOf(rec, page.Events)
	page.DependsOn, page.Dependents = h.dependencies(r, v, rec)
	h.render(w, http.StatusOK, "component", page)
}

// waveViews marks the first wave that is not done as holding.
func waveViews(waves []wave) []waveView {
	out := make([]waveView, len(waves))
	held := false
	for i, w := range waves {
		state := "done"
		if !w.done() {
			state = "waiting"
			if !held {
				state, held = "holding", true
			}
		}
		out[i] = waveView{Order: w.Order, State: state, Objects: objectViews(w.Objects, state == "holding")}
	}
	return out
}

// objectViews shows the members of a wave; in a holding wave the ones not
// ready hold it.
func objectViews(members []waveMember, holding bool) []objectView {
	out := make([]objectView, len(members))
	for i, m := range members {
		ready := phaseReady(m.Phase)
		out[i] = objectView{Kind: m.Kind, Namespace: m.Namespace, Name: m.Name, Phase: string(m.Phase),
			Status: m.Status, Ready: ready, Holds: holding && !ready, External: m.External, Command: m.Command}
	}
	return out
}

// eventObjects are the component and the objects of its inventory in its
// namespace, whose Events the page shows.
func eventObjects(rec *record) []objectKey {
	keys := []objectKey{{Kind: rec.kind.gvk.Kind, Namespace: rec.namespace, Name: rec.name}}
	for _, item := range rec.status.Inventory {
		if item.Namespace == rec.namespace {
			keys = append(keys, objectKey{Kind: item.Kind, Namespace: item.Namespace, Name: item.Name})
		}
	}
	return keys
}

// driftOf gathers the drift settings, the Drifted condition and the Events
// about drift.
func driftOf(rec *record, events []event) driftView {
	d := driftView{Mode: string(rec.drift.Mode)}
	if d.Mode == "" {
		d.Mode = "default"
	}
	for _, rule := range rec.drift.Ignore {
		d.Ignore = append(d.Ignore, strings.Join(rule.Paths, ", "))
	}
	if c := findCondition(rec.status.Conditions, component.ConditionDrifted); c.Reason != "" {
		d.Condition = &c
	}
	d.WriteLoop = rec.ready.Reason == component.ReasonWriteLoop
	for _, e := range events {
		if strings.Contains(e.Reason, "Drift") || e.Reason == component.ReasonWriteLoop {
			d.Events = append(d.Events, e)
		}
	}
	return d
}

// dependencies are the components rec depends on and those that depend on
// it, as far as the viewer may see them.
func (h *Handler) dependencies(r *http.Request, v *viewer, rec *record) (on, by []dependencyView) {
	for _, ref := range rec.dependsOn {
		dep := dependencyView{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name, State: "unknown"}
		if other := h.findRecord(ref); other != nil && v.seesRecord(r.Context(), other) {
			dep.URL, dep.State = componentURL(other.kind.key, other.namespace, other.name), other.state()
		}
		on = append(on, dep)
	}
	for _, other := range h.store.list(func(o *record) bool { return dependsOn(o, rec) }) {
		if v.seesRecord(r.Context(), other) {
			by = append(by, dependencyView{Kind: other.kind.gvk.Kind, Namespace: other.namespace, Name: other.name,
				URL: componentURL(other.kind.key, other.namespace, other.name), State: other.state()})
		}
	}
	return on, by
}

// findRecord finds the component a reference names.
func (h *Handler) findRecord(ref reference) *record {
	for _, kind := range h.componentKinds() {
		if kind.gvk.Kind == ref.Kind {
			if rec := h.store.get(recordKey(kind.key, ref.Namespace, ref.Name)); rec != nil {
				return rec
			}
		}
	}
	return nil
}

// dependsOn tells whether a depends on b.
func dependsOn(a, b *record) bool {
	for _, ref := range a.dependsOn {
		if ref.Kind == b.kind.gvk.Kind && ref.Namespace == b.namespace && ref.Name == b.name {
			return true
		}
	}
	return false
}
