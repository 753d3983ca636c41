package report

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/api"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/conditions"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/engine"
	"github.com/wavekit-dev/wavekit/pkg/manifests"
)

// RecordActions counts the actions a pass took and emits one event per
// kind of action (created, updated, replaced, deleted, orphaned), naming
// the first few objects and why, where the action says (a replaced
// object's immutable fields). A pass that wrote nothing emits nothing.
func (sr *Recorder) RecordActions(actions []engine.ObjectAction) {
	sr.Writes += len(actions)
	if len(actions) > 0 && sr.Wrote != nil {
		sr.Wrote(sr.Component, len(actions))
	}
	if sr.Events == nil || len(actions) == 0 {
		return
	}
	byAction := map[engine.Action][]string{}
	var taken []engine.Action
	for _, a := range actions {
		if _, seen := byAction[a.Action]; !seen {
			taken = append(taken, a.Action)
		}
		object := a.Object.String()
		if a.Detail != "" {
			object += " (" + a.Detail + ")"
		}
		byAction[a.Action] = append(byAction[a.Action], object)
	}
	for _, action := range taken {
		sort.Strings(byAction[action]) // concurrent writes finish in any order
		past := action.Past()
		sr.Events.Eventf(sr.Component, nil, "Normal", past, past, "%s", bound.Objects(strings.ToLower(past), byAction[action]))
	}
}

// ReportDrift records what the pass found drifted and left (mode Warn) in
// the Drifted condition, and emits one Warning Event for the drift that is
// new since the applier last reported it: once per change, not per watch
// event. In other modes the condition is removed.
func (sr *Recorder) ReportDrift(mode manifests.DriftMode, res engine.Result) {
	conditions.SetDrifted(sr.Component.GetStatus(), sr.Component.GetGeneration(), mode, res)
	if mode != manifests.DriftWarn {
		return
	}
	var fresh []engine.Drift
	for _, d := range res.Drifted {
		if d.New {
			fresh = append(fresh, d)
		}
	}
	if sr.Events != nil && len(fresh) > 0 {
		note := bound.Problems(conditions.Drifts(fresh), "; ", 0, bound.EventLimit)
		sr.Events.Eventf(sr.Component, nil, "Warning", api.ReasonDriftDetected, "DetectDrift", "%s", note)
	}
}

// Warn emits a Warning Event of reason and action about the component,
// once for each new key (Notes.Changed); "" for key emits it every time.
func (sr *Recorder) Warn(key, reason, action, note string) {
	if sr.Events == nil || key != "" && !sr.Notes.Changed(sr.ID, key) {
		return
	}
	sr.Events.Eventf(sr.Component, nil, "Warning", reason, action, "%s", note)
}

// Note emits an Event for an outcome that differs from the component's last
// one, and reports whether it did. A Normal outcome differs by its reason,
// not its message, which follows progress and would cost an Event a step;
// a Warning differs by its message too. An outcome in progress after a
// pass that wrote objects (inPass) is remembered without an Event: the
// pass's Events (Created, Updated, Deleted) already say what goes on. A
// Warning ends with the ID of the Reconcile's trace, when it has one.
func (r *Reporter) Note(component api.Component, o outcome.Outcome, inPass bool, traceID string) bool {
	id := types.NamespacedName{Namespace: component.GetNamespace(), Name: component.GetName()}
	reason := o.Reason
	if o.Event != "" {
		reason = o.Event
	}
	kind, key := "Normal", reason
	if o.Warns() {
		kind, key = "Warning", reason+"\x00"+o.Message
	}
	if r.Events == nil || !r.Notes.Changed(id, key) {
		return false
	}
	if kind == "Normal" && inPass && o.Reason != api.ReasonReady {
		return false
	}
	r.Events.Eventf(component, nil, kind, reason, "Reconcile", "%s", withTraceID(o.Message, kind, traceID))
	return true
}

// withTraceID is the message of a Warning with the trace ID at its end,
// within an Event's limit: " (trace 4bf92f3577b34da6a3ce929d0e0e4736)".
func withTraceID(message, kind, traceID string) string {
	if traceID == "" || kind != "Warning" {
		return message
	}
	suffix := " (trace " + traceID + ")"
	if room := bound.EventLimit - len(suffix); len(message) > room {
		message = bound.Message(message, room)
	}
	return message + suffix
}
