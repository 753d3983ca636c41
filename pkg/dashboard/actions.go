package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/wavekit-dev/wavekit/pkg/component"
)

// The actions, each the RBAC verb that allows it on the object's resource.
const (
	actionReconcile = "reconcile"
	actionSuspend   = "suspend"
	actionResume    = "resume"
	actionRollback  = "rollback"
	actionPromote   = "promote"
)

// clusterScope is the namespace segment of a cluster-scoped object's URL.
const clusterScope = "-"

// annotationPinRevision is the suffix of <operator>/pin-revision, which
// pins an instance of a defined kind to a revision of its definition.
const annotationPinRevision = "pin-revision"

// actionButton is an action the page offers the viewer on an object.
type actionButton struct {
	Verb, Label, URL string
}

// actionTarget is an object actions apply to: a component or a set.
type actionTarget struct {
	kind                 kindInfo
	namespace, name, uid string
	set                  bool
	// suspended is spec.suspend of a component (the annotation
	// <operator>/suspend of an instance of a defined kind), spec.paused of
	// a set.
	suspended bool
	// rollbackTo is the generation of the Ready render a component keeps
	// to roll back to (status.lastGoodRender), when it is not the render
	// applied or rolled back to now; 0 for none.
	rollbackTo int64
	// definition is set for a definition of kinds (Options.Definitions).
	definition *definitionRecord
	page       string
}

// verbs are the actions the target offers now: suspend or resume as it
// is, reconcile, and roll back when a component keeps an earlier Ready
// render. An instance of a defined kind, whose spec is its source's
// values, is suspended by the annotation <operator>/suspend.
func (t actionTarget) verbs() []string {
	var verbs []string
	switch {
	case t.definition != nil:
		if _, _, _, halted := t.definition.halted(); halted {
			return []string{actionPromote}
		}
		return nil
	case t.suspended:
		return []string{actionResume}
	default:
		verbs = []string{actionReconcile, actionSuspend}
	}
	if t.rollbackTo > 0 {
		verbs = append(verbs, actionRollback)
	}
	return verbs
}

// label is the button's text of verb on t.
func (t actionTarget) label(verb string) string {
	switch {
	case verb == actionReconcile:
		return "Reconcile now"
	case verb == actionRollback:
		return fmt.Sprintf("Roll back to generation %d", t.rollbackTo)
	case verb == actionPromote:
		instance, _, from, _ := t.definition.halted()
		return fmt.Sprintf("Pin %s to revision %d and go on", instance, from)
	case verb == actionSuspend && t.set:
		return "Pause the rollout"
	case verb == actionResume && t.set:
		return "Resume the rollout"
	case verb == actionSuspend:
		return "Suspend"
	}
	return "Resume"
}

// componentTarget is the action target of a component.
func componentTarget(rec *record) actionTarget {
	return actionTarget{kind: rec.kind, namespace: rec.namespace, name: rec.name, uid: rec.uid, suspended: rec.suspended,
		rollbackTo: rollbackTo(rec.status), page: componentURL(rec.kind.key, rec.namespace, rec.name)}
}

// rollbackTo is the generation of the Ready render status keeps to roll
// back to, unless it is the one applied or rolled back to already.
func rollbackTo(status component.Status) int64 {
	good, att := status.LastGoodRender, status.Attempt
	switch {
	case good == nil:
		return 0
	case att != nil && (att.RenderDigest == good.RenderDigest || att.Result == component.ResultRolledBack):
		return 0
	}
	return good.Generation
}

// setTarget is the action target of a set.
func setTarget(set *setRecord) actionTarget {
	return actionTarget{kind: set.kind.kindInfo, namespace: set.namespace, name: set.name, uid: set.uid, set: true, suspended: set.paused,
		page: setURL(set.kind.key, set.namespace, set.name)}
}

// buttons are the actions the viewer may take on t, none without Actions.
func (h *Handler) buttons(ctx context.Context, v *viewer, t actionTarget) []actionButton {
	if h.opts.Actions == nil || (h.opts.Auth != nil && !v.loggedIn) {
		return nil
	}
	var out []actionButton
	for _, verb := range t.verbs() {
		if v.may(ctx, t.access(verb)) {
			out = append(out, actionButton{Verb: verb, Label: t.label(verb),
				URL: "/act/" + t.kind.key + "/" + t.namespace + "/" + t.name + "/" + verb})
		}
	}
	return out
}

// access is the RBAC check of verb on t.
func (t actionTarget) access(verb string) Access {
	namespace := t.namespace
	if namespace == clusterScope {
		namespace = ""
	}
	return Access{Verb: verb, Group: t.kind.gvk.Group, Resource: t.kind.resource, Namespace: namespace, Name: t.name}
}

// findTarget is the component or set of a request's path, nil if the
// viewer may not see it.
func (h *Handler) findTarget(r *http.Request, v *viewer) *actionTarget {
	if d := h.definitions; d != nil && r.PathValue("namespace") == clusterScope && r.PathValue("kind") == d.kind.key {
		if rec := d.get(r.PathValue("name")); rec != nil && v.mayList(r.Context(), d.kind, "") {
			t := d.target(rec)
			return &t
		}
		return nil
	}
	key := recordKey(r.PathValue("kind"), r.PathValue("namespace"), r.PathValue("name"))
	if rec := h.store.get(key); rec != nil && v.seesRecord(r.Context(), rec) {
		t := componentTarget(rec)
		return &t
	}
	if set := h.store.getSet(key); set != nil && v.mayList(r.Context(), set.kind.kindInfo, set.namespace) {
		t := setTarget(set)
		return &t
	}
	return nil
}

// doneOf is the action a redirect after one names, if it is one.
func doneOf(r *http.Request) string {
	done := r.URL.Query().Get("done")
	if slices.Contains([]string{actionReconcile, actionSuspend, actionResume, actionRollback, actionPromote}, done) {
		return done
	}
	return ""
}
