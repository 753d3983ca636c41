package component

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/wavekit-dev/wavekit/pkg/component/internal/bound"
	"github.com/wavekit-dev/wavekit/pkg/component/internal/outcome"
	"github.com/wavekit-dev/wavekit/pkg/engine"
)

// recordActions emits one event per kind of action a pass took (created,
// updated, replaced, deleted, orphaned), naming the first few objects and
// why, where the action says (a replaced object's immutable fields). A pass that
// wrote nothing emits nothing.
func (r *core) recordActions(component Component, actions []engine.ObjectAction) {
	if len(actions) > 0 {
		objectWrites.WithLabelValues(r.name, component.GetNamespace(), component.GetName()).Add(float64(len(actions)))
	}
	if r.recorder == nil || len(actions) == 0 {
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
		r.recorder.Eventf(component, nil, "Normal", past, past, "%s", bound.Objects(strings.ToLower(past), byAction[action]))
	}
}

// note emits an Event for an outcome that differs from the component's last
// one, and reports whether it did. A Normal outcome differs by its reason,
// not its message, which follows progress and would cost an Event a step;
// a Warning differs by its message too. An outcome in progress after a
// pass that wrote objects (inPass) is remembered without an Event: the
// pass's Events (Created, Updated, Deleted) already say what goes on. A
// Warning ends with the ID of the Reconcile's trace, when it has one.
func (r *core) note(component Component, o outcome.Outcome, inPass bool, traceID string) bool {
	id := types.NamespacedName{Namespace: component.GetNamespace(), Name: component.GetName()}
	reason := o.Reason
	if o.Event != "" {
		reason = o.Event
	}
	kind, key := "Normal", reason
	if o.Warns() {
		kind, key = "Warning", reason+"\x00"+o.Message
	}
	if r.recorder == nil || !r.notes.changed(id, key) {
		return false
	}
	if kind == "Normal" && inPass && o.Reason != ReasonReady {
		return false
	}
	r.recorder.Eventf(component, nil, kind, reason, "Reconcile", "%s", withTraceID(o.Message, kind, traceID))
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
